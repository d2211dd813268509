package interaction

import (
	"encoding/json"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

// Type is the interaction type of an invocation.
type Type int

// Interaction types a chat client may create (api-facts §4.1).
const (
	ApplicationCommand Type = 2
	Autocomplete       Type = 4
)

// maxDepth is how deep options nest: group → subcommand → value option.
const maxDepth = 3

// Invocation is the body a chat client POSTs to /interactions.
type Invocation struct {
	Type          Type
	ApplicationID snowflake.ID
	GuildID       snowflake.ID // 0 outside guilds
	ChannelID     snowflake.ID
	Data          InvocationData
}

// InvocationData is the invocation's data object.
type InvocationData struct {
	ID       snowflake.ID
	Name     string
	Type     command.Type
	Version  snowflake.ID
	Options  []InputOption
	TargetID snowflake.ID // 0 when absent
	// Attachments are the files the client uploaded for ATTACHMENT
	// options, whose values name them by id.
	Attachments []AttachmentInput
}

// AttachmentInput is an uploaded file as the invoking client describes it.
type AttachmentInput struct {
	ID          snowflake.ID
	Filename    string
	Size        int64
	ContentType string
}

// maxAttachments bounds data.attachments: one per ATTACHMENT option.
const maxAttachments = command.MaxOptions

// InputOption is one entry of data.options as the client sent it. Value is
// the decoded JSON value (string, json.Number or bool; nil when absent).
type InputOption struct {
	Name    string
	Type    command.OptionType
	Value   any
	Options []InputOption
	Focused bool
}

// ParseInvocation reads a decoded body (form.DecodeJSON). Every shape or
// type error is recorded at its path; the tree is nil when there is none.
func ParseInvocation(v any) (Invocation, *apierr.Fields) {
	var inv Invocation
	errs := &apierr.Fields{}
	o, ok := form.AsObject(v, errs)
	if !ok {
		return inv, errs
	}
	if o.Require("type") {
		// Components (3) and modal submissions (5) have their own parsers;
		// the message lists every type a client may invoke with.
		if t, ok := o.Choice("type", []int{int(ApplicationCommand), int(MessageComponent), int(Autocomplete), int(ModalSubmit)}); ok {
			inv.Type = Type(t)
		}
	}
	if o.Require("application_id") {
		inv.ApplicationID, _ = o.Snowflake("application_id")
	}
	inv.GuildID, _ = o.Snowflake("guild_id")
	if o.Require("channel_id") {
		inv.ChannelID, _ = o.Snowflake("channel_id")
	}
	if o.Require("data") {
		raw, _ := o.Value("data")
		if d, ok := form.AsObject(raw, o.At("data")); ok {
			inv.Data = parseData(d, inv.Type)
		}
	}
	if errs.Empty() {
		return inv, nil
	}
	return inv, errs
}

func parseData(d form.Object, it Type) InvocationData {
	var data InvocationData
	if d.Require("id") {
		data.ID, _ = d.Snowflake("id")
	}
	if d.Require("name") {
		data.Name, _ = d.Str("name")
	}
	if d.Require("type") {
		if t, ok := d.Choice("type", []int{1, 2, 3, 4}); ok {
			data.Type = command.Type(t)
		}
	}
	if d.Require("version") {
		data.Version, _ = d.Snowflake("version")
	}
	data.TargetID, _ = d.Snowflake("target_id")
	if l, ok := d.List("options"); ok {
		data.Options = parseOptions(l, it, 1, d.At("options"))
	}
	if l, ok := d.List("attachments"); ok {
		data.Attachments = parseAttachments(l, d.At("attachments"))
	}
	return data
}

// parseAttachments reads data.attachments: {id, filename, size?,
// content_type?} objects.
func parseAttachments(l []any, errs *apierr.Fields) []AttachmentInput {
	if len(l) > maxAttachments {
		errs.Add(form.CodeMaxLength, form.MsgMaxLength(maxAttachments))
		return nil
	}
	out := make([]AttachmentInput, 0, len(l))
	for i, item := range l {
		o, ok := form.AsObject(item, errs.At(i))
		if !ok {
			continue
		}
		var a AttachmentInput
		if o.Require("id") {
			a.ID, _ = o.Snowflake("id")
		}
		if o.Require("filename") {
			a.Filename, _ = o.StrLen("filename", 1, 1024)
		}
		a.Size, _ = o.IntIn("size", 0, 1<<53-1)
		a.ContentType, _ = o.StrLen("content_type", 0, 255)
		out = append(out, a)
	}
	return out
}

var optionTypes = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}

func parseOptions(l []any, it Type, depth int, errs *apierr.Fields) []InputOption {
	if len(l) > command.MaxOptions {
		errs.Add(form.CodeMaxLength, form.MsgMaxLength(command.MaxOptions))
		return nil
	}
	out := make([]InputOption, 0, len(l))
	for i, item := range l {
		at := errs.At(i)
		o, ok := form.AsObject(item, at)
		if !ok {
			continue
		}
		var opt InputOption
		if o.Require("name") {
			opt.Name, _ = o.Str("name")
		}
		typeOK := false
		if o.Require("type") {
			if t, ok := o.Choice("type", optionTypes); ok {
				opt.Type = command.OptionType(t)
				typeOK = true
			}
		}
		opt.Focused, _ = o.Bool("focused")
		if v, ok := o.Value("value"); ok {
			opt.Value = v
			if typeOK {
				checkJSONType(opt.Type, it, v, at.At("value"))
			}
		}
		if sub, ok := o.List("options"); ok {
			if depth >= maxDepth {
				at.At("options").Add(CodeOptionInvalid, MsgTooDeep)
			} else {
				opt.Options = parseOptions(sub, it, depth+1, at.At("options"))
			}
		}
		out = append(out, opt)
	}
	return out
}

// checkJSONType records a type error at at unless v has the JSON type an
// option of type t carries in an interaction of type it (api-facts §5).
// Subcommands and groups carry no value: that rule is Validate's.
func checkJSONType(t command.OptionType, it Type, v any, at *apierr.Fields) bool {
	switch t {
	case command.String:
		if _, ok := v.(string); !ok {
			at.Add(form.CodeStringConvert, form.MsgNotString(v))
			return false
		}
	case command.Integer, command.Number:
		if it == Autocomplete {
			if _, ok := v.(string); !ok {
				at.Add(form.CodeStringConvert, form.MsgNotString(v))
				return false
			}
			return true
		}
		if _, ok := v.(json.Number); !ok {
			if t == command.Integer {
				at.Add(form.CodeCoerce, form.MsgNotInt(v))
			} else {
				at.Add(form.CodeCoerce, form.MsgNotNumber(v))
			}
			return false
		}
	case command.Boolean:
		if _, ok := v.(bool); !ok {
			at.Add(form.CodeBoolConvert, form.MsgBoolConvert)
			return false
		}
	case command.UserOption, command.Channel, command.Role, command.Mentionable, command.Attachment:
		if _, ok := form.SnowflakeValue(v, at); !ok {
			return false
		}
	}
	return true
}
