// Package act is a test world's member acting on request (POST
// /admin/v1/worlds/{world}/act, docs/worlds.md "act"): an action is
// decoded and its handles resolved here by pure code (this file), then
// run (run.go) through the member API's own routes, in process, with the
// member's client token from the world's credentials.
package act

import (
	"fmt"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/slashline"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/world"
)

// Kinds of action: exactly one of the fields naming them is given.
const (
	KindRun            = "run"
	KindUserCommand    = "user_command"
	KindMessageCommand = "message_command"
	KindAutocomplete   = "autocomplete"
	KindClick          = "click"
	KindChoose         = "choose"
	KindSubmit         = "submit"
	KindSay            = "say"
)

// allKinds are the kinds in the order they are looked for (a function:
// no package-level mutable state).
func allKinds() []string {
	return []string{KindRun, KindUserCommand, KindMessageCommand, KindAutocomplete, KindClick, KindChoose, KindSubmit, KindSay}
}

// Wait bounds.
const (
	DefaultWait = 10 * time.Second
	MaxWait     = 30 * time.Second
)

// Error codes of a refused action (inner codes of 50035).
const (
	CodeBase          = "BASE_TYPE_REQUIRED"
	CodeBadValue      = "ACT_INVALID"
	CodeUnknownHandle = "ACT_UNKNOWN_HANDLE"
)

// Action is a decoded request.
type Action struct {
	Kind string
	// As is the member's handle (or user id); In a channel's handle
	// ("general", "club/general" where several guilds have one), a DM's
	// or group DM's handle, or a channel id.
	As, In string
	// Text is the action's main field: the command line (run,
	// autocomplete), the command's name (user/message command), the
	// button's custom_id or label (click), the select's custom_id or
	// placeholder (choose), the message's content (say).
	Text string
	// Target is a user command's user (handle or id) or a message
	// command's message id.
	Target string
	// Message is the message clicked or chosen on (0: the newest of the
	// channel with such a component).
	Message snowflake.ID
	// Values are a select's choices.
	Values []string
	// Fields are a modal's values by custom_id; Modal the interaction
	// that opened it (0: the last modal an action of this member opened).
	Fields map[string]string
	Modal  snowflake.ID
	// App picks the application (handle or id) where several have a
	// command of the name.
	App  string
	Wait time.Duration
}

// Decode reads an act request's body.
func Decode(body map[string]any) (Action, error) {
	var a Action
	kinds := allKinds()
	f := &apierr.Fields{}
	str := func(k string) string {
		v, ok := body[k]
		if !ok || v == nil {
			return ""
		}
		s, ok := v.(string)
		if !ok {
			f.At(k).Add("STRING_TYPE_CONVERT", "Could not interpret the value as string.")
		}
		return s
	}
	id := func(k string) snowflake.ID {
		s := str(k)
		if s == "" {
			return 0
		}
		v, err := snowflake.Parse(s)
		if err != nil || v == 0 {
			f.At(k).Add("NUMBER_TYPE_COERCE", fmt.Sprintf("Value %q is not snowflake.", s))
		}
		return v
	}
	for k := range body {
		if !known(k) {
			f.At(k).Add(CodeBadValue, "Unknown field: an action has as, in, one of "+strings.Join(kinds, ", ")+", and their options.")
		}
	}
	a.As, a.In = str("as"), str("in")
	if a.As == "" {
		f.At("as").Add(CodeBase, "This field is required")
	}
	if a.In == "" {
		f.At("in").Add(CodeBase, "This field is required")
	}
	var given []string
	for _, k := range kinds {
		if _, ok := body[k]; ok {
			given = append(given, k)
		}
	}
	switch len(given) {
	case 0:
		f.Add(CodeBadValue, "An action needs one of: "+strings.Join(kinds, ", ")+".")
	case 1:
		a.Kind = given[0]
	default:
		f.At(given[1]).Add(CodeBadValue, "An action is one of "+strings.Join(given, ", ")+", not several.")
	}
	if a.Kind == KindSubmit {
		fields, ok := body[KindSubmit].(map[string]any)
		if !ok {
			f.At(KindSubmit).Add("DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
		}
		a.Fields = map[string]string{}
		for k, v := range fields {
			s, ok := v.(string)
			if !ok {
				f.At(KindSubmit, k).Add("STRING_TYPE_CONVERT", "Could not interpret the value as string.")
			}
			a.Fields[k] = s
		}
	} else if a.Kind != "" {
		if a.Text = str(a.Kind); a.Text == "" && a.Kind != KindSay {
			f.At(a.Kind).Add(CodeBase, "This field is required")
		}
	}
	a.Target = str("target")
	if (a.Kind == KindUserCommand || a.Kind == KindMessageCommand) && a.Target == "" {
		f.At("target").Add(CodeBase, "This field is required")
	}
	a.Message, a.Modal, a.App = id("message"), id("modal"), str("app")
	if v, ok := body["values"]; ok {
		list, ok := v.([]any)
		if !ok {
			f.At("values").Add("LIST_TYPE_CONVERT", "Only iterables may be used in a ListType")
		}
		for i, e := range list {
			s, ok := e.(string)
			if !ok {
				f.At("values", i).Add("STRING_TYPE_CONVERT", "Could not interpret the value as string.")
			}
			a.Values = append(a.Values, s)
		}
	}
	a.Wait = DefaultWait
	if s := str("wait"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 || d > MaxWait {
			f.At("wait").Add(CodeBadValue, "A duration (10s, 1m) of at most "+MaxWait.String()+".")
		}
		a.Wait = d
	}
	return a, f.Err()
}

func known(k string) bool {
	switch k {
	case "as", "in", "target", "message", "values", "modal", "app", "wait":
		return true
	}
	for _, kk := range allKinds() {
		if k == kk {
			return true
		}
	}
	return false
}

// Place is where an action happens.
type Place struct {
	ChannelID, GuildID snowflake.ID
	// Guild is the guild's handle ("" in a DM or group DM, or a channel
	// given by id outside the world's guilds).
	Guild string
}

// PlaceOf finds the channel "in" names in a world.
func PlaceOf(v world.View, in string) (Place, error) {
	bad := apierr.Invalid(CodeUnknownHandle, fmt.Sprintf("No channel, DM or group DM %q in this world.", in), "in")
	guildHandle, channel, qualified := strings.Cut(in, "/")
	if !qualified {
		channel = guildHandle
	}
	var found []Place
	for h, g := range v.Guilds {
		if qualified && h != guildHandle {
			continue
		}
		if id, ok := g.Channels[channel]; ok {
			found = append(found, Place{ChannelID: id, GuildID: g.ID, Guild: h})
		}
	}
	if !qualified {
		if id, ok := v.DMs[in]; ok {
			found = append(found, Place{ChannelID: id})
		}
		if id, ok := v.GroupDMs[in]; ok {
			found = append(found, Place{ChannelID: id})
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		if id, err := snowflake.Parse(in); err == nil && id != 0 {
			for h, g := range v.Guilds {
				for _, c := range g.Channels {
					if c == id {
						return Place{ChannelID: id, GuildID: g.ID, Guild: h}, nil
					}
				}
			}
			return Place{ChannelID: id}, nil
		}
		return Place{}, bad
	default:
		return Place{}, apierr.Invalid(CodeUnknownHandle,
			fmt.Sprintf("Several guilds have a channel %q: name it as GUILD/%s.", in, in), "in")
	}
}

// UserOf is a user handle's id (or an id as it is).
func UserOf(v world.View, handle, field string) (snowflake.ID, error) {
	if u, ok := v.Users[handle]; ok {
		return u.ID, nil
	}
	if a, ok := v.Apps[handle]; ok {
		return a.BotUserID, nil
	}
	if id, err := snowflake.Parse(handle); err == nil && id != 0 {
		return id, nil
	}
	return 0, apierr.Invalid(CodeUnknownHandle, fmt.Sprintf("No user %q in this world.", handle), field)
}

// Substitute rewrites a command line's handles into ids: user:@bob,
// channel:#general, role:@&mods (in the place's guild). A value that
// names no handle is left as typed (an id, a mention, text), for the
// command's option types to judge.
func Substitute(v world.View, p Place, line slashline.Line) slashline.Line {
	out := slashline.Line{Words: line.Words, Args: make([]slashline.Arg, len(line.Args))}
	g := v.Guilds[p.Guild]
	for i, arg := range line.Args {
		val := arg.Value
		switch {
		case strings.HasPrefix(val, "@&"):
			if id, ok := g.Roles[val[2:]]; ok {
				val = id.String()
			}
		case strings.HasPrefix(val, "@"):
			if u, ok := v.Users[val[1:]]; ok {
				val = u.ID.String()
			} else if a, ok := v.Apps[val[1:]]; ok {
				val = a.BotUserID.String()
			}
		case strings.HasPrefix(val, "#"):
			if id, ok := g.Channels[val[1:]]; ok {
				val = id.String()
			}
		}
		out.Args[i] = slashline.Arg{Name: arg.Name, Value: val}
	}
	return out
}
