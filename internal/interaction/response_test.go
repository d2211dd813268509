package interaction

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

// respLeaves returns the leaves recorded at a dotted path of err's field
// tree ("" for the root), or nil when err is not a 50035.
func respLeaves(err error, path string) []apierr.Leaf {
	e, ok := apierr.As(err)
	if !ok || e.Code != apierr.CodeInvalidFormBody || e.Fields == nil {
		return nil
	}
	node := e.Fields
	if path != "" {
		for _, k := range strings.Split(path, ".") {
			node = node.Child(k)
			if node == nil {
				return nil
			}
		}
	}
	return node.Leaves()
}

func respDecode(t testing.TB, s string) any {
	t.Helper()
	v, err := form.DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("bad JSON %s", s)
	}
	return v
}

// respCase is one row of the tables: with code set, a 50035 with that
// code (and msg, if set) at path; with err set, exactly that error;
// otherwise success.
type respCase struct {
	name      string
	it        Type
	body      string
	path      string
	code, msg string
	err       error
}

func (c respCase) check(t *testing.T, err error) {
	t.Helper()
	switch {
	case c.err != nil:
		if err != c.err {
			t.Fatalf("got %v, want %v", err, c.err)
		}
	case c.code != "":
		leaves := respLeaves(err, c.path)
		if !slices.ContainsFunc(leaves, func(l apierr.Leaf) bool {
			return l.Code == c.code && (c.msg == "" || l.Message == c.msg)
		}) {
			b, _ := json.Marshal(err)
			t.Fatalf("want %s %q at %q, got %v %s", c.code, c.msg, c.path, err, b)
		}
	default:
		if err != nil {
			b, _ := json.Marshal(err)
			t.Fatalf("unexpected error %v %s", err, b)
		}
	}
}

func rep(s string, n int) string {
	return strings.Repeat(s, n)
}

// objs is a JSON array of n empty objects.
func objs(n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat("{},", n), ",") + "]"
}

// jsonList is a JSON array of n items made by item(i).
func jsonList(n int, item func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item(i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// rows is n valid action rows, each with one button of its own custom_id.
func rows(n int) string {
	return jsonList(n, func(i int) string {
		return fmt.Sprintf(`{"type":1,"components":[{"type":2,"style":1,"label":"b","custom_id":"b%d"}]}`, i)
	})
}

// texts is n valid Components V2 text displays.
func texts(n int) string {
	return jsonList(n, func(int) string { return `{"type":10,"content":"t"}` })
}

// labels is n valid modal labels, each around a text input of its own
// custom_id.
func labels(n int) string {
	return jsonList(n, func(i int) string {
		return fmt.Sprintf(`{"type":18,"label":"L","component":{"type":4,"custom_id":"t%d","style":1}}`, i)
	})
}

var (
	typeInvalid = struct{ code, msg string }{CodeResponseTypeInvalid, MsgResponseTypeInvalid}
	modalOK     = `{"custom_id":"m","title":"T","components":[{"type":18,"label":"L","component":{"type":4,"custom_id":"t","style":1}}]}`
)

var callbackCases = []respCase{
	// shape and type
	{name: "not object", it: ApplicationCommand, body: `[]`, code: form.CodeModelConvert},
	{name: "null", it: ApplicationCommand, body: `null`, code: form.CodeListItemNull},
	{name: "type missing", it: ApplicationCommand, body: `{}`, path: "type", code: form.CodeRequired},
	{name: "type null", it: ApplicationCommand, body: `{"type":null}`, path: "type", code: form.CodeRequired},
	{name: "type 2", it: ApplicationCommand, body: `{"type":2}`, path: "type", code: form.CodeChoices,
		msg: "Value must be one of (1, 4, 5, 6, 7, 8, 9, 10, 12)."},
	{name: "type 11", it: ApplicationCommand, body: `{"type":11}`, path: "type", code: form.CodeChoices},
	{name: "type string", it: ApplicationCommand, body: `{"type":"x"}`, path: "type", code: form.CodeCoerce},
	{name: "type bool", it: ApplicationCommand, body: `{"type":true}`, path: "type", code: form.CodeCoerce},
	{name: "type numeric string", it: ApplicationCommand, body: `{"type":"4","data":{"content":"hi"}}`},
	{name: "type 4.0", it: ApplicationCommand, body: `{"type":4.0,"data":{"content":"hi"}}`},

	// fit
	{name: "pong command", it: ApplicationCommand, body: `{"type":1}`, path: "type", code: typeInvalid.code, msg: typeInvalid.msg},
	{name: "pong component", it: MessageComponent, body: `{"type":1}`, path: "type", code: typeInvalid.code},
	{name: "pong autocomplete", it: Autocomplete, body: `{"type":1}`, path: "type", code: typeInvalid.code},
	{name: "pong modal submit", it: ModalSubmit, body: `{"type":1}`, path: "type", code: typeInvalid.code},
	{name: "pong ping", it: ping, body: `{"type":1}`},
	{name: "message on ping", it: ping, body: `{"type":4,"data":{"content":"x"}}`, path: "type", code: typeInvalid.code},
	{name: "message autocomplete", it: Autocomplete, body: `{"type":4,"data":{"content":"x"}}`, path: "type", code: typeInvalid.code},
	{name: "deferred autocomplete", it: Autocomplete, body: `{"type":5}`, path: "type", code: typeInvalid.code},
	{name: "update autocomplete", it: Autocomplete, body: `{"type":7}`, path: "type", code: typeInvalid.code},
	{name: "choices command", it: ApplicationCommand, body: `{"type":8,"data":{"choices":[]}}`, path: "type", code: typeInvalid.code},
	{name: "choices component", it: MessageComponent, body: `{"type":8,"data":{"choices":[]}}`, path: "type", code: typeInvalid.code},
	{name: "deferred update command", it: ApplicationCommand, body: `{"type":6}`, err: ErrNoMessageToUpdate},
	{name: "update command", it: ApplicationCommand, body: `{"type":7,"data":{"content":"x"}}`, err: ErrNoMessageToUpdate},
	{name: "update command bad data first", it: ApplicationCommand, body: `{"type":7,"data":{"content":1}}`, path: "data.content", code: form.CodeStringConvert},
	{name: "deferred update component", it: MessageComponent, body: `{"type":6}`},
	{name: "deferred update modal submit", it: ModalSubmit, body: `{"type":6}`},
	{name: "update component", it: MessageComponent, body: `{"type":7,"data":{"content":"x"}}`},
	{name: "update modal submit", it: ModalSubmit, body: `{"type":7}`},
	{name: "modal command", it: ApplicationCommand, body: `{"type":9,"data":` + modalOK + `}`},
	{name: "modal component", it: MessageComponent, body: `{"type":9,"data":` + modalOK + `}`},
	{name: "modal on modal submit", it: ModalSubmit, body: `{"type":9,"data":` + modalOK + `}`, path: "type", code: typeInvalid.code},
	{name: "modal autocomplete", it: Autocomplete, body: `{"type":9,"data":` + modalOK + `}`, path: "type", code: typeInvalid.code},
	{name: "premium command", it: ApplicationCommand, body: `{"type":10}`},
	{name: "premium component", it: MessageComponent, body: `{"type":10,"data":{}}`},
	{name: "premium modal submit", it: ModalSubmit, body: `{"type":10,"data":null}`},
	{name: "premium autocomplete", it: Autocomplete, body: `{"type":10}`, path: "type", code: typeInvalid.code},
	{name: "premium with data", it: ApplicationCommand, body: `{"type":10,"data":{"content":"x"}}`, path: "data", code: CodeResponseDataInvalid},
	{name: "premium data not object", it: ApplicationCommand, body: `{"type":10,"data":3}`, path: "data", code: CodeResponseDataInvalid},
	{name: "activity command", it: ApplicationCommand, body: `{"type":12}`},
	{name: "activity component", it: MessageComponent, body: `{"type":12,"data":"ignored"}`},
	{name: "activity modal submit", it: ModalSubmit, body: `{"type":12}`},
	{name: "activity autocomplete", it: Autocomplete, body: `{"type":12}`, path: "type", code: typeInvalid.code},
	{name: "unknown interaction type", it: 9, body: `{"type":4,"data":{"content":"x"}}`, path: "type", code: typeInvalid.code},
	{name: "deferred update ignores data", it: MessageComponent, body: `{"type":6,"data":5}`},
	{name: "invalid fit and data errors together", it: Autocomplete, body: `{"type":4,"data":{"tts":1}}`, path: "data.tts", code: form.CodeBoolConvert},

	// CHANNEL_MESSAGE
	{name: "message no data", it: ApplicationCommand, body: `{"type":4}`, err: ErrEmptyMessage},
	{name: "message null data", it: ApplicationCommand, body: `{"type":4,"data":null}`, err: ErrEmptyMessage},
	{name: "message empty data", it: ApplicationCommand, body: `{"type":4,"data":{}}`, err: ErrEmptyMessage},
	{name: "message empty content", it: ApplicationCommand, body: `{"type":4,"data":{"content":"","embeds":[],"poll":null,"tts":true}}`, err: ErrEmptyMessage},
	{name: "message embed", it: ApplicationCommand, body: `{"type":4,"data":{"embeds":[{"title":"t"}]}}`},
	{name: "message component", it: ModalSubmit, body: `{"type":4,"data":{"components":` + rows(1) + `}}`},
	{name: "message attachment", it: ApplicationCommand, body: `{"type":4,"data":{"attachments":[{"id":"0"}]}}`},
	{name: "message poll", it: ApplicationCommand, body: `{"type":4,"data":{"poll":{"question":{"text":"?"},"answers":[{"poll_media":{"text":"yes"}}]}}}`},
	{name: "message data not object", it: ApplicationCommand, body: `{"type":4,"data":5}`, path: "data", code: form.CodeModelConvert},
	{name: "message content long", it: ApplicationCommand, body: `{"type":4,"data":{"content":"` + rep("a", 2001) + `"}}`,
		path: "data.content", code: form.CodeMaxLength, msg: "Must be 2000 or fewer in length."},
	{name: "message content 2000 code points", it: ApplicationCommand, body: `{"type":4,"data":{"content":"` + rep("é", 2000) + `"}}`},
	{name: "message ephemeral", it: ApplicationCommand, body: `{"type":4,"data":{"content":"x","flags":64}}`},
	{name: "message loading flag", it: ApplicationCommand, body: `{"type":4,"data":{"content":"x","flags":128}}`,
		path: "data.flags", code: CodeFlagsInvalid, msg: MsgFlagsInvalid},

	// DEFERRED_CHANNEL_MESSAGE
	{name: "deferred", it: ApplicationCommand, body: `{"type":5}`},
	{name: "deferred ephemeral", it: MessageComponent, body: `{"type":5,"data":{"flags":64}}`},
	{name: "deferred flags null", it: MessageComponent, body: `{"type":5,"data":{"flags":null}}`},
	{name: "deferred other keys ignored", it: ApplicationCommand, body: `{"type":5,"data":{"content":5,"embeds":"x"}}`},
	{name: "deferred suppress embeds", it: ApplicationCommand, body: `{"type":5,"data":{"flags":4}}`, path: "data.flags", code: CodeFlagsInvalid},
	{name: "deferred ephemeral loading", it: ApplicationCommand, body: `{"type":5,"data":{"flags":192}}`, path: "data.flags", code: CodeFlagsInvalid},
	{name: "deferred flags string", it: ApplicationCommand, body: `{"type":5,"data":{"flags":"x"}}`, path: "data.flags", code: form.CodeCoerce},
	{name: "deferred data string", it: ApplicationCommand, body: `{"type":5,"data":"x"}`, path: "data", code: form.CodeModelConvert},

	// UPDATE_MESSAGE
	{name: "update clears content", it: MessageComponent, body: `{"type":7,"data":{"content":null}}`},
	{name: "update empty components", it: MessageComponent, body: `{"type":7,"data":{"components":[]}}`},
	{name: "update bad embeds", it: MessageComponent, body: `{"type":7,"data":{"embeds":{}}}`, path: "data.embeds", code: form.CodeListConvert},

	// AUTOCOMPLETE_RESULT
	{name: "choices no data", it: Autocomplete, body: `{"type":8}`, path: "data", code: form.CodeRequired},
	{name: "choices data not object", it: Autocomplete, body: `{"type":8,"data":[]}`, path: "data", code: form.CodeModelConvert},
	{name: "choices missing", it: Autocomplete, body: `{"type":8,"data":{}}`, path: "data.choices", code: form.CodeRequired},
	{name: "choices not list", it: Autocomplete, body: `{"type":8,"data":{"choices":{}}}`, path: "data.choices", code: form.CodeListConvert},
	{name: "choices empty", it: Autocomplete, body: `{"type":8,"data":{"choices":[]}}`},
	{name: "choices 25", it: Autocomplete, body: `{"type":8,"data":{"choices":[` + strings.TrimSuffix(rep(`{"name":"a","value":"a"},`, 25), ",") + `]}}`},
	{name: "choices 26", it: Autocomplete, body: `{"type":8,"data":{"choices":[` + strings.TrimSuffix(rep(`{"name":"a","value":"a"},`, 26), ",") + `]}}`,
		path: "data.choices", code: form.CodeMaxLength, msg: "Must be 25 or fewer in length."},
	{name: "choice null", it: Autocomplete, body: `{"type":8,"data":{"choices":[null]}}`, path: "data.choices.0", code: form.CodeListItemNull},
	{name: "choice name empty", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"","value":1}]}}`,
		path: "data.choices.0.name", code: form.CodeBadLength, msg: "Must be between 1 and 100 in length."},
	{name: "choice name 101", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"` + rep("x", 101) + `","value":1}]}}`,
		path: "data.choices.0.name", code: form.CodeBadLength},
	{name: "choice name 100 code points", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"` + rep("ж", 100) + `","value":1}]}}`},
	{name: "choice name missing", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"value":1}]}}`, path: "data.choices.0.name", code: form.CodeRequired},
	{name: "choice name number", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":1,"value":1}]}}`, path: "data.choices.0.name", code: form.CodeStringConvert},
	{name: "choice value missing", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a"}]}}`, path: "data.choices.0.value", code: form.CodeRequired},
	{name: "choice value null", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":null}]}}`, path: "data.choices.0.value", code: form.CodeRequired},
	{name: "choice value bool", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":true}]}}`, path: "data.choices.0.value", code: form.CodeStringConvert},
	{name: "choice value 101", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":"` + rep("x", 101) + `"}]}}`,
		path: "data.choices.0.value", code: form.CodeBadLength, msg: "Must be between 0 and 100 in length."},
	{name: "choice value empty string", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":""}]}}`},
	{name: "choice value huge", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":1e400}]}}`, path: "data.choices.0.value", code: form.CodeCoerce},
	{name: "choice value above 2^53", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":1e20}]}}`, path: "data.choices.0.value", code: form.CodeNumberMax},
	{name: "choice value below -2^53", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":-1e20}]}}`, path: "data.choices.0.value", code: form.CodeNumberMin},
	{name: "choice localizations", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":1,"name_localizations":{"de":"b","fr":null}}]}}`},
	{name: "choice localizations null", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":1,"name_localizations":null}]}}`},
	{name: "choice localizations not object", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":1,"name_localizations":"x"}]}}`,
		path: "data.choices.0.name_localizations", code: form.CodeDictConvert},
	{name: "choice localization bad locale", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":1,"name_localizations":{"xx":"b"}}]}}`,
		path: "data.choices.0.name_localizations.xx", code: form.CodeChoices},
	{name: "choice localization empty", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":1,"name_localizations":{"de":""}}]}}`,
		path: "data.choices.0.name_localizations.de", code: form.CodeBadLength},
	{name: "choice localization number", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":1,"name_localizations":{"de":1}}]}}`,
		path: "data.choices.0.name_localizations.de", code: form.CodeStringConvert},
	{name: "second choice bad", it: Autocomplete, body: `{"type":8,"data":{"choices":[{"name":"a","value":1},{"name":"b"}]}}`,
		path: "data.choices.1.value", code: form.CodeRequired},

	// MODAL
	{name: "modal no data", it: ApplicationCommand, body: `{"type":9}`, path: "data", code: form.CodeRequired},
	{name: "modal data not object", it: ApplicationCommand, body: `{"type":9,"data":"x"}`, path: "data", code: form.CodeModelConvert},
	{name: "modal custom_id missing", it: ApplicationCommand, body: `{"type":9,"data":{"title":"T","components":[{}]}}`, path: "data.custom_id", code: form.CodeRequired},
	{name: "modal custom_id empty", it: ApplicationCommand, body: `{"type":9,"data":{"custom_id":"","title":"T","components":[{}]}}`,
		path: "data.custom_id", code: form.CodeBadLength, msg: "Must be between 1 and 100 in length."},
	{name: "modal custom_id 101", it: ApplicationCommand, body: `{"type":9,"data":{"custom_id":"` + rep("c", 101) + `","title":"T","components":[{}]}}`,
		path: "data.custom_id", code: form.CodeBadLength},
	{name: "modal title missing", it: ApplicationCommand, body: `{"type":9,"data":{"custom_id":"c","components":[{}]}}`, path: "data.title", code: form.CodeRequired},
	{name: "modal title 46", it: ApplicationCommand, body: `{"type":9,"data":{"custom_id":"c","title":"` + rep("t", 46) + `","components":[{}]}}`,
		path: "data.title", code: form.CodeBadLength, msg: "Must be between 1 and 45 in length."},
	{name: "modal title 45", it: ApplicationCommand, body: `{"type":9,"data":{"custom_id":"c","title":"` + rep("t", 45) + `","components":` + labels(1) + `}}`},
	{name: "modal components missing", it: ApplicationCommand, body: `{"type":9,"data":{"custom_id":"c","title":"T"}}`, path: "data.components", code: form.CodeRequired},
	{name: "modal components empty", it: ApplicationCommand, body: `{"type":9,"data":{"custom_id":"c","title":"T","components":[]}}`,
		path: "data.components", code: form.CodeBadLength, msg: "Must be between 1 and 5 in length."},
	{name: "modal components 6", it: ApplicationCommand, body: `{"type":9,"data":{"custom_id":"c","title":"T","components":` + objs(6) + `}}`,
		path: "data.components", code: form.CodeBadLength},
	{name: "modal components 5", it: ApplicationCommand, body: `{"type":9,"data":{"custom_id":"c","title":"T","components":` + labels(5) + `}}`},
	{name: "modal component not object", it: ApplicationCommand, body: `{"type":9,"data":{"custom_id":"c","title":"T","components":[1]}}`,
		path: "data.components.0", code: form.CodeModelConvert},
}

func TestParseCallback(t *testing.T) {
	for _, c := range callbackCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseCallback(respDecode(t, c.body), c.it)
			c.check(t, err)
		})
	}
}

func TestParseCallbackValues(t *testing.T) {
	t.Run("message", func(t *testing.T) {
		cb, err := ParseCallback(respDecode(t, `{"type":4,"data":{"content":"<hi>","tts":true,"flags":68,"embeds":[{"title":"a & b"}],"allowed_mentions":{"parse":[]},"extra":1}}`), ApplicationCommand)
		if err != nil {
			t.Fatal(err)
		}
		m := cb.Message
		if cb.Type != CallbackChannelMessage || m.Content != "<hi>" || !m.TTS || m.Flags != FlagEphemeral|FlagSuppressEmbeds ||
			len(m.Embeds) != 1 || string(m.Embeds[0]) != `{"title":"a & b"}` || string(m.AllowedMentions) != `{"parse":[]}` {
			t.Fatalf("%+v", cb)
		}
		want := map[string]bool{"content": true, "tts": true, "flags": true, "embeds": true, "allowed_mentions": true}
		if !mapsEqual(m.Set, want) {
			t.Fatalf("Set %v", m.Set)
		}
	})
	t.Run("deferred flags", func(t *testing.T) {
		cb, err := ParseCallback(respDecode(t, `{"type":5,"data":{"flags":64,"content":"ignored"}}`), MessageComponent)
		if err != nil || cb.Message.Flags != FlagEphemeral || cb.Message.Content != "" || !mapsEqual(cb.Message.Set, map[string]bool{"flags": true}) {
			t.Fatalf("%+v %v", cb, err)
		}
	})
	t.Run("update edit semantics", func(t *testing.T) {
		cb, err := ParseCallback(respDecode(t, `{"type":7,"data":{"content":null,"components":[]}}`), MessageComponent)
		if err != nil || !mapsEqual(cb.Message.Set, map[string]bool{"content": true, "components": true}) || !cb.Message.Empty() {
			t.Fatalf("%+v %v", cb, err)
		}
		cb, err = ParseCallback(respDecode(t, `{"type":7}`), MessageComponent)
		if err != nil || len(cb.Message.Set) != 0 {
			t.Fatalf("%+v %v", cb, err)
		}
	})
	t.Run("choices raw", func(t *testing.T) {
		cb, err := ParseCallback(respDecode(t, `{"type":8,"data":{"choices":[{"value":1.50,"name":"<b>"},{"name":"x","value":"9007199254740993"}]}}`), Autocomplete)
		want := `[{"name":"<b>","value":1.50},{"name":"x","value":"9007199254740993"}]`
		if err != nil || cb.Type != CallbackAutocompleteResult || string(cb.Choices) != want {
			t.Fatalf("%s %v", cb.Choices, err)
		}
		cb, err = ParseCallback(respDecode(t, `{"type":8,"data":{"choices":[]}}`), Autocomplete)
		if err != nil || string(cb.Choices) != `[]` {
			t.Fatalf("%s %v", cb.Choices, err)
		}
	})
	t.Run("modal raw", func(t *testing.T) {
		cb, err := ParseCallback(respDecode(t, `{"type":9,"data":`+modalOK+`}`), ApplicationCommand)
		want := `{"components":[{"component":{"custom_id":"t","style":1,"type":4},"label":"L","type":18}],"custom_id":"m","title":"T"}`
		if err != nil || cb.Type != CallbackModal || string(cb.Modal) != want {
			t.Fatalf("%s %v", cb.Modal, err)
		}
	})
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestCallbackErrors(t *testing.T) {
	_, err := ParseCallback(respDecode(t, `{"type":4}`), ApplicationCommand)
	e, ok := apierr.As(err)
	if !ok || e.Status != 400 || e.Code != 50006 || e.Message != "Cannot send an empty message" {
		t.Fatalf("%#v", err)
	}
	if b, _ := json.Marshal(err); string(b) != `{"message":"Cannot send an empty message","code":50006}` {
		t.Fatalf("%s", b)
	}
	_, err = ParseCallback(respDecode(t, `{"type":7,"data":{"content":"x"}}`), ApplicationCommand)
	if !errors.Is(err, ErrNoMessageToUpdate) {
		t.Fatal(err)
	}
	if _, ok := apierr.As(err); ok {
		t.Fatal("ErrNoMessageToUpdate must not be an apierr.Error")
	}
	_, err = ParseCallback(respDecode(t, `{"type":8,"data":{"choices":[{"name":"","value":1}]}}`), Autocomplete)
	b, _ := json.Marshal(err)
	want := `{"message":"Invalid Form Body","code":50035,"errors":{"data":{"choices":{"0":{"name":{"_errors":[{"code":"BASE_TYPE_BAD_LENGTH","message":"Must be between 1 and 100 in length."}]}}}}}}`
	if string(b) != want {
		t.Fatalf("got %s", b)
	}
	_, err = ParseCallback(respDecode(t, `{"type":1}`), ApplicationCommand)
	b, _ = json.Marshal(err)
	want = `{"message":"Invalid Form Body","code":50035,"errors":{"type":{"_errors":[{"code":"INTERACTION_RESPONSE_TYPE_INVALID","message":"Interaction response type is invalid for this interaction"}]}}}`
	if string(b) != want {
		t.Fatalf("got %s", b)
	}
}

var messageCases = []respCase{
	{name: "not object", body: `"x"`, code: form.CodeModelConvert},
	{name: "empty follow-up parses", body: `{}`},
	{name: "unknown keys", body: `{"sticker_ids":[1],"nonce":"x","content":"a"}`},
	{name: "content number", body: `{"content":5}`, path: "content", code: form.CodeStringConvert},
	{name: "content 2001", body: `{"content":"` + rep("a", 2001) + `"}`, path: "content", code: form.CodeMaxLength, msg: "Must be 2000 or fewer in length."},
	{name: "content 2000 emoji", body: `{"content":"` + rep("😀", 2000) + `"}`},
	{name: "tts string", body: `{"tts":"yes"}`, path: "tts", code: form.CodeBoolConvert},
	{name: "flags allowed", body: `{"flags":45124}`}, // 4|64|4096|8192|32768
	{name: "flags crossposted", body: `{"flags":1}`, path: "flags", code: CodeFlagsInvalid},
	{name: "flags loading", body: `{"flags":128}`, path: "flags", code: CodeFlagsInvalid},
	{name: "flags negative", body: `{"flags":-64}`, path: "flags", code: CodeFlagsInvalid},
	{name: "flags fraction", body: `{"flags":1.5}`, path: "flags", code: form.CodeCoerce},
	{name: "flags huge", body: `{"flags":1e30}`, path: "flags", code: form.CodeCoerce},
	{name: "flags bool", body: `{"flags":true}`, path: "flags", code: form.CodeCoerce},
	{name: "embeds 10", body: `{"embeds":` + objs(10) + `}`},
	{name: "embeds 11", body: `{"embeds":` + objs(11) + `}`, path: "embeds", code: form.CodeMaxLength, msg: "Must be 10 or fewer in length."},
	{name: "embeds not list", body: `{"embeds":{}}`, path: "embeds", code: form.CodeListConvert},
	{name: "embed not object", body: `{"embeds":[{},1]}`, path: "embeds.1", code: form.CodeModelConvert},
	{name: "embed null", body: `{"embeds":[null]}`, path: "embeds.0", code: form.CodeListItemNull},
	{name: "components 5", body: `{"components":` + rows(5) + `}`},
	{name: "components 6", body: `{"components":` + objs(6) + `}`, path: "components", code: form.CodeMaxLength, msg: "Must be 5 or fewer in length."},
	{name: "components 40 v2", body: `{"flags":32768,"components":` + texts(40) + `}`},
	{name: "components 41 v2", body: `{"flags":32768,"components":` + objs(41) + `}`, path: "components", code: form.CodeMaxLength, msg: "Must be 40 or fewer in length."},
	{name: "components v2 with bad flag counted once", body: `{"flags":32769,"components":` + objs(6) + `}`, path: "flags", code: CodeFlagsInvalid},
	{name: "component not object", body: `{"components":["x"]}`, path: "components.0", code: form.CodeModelConvert},
	{name: "attachments many", body: `{"attachments":` + objs(30) + `}`},
	{name: "attachment null", body: `{"attachments":[null]}`, path: "attachments.0", code: form.CodeListItemNull},
	{name: "allowed_mentions list", body: `{"allowed_mentions":[]}`, path: "allowed_mentions", code: form.CodeModelConvert},
	{name: "poll string", body: `{"poll":"x"}`, path: "poll", code: form.CodeModelConvert},
	{name: "nulls", body: `{"content":null,"tts":null,"flags":null,"embeds":null,"components":null,"attachments":null,"allowed_mentions":null,"poll":null}`},
}

// editCases differ from messageCases only by edit=true.
var editCases = []respCase{
	{name: "edit components 6 without flags", body: `{"components":` + objs(6) + `}`},
	{name: "edit components 41 without flags", body: `{"components":` + objs(41) + `}`, path: "components", code: form.CodeMaxLength},
	{name: "edit components 6 flags null", body: `{"flags":null,"components":` + objs(6) + `}`, path: "components", code: form.CodeMaxLength},
	{name: "edit components 6 flags 0", body: `{"flags":0,"components":` + objs(6) + `}`, path: "components", code: form.CodeMaxLength},
	{name: "edit nothing", body: `{}`},
	{name: "edit bad content", body: `{"content":[]}`, path: "content", code: form.CodeStringConvert},
}

func TestParseMessage(t *testing.T) {
	for _, c := range messageCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseMessage(respDecode(t, c.body), false)
			c.check(t, err)
		})
	}
	for _, c := range editCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseMessage(respDecode(t, c.body), true)
			c.check(t, err)
		})
	}
}

func TestParseMessageValues(t *testing.T) {
	m, err := ParseMessage(respDecode(t, `{"content":null,"embeds":[],"poll":null,"flags":4}`), true)
	if err != nil {
		t.Fatal(err)
	}
	if !mapsEqual(m.Set, map[string]bool{"content": true, "embeds": true, "poll": true, "flags": true}) ||
		m.Content != "" || len(m.Embeds) != 0 || m.Poll != nil || m.Flags != FlagSuppressEmbeds || !m.Empty() {
		t.Fatalf("%+v", m)
	}
	m, err = ParseMessage(respDecode(t, `{"attachments":[{"id":"0","filename":"a.png"}],"poll":{"question":{"text":"q"},"answers":[{"poll_media":{"text":"a"}}]},"components":[{"type":1,"components":[{"type":2,"style":1,"label":"B","custom_id":"b"}]}]}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if m.Empty() || len(m.Attachments) != 1 || string(m.Attachments[0]) != `{"filename":"a.png","id":"0"}` ||
		string(m.Poll) != `{"answers":[{"poll_media":{"text":"a"}}],"question":{"text":"q"}}` || len(m.Components) != 1 {
		t.Fatalf("%+v", m)
	}
	m, _ = ParseMessage(respDecode(t, `{}`), false)
	if m.Set == nil || len(m.Set) != 0 || !m.Empty() {
		t.Fatalf("%+v", m)
	}
	if (MessageData{Poll: json.RawMessage("null")}).Empty() != true || (MessageData{Content: " "}).Empty() {
		t.Fatal("Empty")
	}
	if ComponentLimit(FlagComponentsV2|FlagEphemeral) != 40 || ComponentLimit(FlagEphemeral) != 5 {
		t.Fatal("ComponentLimit")
	}
}

// respErrOK reports whether err is one ParseCallback or ParseMessage may
// return: nil, a sentinel, or a 50035 with at least one field error.
func respErrOK(err error) bool {
	if err == nil || err == ErrNoMessageToUpdate || err == error(ErrEmptyMessage) {
		return true
	}
	e, ok := apierr.As(err)
	return ok && e.Code == apierr.CodeInvalidFormBody && e.Status == 400 && !e.Fields.Empty()
}

func checkMessage(t *testing.T, m MessageData) {
	t.Helper()
	if utf8.RuneCountInString(m.Content) > MaxContentLength || m.Flags&^messageFlags != 0 ||
		len(m.Embeds) > MaxEmbeds || len(m.Components) > MaxComponentsV2 {
		t.Fatalf("limits not enforced: %+v", m)
	}
	for k := range m.Set {
		if !slices.Contains(messageKeys, k) {
			t.Fatalf("unknown key %q in Set", k)
		}
	}
	raws := append(append(append([]json.RawMessage{m.AllowedMentions, m.Poll}, m.Embeds...), m.Components...), m.Attachments...)
	for _, r := range raws {
		if r != nil && !json.Valid(r) {
			t.Fatalf("invalid raw JSON %q", r)
		}
	}
}

var fuzzTypes = []Type{ping, ApplicationCommand, MessageComponent, Autocomplete, ModalSubmit, 0}

func FuzzParseCallback(f *testing.F) {
	for _, c := range callbackCases {
		for i, it := range fuzzTypes {
			if it == c.it {
				f.Add([]byte(c.body), uint8(i))
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, which uint8) {
		v, err := form.DecodeJSON(b)
		if err != nil {
			return
		}
		it := fuzzTypes[int(which)%len(fuzzTypes)]
		cb, err := ParseCallback(v, it)
		if !respErrOK(err) {
			t.Fatalf("unexpected error %#v", err)
		}
		if e, ok := apierr.As(err); ok {
			if _, merr := json.Marshal(e); merr != nil {
				t.Fatal(merr)
			}
		}
		if err != nil {
			return
		}
		if !slices.Contains(callbackTypes, cb.Type) || fitOf(cb.Type, it) != fitOK {
			t.Fatalf("accepted type %d for interaction %d", cb.Type, it)
		}
		checkMessage(t, cb.Message)
		switch cb.Type {
		case CallbackChannelMessage:
			if cb.Message.Empty() {
				t.Fatal("empty message accepted")
			}
		case CallbackDeferredChannelMessage:
			if cb.Message.Flags&^FlagEphemeral != 0 {
				t.Fatalf("deferred flags %d", cb.Message.Flags)
			}
		case CallbackAutocompleteResult:
			var l []json.RawMessage
			if json.Unmarshal(cb.Choices, &l) != nil || len(l) > MaxAutocompleteList {
				t.Fatalf("choices %s", cb.Choices)
			}
		case CallbackModal:
			var m map[string]json.RawMessage
			if json.Unmarshal(cb.Modal, &m) != nil {
				t.Fatalf("modal %s", cb.Modal)
			}
		}
	})
}

func FuzzParseMessage(f *testing.F) {
	for _, c := range messageCases {
		f.Add([]byte(c.body), false)
	}
	for _, c := range editCases {
		f.Add([]byte(c.body), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, edit bool) {
		v, err := form.DecodeJSON(b)
		if err != nil {
			return
		}
		m, err := ParseMessage(v, edit)
		if err == ErrNoMessageToUpdate || err == error(ErrEmptyMessage) || !respErrOK(err) {
			t.Fatalf("unexpected error %#v", err)
		}
		if m.Set == nil {
			t.Fatal("nil Set")
		}
		if err == nil {
			checkMessage(t, m)
			if !edit && len(m.Components) > ComponentLimit(m.Flags) {
				t.Fatalf("%d components with flags %d", len(m.Components), m.Flags)
			}
		}
	})
}

func TestValidCallbackType(t *testing.T) {
	valid := map[int]bool{1: true, 4: true, 5: true, 6: true, 7: true, 8: true, 9: true, 10: true, 12: true}
	for i := -1; i <= 14; i++ {
		if ValidCallbackType(i) != valid[i] {
			t.Errorf("ValidCallbackType(%d) = %v", i, !valid[i])
		}
	}
}
