package msgcheck

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

// compCase is one rule's case: a components list (JSON), read as a
// message's (v2 or not) or a modal's, and the error expected at path, or
// none when code is empty.
type compCase struct {
	name  string
	list  string
	v2    bool
	modal bool
	path  string
	code  string
	msg   string
}

// Building blocks of valid components.
const (
	button     = `{"type":2,"style":1,"label":"B","custom_id":"b"}`
	linkButton = `{"type":2,"style":5,"label":"L","url":"https://example.com"}`
	text       = `{"type":10,"content":"hello"}`
	thumb      = `{"type":11,"media":{"url":"https://example.com/a.png"}}`
	textInput  = `{"type":4,"custom_id":"t","style":1}`
)

func row(children ...string) string {
	return `{"type":1,"components":[` + strings.Join(children, ",") + `]}`
}

func buttonWith(fields string) string { return `{"type":2,` + fields + `}` }

func stringSelect(fields string) string {
	return `{"type":3,"custom_id":"s","options":[{"label":"A","value":"a"},{"label":"B","value":"b"}]` + sep(fields) + `}`
}

func sep(fields string) string {
	if fields == "" {
		return ""
	}
	return "," + fields
}

func label(component string) string {
	return `{"type":18,"label":"L","component":` + component + `}`
}

func many(n int, item func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item(i)
	}
	return strings.Join(parts, ",")
}

func buttons(n int) string {
	return many(n, func(i int) string {
		return fmt.Sprintf(`{"type":2,"style":2,"label":"B","custom_id":"b%d"}`, i)
	})
}

var legacyCases = []compCase{
	{name: "row of 5 buttons", list: `[` + row(buttons(5)) + `]`},
	{name: "row of 6 buttons", list: `[` + row(buttons(6)) + `]`, path: "0.components", code: form.CodeBadLength, msg: "Must be between 1 and 5 in length."},
	{name: "empty row", list: `[` + row() + `]`, path: "0.components", code: form.CodeBadLength},
	{name: "row without components", list: `[{"type":1}]`, path: "0.components", code: form.CodeRequired},
	{name: "top-level button", list: `[` + button + `]`, path: "0", code: form.CodeUnionChoices, msg: `Value of field "type" must be one of (1,).`},
	{name: "top-level text display without v2", list: `[` + text + `]`, path: "0", code: form.CodeUnionChoices},
	{name: "type missing", list: `[{"components":[]}]`, path: "0.type", code: form.CodeRequired},
	{name: "type not int", list: `[{"type":"x"}]`, path: "0.type", code: form.CodeCoerce},
	{name: "component not object", list: `[1]`, path: "0", code: form.CodeModelConvert},
	{name: "id too large", list: `[{"type":1,"id":2147483648,"components":[` + button + `]}]`, path: "0.id", code: form.CodeNumberMax},
	{name: "one select", list: `[` + row(stringSelect("")) + `]`},
	{name: "select beside a button", list: `[` + row(stringSelect(""), button) + `]`, path: "0.components.1", code: CodeLayoutWidthExceeded, msg: MsgLayoutWidthExceeded},
	{name: "text input in a message", list: `[` + row(textInput) + `]`, path: "0.components.0", code: form.CodeUnionChoices, msg: `Value of field "type" must be one of (2, 3, 5, 6, 7, 8).`},
	{name: "all auto-populated selects", list: `[` + row(`{"type":5,"custom_id":"u"}`) + `,` + row(`{"type":6,"custom_id":"r"}`) + `,` + row(`{"type":7,"custom_id":"m"}`) + `,` + row(`{"type":8,"custom_id":"c","channel_types":[0,2]}`) + `]`},

	// custom_id
	{name: "custom_id 100", list: `[` + row(buttonWith(`"style":1,"label":"x","custom_id":"`+strings.Repeat("c", 100)+`"`)) + `]`},
	{name: "custom_id 101", list: `[` + row(buttonWith(`"style":1,"label":"x","custom_id":"`+strings.Repeat("c", 101)+`"`)) + `]`, path: "0.components.0.custom_id", code: form.CodeBadLength, msg: "Must be between 1 and 100 in length."},
	{name: "custom_id empty", list: `[` + row(buttonWith(`"style":1,"label":"x","custom_id":""`)) + `]`, path: "0.components.0.custom_id", code: form.CodeBadLength},
	{name: "custom_id duplicated in a row", list: `[` + row(button, button) + `]`, path: "0.components.1.custom_id", code: CodeCustomIDDuplicated, msg: MsgCustomIDDuplicated},
	{name: "custom_id duplicated across rows", list: `[` + row(button) + `,` + row(stringSelect(`"custom_id":"b"`)) + `]`, path: "1.components.0.custom_id", code: CodeCustomIDDuplicated},

	// buttons by style
	{name: "button neither custom_id nor url", list: `[` + row(buttonWith(`"style":1,"label":"x"`)) + `]`, path: "0.components.0.custom_id", code: CodeCustomIDRequired, msg: MsgCustomIDRequired},
	{name: "button style missing", list: `[` + row(buttonWith(`"label":"x","custom_id":"b"`)) + `]`, path: "0.components.0.style", code: form.CodeRequired},
	{name: "button style 7", list: `[` + row(buttonWith(`"style":7,"label":"x","custom_id":"b"`)) + `]`, path: "0.components.0.style", code: form.CodeChoices, msg: "Value must be one of (1, 2, 3, 4, 5, 6)."},
	{name: "button label 80", list: `[` + row(buttonWith(`"style":1,"custom_id":"b","label":"`+strings.Repeat("l", 80)+`"`)) + `]`},
	{name: "button label 81", list: `[` + row(buttonWith(`"style":1,"custom_id":"b","label":"`+strings.Repeat("l", 81)+`"`)) + `]`, path: "0.components.0.label", code: form.CodeMaxLength, msg: "Must be 80 or fewer in length."},
	{name: "button custom_id and url", list: `[` + row(buttonWith(`"style":1,"label":"x","custom_id":"b","url":"https://a.b"`)) + `]`, path: "0.components.0.url", code: CodeCustomIDURLExclusive},
	{name: "button with sku_id", list: `[` + row(buttonWith(`"style":1,"label":"x","custom_id":"b","sku_id":"1"`)) + `]`, path: "0.components.0.sku_id", code: CodeButtonFieldInvalid},
	{name: "button emoji", list: `[` + row(buttonWith(`"style":1,"custom_id":"b","emoji":{"name":"🔥"}`)) + `]`},
	{name: "button emoji not object", list: `[` + row(buttonWith(`"style":1,"custom_id":"b","emoji":"🔥"`)) + `]`, path: "0.components.0.emoji", code: form.CodeModelConvert},
	{name: "button emoji id not snowflake", list: `[` + row(buttonWith(`"style":1,"custom_id":"b","emoji":{"id":"x"}`)) + `]`, path: "0.components.0.emoji.id", code: form.CodeCoerce},
	{name: "link button", list: `[` + row(linkButton) + `]`},
	{name: "link button discord scheme", list: `[` + row(buttonWith(`"style":5,"label":"x","url":"discord://-/channels/1/2"`)) + `]`},
	{name: "link button without url", list: `[` + row(buttonWith(`"style":5,"label":"x"`)) + `]`, path: "0.components.0.url", code: form.CodeRequired},
	{name: "link button with custom_id", list: `[` + row(buttonWith(`"style":5,"label":"x","url":"https://a.b","custom_id":"b"`)) + `]`, path: "0.components.0.custom_id", code: CodeCustomIDURLExclusive, msg: MsgCustomIDURLExclusive},
	{name: "link button url 513", list: `[` + row(buttonWith(`"style":5,"label":"x","url":"https://a.b/`+strings.Repeat("p", 501)+`"`)) + `]`, path: "0.components.0.url", code: form.CodeMaxLength},
	{name: "link button ftp", list: `[` + row(buttonWith(`"style":5,"label":"x","url":"ftp://a.b"`)) + `]`, path: "0.components.0.url", code: CodeURLScheme, msg: `Scheme "ftp" is not supported. Scheme must be one of ('http', 'https', 'discord').`},
	{name: "link button not a url", list: `[` + row(buttonWith(`"style":5,"label":"x","url":"nope"`)) + `]`, path: "0.components.0.url", code: CodeURLInvalid},
	{name: "premium button", list: `[` + row(buttonWith(`"style":6,"sku_id":"1234567890"`)) + `]`},
	{name: "premium button without sku_id", list: `[` + row(buttonWith(`"style":6`)) + `]`, path: "0.components.0.sku_id", code: form.CodeRequired},
	{name: "premium button with label", list: `[` + row(buttonWith(`"style":6,"sku_id":"1","label":"x"`)) + `]`, path: "0.components.0.label", code: CodeButtonFieldInvalid},
	{name: "premium button with custom_id", list: `[` + row(buttonWith(`"style":6,"sku_id":"1","custom_id":"x"`)) + `]`, path: "0.components.0.custom_id", code: CodeButtonFieldInvalid},

	// string selects
	{name: "select options missing", list: `[` + row(`{"type":3,"custom_id":"s"}`) + `]`, path: "0.components.0.options", code: form.CodeRequired},
	{name: "select options empty", list: `[` + row(`{"type":3,"custom_id":"s","options":[]}`) + `]`, path: "0.components.0.options", code: form.CodeBadLength, msg: "Must be between 1 and 25 in length."},
	{name: "select 26 options", list: `[` + row(`{"type":3,"custom_id":"s","options":[`+many(26, func(i int) string { return fmt.Sprintf(`{"label":"l","value":"v%d"}`, i) })+`]}`) + `]`, path: "0.components.0.options", code: form.CodeBadLength},
	{name: "select option value duplicated", list: `[` + row(`{"type":3,"custom_id":"s","options":[{"label":"a","value":"v"},{"label":"b","value":"v"}]}`) + `]`, path: "0.components.0.options.1", code: CodeOptionDuplicated, msg: MsgOptionDuplicated},
	{name: "select option label missing", list: `[` + row(`{"type":3,"custom_id":"s","options":[{"value":"v"}]}`) + `]`, path: "0.components.0.options.0.label", code: form.CodeRequired},
	{name: "select option label 101", list: `[` + row(`{"type":3,"custom_id":"s","options":[{"label":"`+strings.Repeat("l", 101)+`","value":"v"}]}`) + `]`, path: "0.components.0.options.0.label", code: form.CodeBadLength},
	{name: "select option description 101", list: `[` + row(`{"type":3,"custom_id":"s","options":[{"label":"l","value":"v","description":"`+strings.Repeat("d", 101)+`"}]}`) + `]`, path: "0.components.0.options.0.description", code: form.CodeMaxLength},
	{name: "select placeholder 150", list: `[` + row(stringSelect(`"placeholder":"`+strings.Repeat("p", 150)+`"`)) + `]`},
	{name: "select placeholder 151", list: `[` + row(stringSelect(`"placeholder":"`+strings.Repeat("p", 151)+`"`)) + `]`, path: "0.components.0.placeholder", code: form.CodeMaxLength, msg: "Must be 150 or fewer in length."},
	{name: "select min 0 max 2", list: `[` + row(stringSelect(`"min_values":0,"max_values":2`)) + `]`},
	{name: "select disabled in a message", list: `[` + row(stringSelect(`"disabled":true`)) + `]`},
	{name: "select min_values 26", list: `[` + row(stringSelect(`"min_values":26,"max_values":25`)) + `]`, path: "0.components.0.min_values", code: form.CodeNumberMax},
	{name: "select max_values 0", list: `[` + row(stringSelect(`"max_values":0`)) + `]`, path: "0.components.0.max_values", code: form.CodeNumberMin},
	{name: "select min above max", list: `[` + row(stringSelect(`"min_values":2,"max_values":1`)) + `]`, path: "0.components.0.min_values", code: form.CodeNumberMax},
	{name: "select min_values above options", list: `[` + row(stringSelect(`"min_values":3,"max_values":3`)) + `]`, path: "0.components.0.min_values", code: form.CodeNumberMax},
	{name: "select max_values above options", list: `[` + row(stringSelect(`"max_values":3`)) + `]`, path: "0.components.0.options", code: form.CodeMinLength, msg: "Must be 3 or more in length."},
	{name: "select too many defaults", list: `[` + row(`{"type":3,"custom_id":"s","options":[{"label":"a","value":"a","default":true},{"label":"b","value":"b","default":true}]}`) + `]`, path: "0.components.0.options", code: CodeTooManyDefaults, msg: MsgTooManyDefaults},

	// auto-populated selects
	{name: "user select defaults", list: `[` + row(`{"type":5,"custom_id":"u","max_values":2,"default_values":[{"id":"1","type":"user"},{"id":"2","type":"user"}]}`) + `]`},
	{name: "user select default of a role", list: `[` + row(`{"type":5,"custom_id":"u","default_values":[{"id":"1","type":"role"}]}`) + `]`, path: "0.components.0.default_values.0.type", code: form.CodeChoices, msg: "Value must be one of ('user',)."},
	{name: "mentionable select defaults", list: `[` + row(`{"type":7,"custom_id":"m","max_values":2,"default_values":[{"id":"1","type":"role"},{"id":"2","type":"user"}]}`) + `]`},
	{name: "select defaults above max_values", list: `[` + row(`{"type":6,"custom_id":"r","default_values":[{"id":"1","type":"role"},{"id":"2","type":"role"}]}`) + `]`, path: "0.components.0.default_values", code: CodeTooManyDefaults},
	{name: "select default id not snowflake", list: `[` + row(`{"type":6,"custom_id":"r","default_values":[{"id":"x","type":"role"}]}`) + `]`, path: "0.components.0.default_values.0.id", code: form.CodeCoerce},
	{name: "channel select bad channel type", list: `[` + row(`{"type":8,"custom_id":"c","channel_types":[99]}`) + `]`, path: "0.components.0.channel_types.0", code: form.CodeChoices},
	{name: "select custom_id missing", list: `[` + row(`{"type":5}`) + `]`, path: "0.components.0.custom_id", code: form.CodeRequired},
}

func v2Case(c compCase) compCase { c.v2 = true; return c }

var v2Cases = []compCase{
	{name: "text display", list: `[` + text + `]`},
	{name: "every top-level type", list: `[` + row(button) + `,{"type":9,"components":[` + text + `],"accessory":` + thumb + `},` + text +
		`,{"type":12,"items":[{"media":{"url":"attachment://a.png"}}]},{"type":13,"file":{"url":"attachment://a.pdf"}},{"type":14,"spacing":2,"divider":false},{"type":17,"components":[` + text + `],"accent_color":16777215,"spoiler":true}]`},
	{name: "top-level thumbnail", list: `[` + thumb + `]`, path: "0", code: form.CodeUnionChoices, msg: `Value of field "type" must be one of (1, 9, 10, 12, 13, 14, 17).`},
	{name: "top-level button", list: `[` + button + `]`, path: "0", code: form.CodeUnionChoices},
	{name: "text display content missing", list: `[{"type":10}]`, path: "0.content", code: form.CodeRequired},
	{name: "text display content empty", list: `[{"type":10,"content":""}]`, path: "0.content", code: form.CodeBadLength},
	{name: "text display 4000", list: `[{"type":10,"content":"` + strings.Repeat("t", 4000) + `"}]`},
	{name: "text display 4001", list: `[{"type":10,"content":"` + strings.Repeat("t", 4001) + `"}]`, path: "0.content", code: form.CodeBadLength, msg: "Must be between 1 and 4000 in length."},
	{name: "text displays over 4000 together", list: `[{"type":10,"content":"` + strings.Repeat("t", 2000) + `"},{"type":10,"content":"` + strings.Repeat("t", 2001) + `"}]`, path: "", code: CodeTextLengthExceeded, msg: MsgTextLengthExceeded},
	{name: "section with button accessory", list: `[{"type":9,"components":[` + text + `,` + text + `,` + text + `],"accessory":` + button + `}]`},
	{name: "section with 4 texts", list: `[{"type":9,"components":[` + many(4, func(int) string { return text }) + `],"accessory":` + thumb + `}]`, path: "0.components", code: form.CodeBadLength, msg: "Must be between 1 and 3 in length."},
	{name: "section without accessory", list: `[{"type":9,"components":[` + text + `]}]`, path: "0.accessory", code: form.CodeRequired},
	{name: "section accessory select", list: `[{"type":9,"components":[` + text + `],"accessory":` + stringSelect("") + `}]`, path: "0.accessory", code: form.CodeUnionChoices, msg: `Value of field "type" must be one of (2, 11).`},
	{name: "section holding a button", list: `[{"type":9,"components":[` + button + `],"accessory":` + thumb + `}]`, path: "0.components.0", code: form.CodeUnionChoices, msg: `Value of field "type" must be one of (10,).`},
	{name: "thumbnail without media", list: `[{"type":9,"components":[` + text + `],"accessory":{"type":11}}]`, path: "0.accessory.media", code: form.CodeRequired},
	{name: "thumbnail ftp", list: `[{"type":9,"components":[` + text + `],"accessory":{"type":11,"media":{"url":"ftp://a/b"}}}]`, path: "0.accessory.media.url", code: CodeURLScheme},
	{name: "thumbnail description 1025", list: `[{"type":9,"components":[` + text + `],"accessory":{"type":11,"media":{"url":"https://a/b"},"description":"` + strings.Repeat("d", 1025) + `"}}]`, path: "0.accessory.description", code: form.CodeMaxLength},
	{name: "gallery of 10", list: `[{"type":12,"items":[` + many(10, func(int) string { return `{"media":{"url":"https://a/b.png"},"description":null}` }) + `]}]`},
	{name: "gallery of 11", list: `[{"type":12,"items":[` + many(11, func(int) string { return `{"media":{"url":"https://a/b.png"}}` }) + `]}]`, path: "0.items", code: form.CodeBadLength, msg: "Must be between 1 and 10 in length."},
	{name: "gallery empty", list: `[{"type":12,"items":[]}]`, path: "0.items", code: form.CodeBadLength},
	{name: "gallery item without media", list: `[{"type":12,"items":[{}]}]`, path: "0.items.0.media", code: form.CodeRequired},
	{name: "file of a url", list: `[{"type":13,"file":{"url":"https://a/b.pdf"}}]`, path: "0.file.url", code: CodeURLScheme, msg: `Scheme "https" is not supported. Scheme must be one of ('attachment',).`},
	{name: "file without file", list: `[{"type":13}]`, path: "0.file", code: form.CodeRequired},
	{name: "separator spacing 3", list: `[{"type":14,"spacing":3}]`, path: "0.spacing", code: form.CodeChoices, msg: "Value must be one of (1, 2)."},
	{name: "separator divider not bool", list: `[{"type":14,"divider":1}]`, path: "0.divider", code: form.CodeBoolConvert},
	{name: "container accent_color null", list: `[{"type":17,"components":[` + text + `],"accent_color":null}]`},
	{name: "container accent_color too big", list: `[{"type":17,"components":[` + text + `],"accent_color":16777216}]`, path: "0.accent_color", code: form.CodeNumberMax},
	{name: "container in container", list: `[{"type":17,"components":[{"type":17,"components":[` + text + `]}]}]`, path: "0.components.0", code: form.CodeUnionChoices, msg: `Value of field "type" must be one of (1, 9, 10, 12, 13, 14).`},
	{name: "container empty", list: `[{"type":17,"components":[]}]`, path: "0.components", code: form.CodeMinLength},
	{name: "row in container", list: `[{"type":17,"components":[` + row(buttons(5)) + `]}]`},
	{name: "40 components", list: `[{"type":17,"components":[` + many(39, func(int) string { return text }) + `]}]`},
	{name: "41 components", list: `[{"type":17,"components":[` + many(40, func(int) string { return `{"type":14}` }) + `]}]`, path: "0.components", code: CodeCountExceeded, msg: "Must be 40 or fewer in length."},
	{name: "41 with accessories", list: `[` + many(20, func(int) string {
		return `{"type":9,"components":[{"type":10,"content":"x"}],"accessory":` + thumb + `}`
	}) + `]`, path: "13.components", code: CodeCountExceeded},
	{name: "custom_id unique across section and row", list: `[{"type":9,"components":[` + text + `],"accessory":` + button + `},` + row(button) + `]`, path: "1.components.0.custom_id", code: CodeCustomIDDuplicated},
}

func modalCase(c compCase) compCase { c.modal = true; return c }

var modalCases = []compCase{
	{name: "label text input", list: `[` + label(textInput) + `]`},
	{name: "every label child", list: `[` + label(textInput) + `,` + label(stringSelect("")) + `,` + label(`{"type":5,"custom_id":"u"}`) + `,` + label(`{"type":19,"custom_id":"f","min_values":0,"max_values":10,"required":false,"file_types":["image",".pdf"]}`) + `,` + text + `]`},
	{name: "radio, checkbox group, checkbox", list: `[` + label(`{"type":21,"custom_id":"r","options":[{"label":"A","value":"a"},{"label":"B","value":"b","default":true}],"required":false}`) + `,` +
		label(`{"type":22,"custom_id":"g","options":[{"label":"A","value":"a"}],"min_values":0,"max_values":1,"required":false}`) + `,` + label(`{"type":23,"custom_id":"c","default":true}`) + `,` +
		label(`{"type":6,"custom_id":"r2"}`) + `,` + label(`{"type":8,"custom_id":"c2"}`) + `]`},
	{name: "text input lacking type", list: `[` + label(`{"custom_id":"t","style":1}`) + `]`, path: "0.component.type", code: form.CodeRequired, msg: form.MsgRequired},
	{name: "text input lacking type in a row", list: `[{"type":1,"components":[{"custom_id":"t","style":1,"label":"L"}]}]`, path: "0.components.0.type", code: form.CodeRequired},
	{name: "legacy row text input", list: `[{"type":1,"components":[{"type":4,"custom_id":"t","style":2,"label":"Name","min_length":1,"max_length":4000,"value":"v","placeholder":"p","required":false}]}]`},
	{name: "legacy row text input without label", list: `[` + row(textInput) + `]`, path: "0.components.0.label", code: form.CodeRequired},
	{name: "legacy row text input label 46", list: `[` + row(`{"type":4,"custom_id":"t","style":1,"label":"`+strings.Repeat("l", 46)+`"}`) + `]`, path: "0.components.0.label", code: form.CodeBadLength, msg: "Must be between 1 and 45 in length."},
	{name: "legacy row of two text inputs", list: `[` + row(`{"type":4,"custom_id":"a","style":1,"label":"A"}`, `{"type":4,"custom_id":"b","style":1,"label":"B"}`) + `]`, path: "0.components.1", code: CodeLayoutWidthExceeded},
	{name: "row holding a button", list: `[` + row(button) + `]`, path: "0.components.0", code: form.CodeUnionChoices, msg: `Value of field "type" must be one of (4,).`},
	{name: "top-level text input", list: `[` + textInput + `]`, path: "0", code: form.CodeUnionChoices, msg: `Value of field "type" must be one of (1, 10, 18).`},
	{name: "label holding a button", list: `[` + label(button) + `]`, path: "0.component", code: form.CodeUnionChoices},
	{name: "label without component", list: `[{"type":18,"label":"L"}]`, path: "0.component", code: form.CodeRequired},
	{name: "label text missing", list: `[{"type":18,"component":` + textInput + `}]`, path: "0.label", code: form.CodeRequired},
	{name: "label text 46", list: `[{"type":18,"label":"` + strings.Repeat("l", 46) + `","component":` + textInput + `}]`, path: "0.label", code: form.CodeBadLength},
	{name: "label description 101", list: `[{"type":18,"label":"L","description":"` + strings.Repeat("d", 101) + `","component":` + textInput + `}]`, path: "0.description", code: form.CodeMaxLength},
	{name: "text input style missing", list: `[` + label(`{"type":4,"custom_id":"t"}`) + `]`, path: "0.component.style", code: form.CodeRequired},
	{name: "text input style 3", list: `[` + label(`{"type":4,"custom_id":"t","style":3}`) + `]`, path: "0.component.style", code: form.CodeChoices},
	{name: "text input custom_id missing", list: `[` + label(`{"type":4,"style":1}`) + `]`, path: "0.component.custom_id", code: form.CodeRequired},
	{name: "text input min_length 4001", list: `[` + label(`{"type":4,"custom_id":"t","style":1,"min_length":4001}`) + `]`, path: "0.component.min_length", code: form.CodeNumberMax},
	{name: "text input max_length 0", list: `[` + label(`{"type":4,"custom_id":"t","style":1,"max_length":0}`) + `]`, path: "0.component.max_length", code: form.CodeNumberMin},
	{name: "text input min above max", list: `[` + label(`{"type":4,"custom_id":"t","style":1,"min_length":10,"max_length":5}`) + `]`, path: "0.component.min_length", code: form.CodeNumberMax},
	{name: "text input value 4001", list: `[` + label(`{"type":4,"custom_id":"t","style":1,"value":"`+strings.Repeat("v", 4001)+`"}`) + `]`, path: "0.component.value", code: form.CodeMaxLength},
	{name: "text input placeholder 101", list: `[` + label(`{"type":4,"custom_id":"t","style":1,"placeholder":"`+strings.Repeat("p", 101)+`"}`) + `]`, path: "0.component.placeholder", code: form.CodeMaxLength},
	{name: "text input required not bool", list: `[` + label(`{"type":4,"custom_id":"t","style":1,"required":"yes"}`) + `]`, path: "0.component.required", code: form.CodeBoolConvert},
	{name: "custom_id duplicated in a modal", list: `[` + label(textInput) + `,` + label(textInput) + `]`, path: "1.component.custom_id", code: CodeCustomIDDuplicated},
	{name: "file upload max_values 11", list: `[` + label(`{"type":19,"custom_id":"f","max_values":11}`) + `]`, path: "0.component.max_values", code: form.CodeNumberMax},
	{name: "file upload 11 file_types", list: `[` + label(`{"type":19,"custom_id":"f","file_types":[`+many(11, func(int) string { return `"image"` })+`]}`) + `]`, path: "0.component.file_types", code: form.CodeMaxLength},
	{name: "radio group of one", list: `[` + label(`{"type":21,"custom_id":"r","options":[{"label":"A","value":"a"}]}`) + `]`, path: "0.component.options", code: form.CodeBadLength, msg: "Must be between 2 and 10 in length."},
	{name: "radio group value duplicated", list: `[` + label(`{"type":21,"custom_id":"r","options":[{"label":"A","value":"a"},{"label":"B","value":"a"}]}`) + `]`, path: "0.component.options.1", code: CodeOptionDuplicated},
	{name: "checkbox group of 11", list: `[` + label(`{"type":22,"custom_id":"g","options":[`+many(11, func(i int) string { return fmt.Sprintf(`{"label":"l","value":"v%d"}`, i) })+`]}`) + `]`, path: "0.component.options", code: form.CodeBadLength},
	{name: "checkbox group min above max", list: `[` + label(`{"type":22,"custom_id":"g","options":[{"label":"A","value":"a"}],"min_values":3,"max_values":2}`) + `]`, path: "0.component.min_values", code: form.CodeNumberMax},
	{name: "select min_values 0, not required", list: `[` + label(stringSelect(`"min_values":0,"required":false`)) + `]`},
	{name: "select min_values 0, required", list: `[` + label(stringSelect(`"min_values":0`)) + `]`, path: "0.component.min_values", code: form.CodeNumberMin, msg: "int value should be greater than or equal to 1."},
	{name: "file upload min_values 0, required", list: `[` + label(`{"type":19,"custom_id":"f","min_values":0,"required":true}`) + `]`, path: "0.component.min_values", code: form.CodeNumberMin},
	{name: "select disabled in a modal", list: `[` + label(stringSelect(`"disabled":true`)) + `]`, path: "0.component.disabled", code: CodeDisabledInModal, msg: MsgDisabledInModal},
	{name: "select disabled false in a modal", list: `[` + label(stringSelect(`"disabled":false`)) + `]`},
	{name: "checkbox without custom_id", list: `[` + label(`{"type":23}`) + `]`, path: "0.component.custom_id", code: form.CodeRequired},
	{name: "checkbox default not bool", list: `[` + label(`{"type":23,"custom_id":"c","default":"y"}`) + `]`, path: "0.component.default", code: form.CodeBoolConvert},
}

func TestComponents(t *testing.T) {
	var all []compCase
	all = append(all, legacyCases...)
	for _, c := range v2Cases {
		all = append(all, v2Case(c))
	}
	for _, c := range modalCases {
		all = append(all, modalCase(c))
	}
	for _, c := range all {
		t.Run(c.name, func(t *testing.T) {
			errs := &apierr.Fields{}
			list := decodeList(t, c.list)
			if c.modal {
				ModalComponents(list, errs)
			} else {
				Components(list, c.v2, errs)
			}
			checkErr(t, errs, c.path, c.code, c.msg)
		})
	}
}

// TestComponentsV2ReadAsLegacy checks that the same V2 components are
// refused without the flag: the flag decides what a message may hold.
func TestComponentsV2ReadAsLegacy(t *testing.T) {
	errs := &apierr.Fields{}
	Components(decodeList(t, `[`+row(button)+`,`+text+`]`), false, errs)
	checkErr(t, errs, "1", form.CodeUnionChoices, `Value of field "type" must be one of (1,).`)
}

func TestBodyComponents(t *testing.T) {
	cases := []struct {
		name, body string
		v2         bool
		path, code string
	}{
		{name: "v2 alone", body: `{"components":[` + text + `]}`, v2: true},
		{name: "v2 with empty legacy fields", body: `{"content":"","embeds":[],"poll":null,"sticker_ids":[],"components":[` + text + `]}`, v2: true},
		{name: "v2 with content", body: `{"content":"hi","components":[` + text + `]}`, v2: true, path: "content", code: CodeLegacyFieldsWithV2},
		{name: "v2 with embeds", body: `{"embeds":[{"title":"t"}],"components":[` + text + `]}`, v2: true, path: "embeds", code: CodeLegacyFieldsWithV2},
		{name: "v2 with poll", body: `{"poll":{"question":{"text":"q"}},"components":[` + text + `]}`, v2: true, path: "poll", code: CodeLegacyFieldsWithV2},
		{name: "v2 with stickers", body: `{"sticker_ids":["1"],"components":[` + text + `]}`, v2: true, path: "sticker_ids", code: CodeLegacyFieldsWithV2},
		{name: "legacy with content", body: `{"content":"hi","components":[` + row(button) + `]}`},
		{name: "legacy components", body: `{"components":[` + row(`{"type":2,"style":1,"label":"x"}`) + `]}`, path: "components.0.components.0.custom_id", code: CodeCustomIDRequired},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := form.DecodeJSON([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			errs := &apierr.Fields{}
			BodyComponents(v.(map[string]any), c.v2, errs)
			checkErr(t, errs, c.path, c.code, "")
			if c.code == CodeLegacyFieldsWithV2 {
				checkErr(t, errs, c.path, c.code, "The '"+c.path+"' field cannot be used when using MessageFlags.IS_COMPONENTS_V2")
			}
		})
	}
}

func decodeList(t testing.TB, s string) []any {
	t.Helper()
	v, err := form.DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("%v in %s", err, s)
	}
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("not a list: %s", s)
	}
	return l
}

// checkErr checks that errs is empty when code is, or holds code (with
// msg unless empty) at path (dot-separated; "" for the root).
func checkErr(t *testing.T, errs *apierr.Fields, path, code, msg string) {
	t.Helper()
	b, _ := json.Marshal(errs)
	if code == "" {
		if !errs.Empty() {
			t.Fatalf("unexpected errors %s", b)
		}
		return
	}
	node := errs
	if path != "" {
		for _, key := range strings.Split(path, ".") {
			if node = node.Child(key); node == nil {
				t.Fatalf("want %s at %q, got %s", code, path, b)
			}
		}
	}
	if !slices.ContainsFunc(node.Leaves(), func(l apierr.Leaf) bool {
		return l.Code == code && (msg == "" || l.Message == msg)
	}) {
		t.Fatalf("want %s %q at %q, got %s", code, msg, path, b)
	}
}
