package world

import (
	"slices"
	"strings"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/interaction"
)

// The parts of a spec an export needs beyond what a hand-written spec
// usually says: command permission overwrites and messages.

// Field error codes of command permissions and messages.
const (
	// CodeUnknownCommand: a command_permissions key that names no
	// command of the app (in the guild or global).
	CodeUnknownCommand = "UNKNOWN_COMMAND"
	// CodePermissionTarget: an overwrite that names no target, or
	// several.
	CodePermissionTarget = "COMMAND_PERMISSION_INVALID"
)

// permissionKinds are an overwrite's target fields, by type.
var permissionKinds = []struct {
	key string
	typ command.PermissionType
}{{"role", command.PermissionRole}, {"user", command.PermissionUser}, {"channel", command.PermissionChannel}}

// PermissionKey is the spec's field of an overwrite's type ("role",
// "user", "channel").
func PermissionKey(t command.PermissionType) string {
	for _, k := range permissionKinds {
		if k.typ == t {
			return k.key
		}
	}
	return ""
}

// commandPermissions reads a guild's command_permissions: {app handle:
// {command key: [overwrite…]}}.
func (d *decoder) commandPermissions(f admin.Form, g *Guild, roles map[string]bool) []CommandPermissions {
	apps, ok := f.Dict("command_permissions")
	if !ok {
		return nil
	}
	chans := map[string]bool{}
	for _, c := range g.Channels {
		chans[c.Handle] = true
	}
	var out []CommandPermissions
	for _, appHandle := range sortedKeys(apps) {
		at := f.At("command_permissions", appHandle)
		if !d.apps[appHandle] {
			at.Add(admin.CodeUnknownApp, msgUnknownApp)
			continue
		}
		sub, ok := admin.SubForm(apps[appHandle], at)
		if !ok {
			continue
		}
		lists, _ := apps[appHandle].(map[string]any)
		for _, key := range sortedKeys(lists) {
			if !d.hasCommand(appHandle, g.Handle, key) {
				sub.At(key).Add(CodeUnknownCommand, "Names no command of the application here: a command's name ("+
					"name#2 for a user command, name#3 for a message command), global:name, or * for the application")
				continue
			}
			cp := CommandPermissions{App: appHandle, Command: key}
			l, ok := sub.List(key)
			if !ok {
				continue
			}
			if len(l) > command.MaxPermissions {
				sub.At(key).Add(form.CodeMaxLength, form.MsgMaxLength(command.MaxPermissions))
				continue
			}
			for i, v := range l {
				if p, ok := d.commandPermission(sub, key, i, v, roles, chans); ok {
					cp.Permissions = append(cp.Permissions, p)
				}
			}
			out = append(out, cp)
		}
	}
	return out
}

// commandPermission reads one overwrite: exactly one of role, user or
// channel, and permission.
func (d *decoder) commandPermission(f admin.Form, key string, i int, v any, roles, chans map[string]bool) (CommandPermission, bool) {
	at := f.At(key, i)
	o, ok := admin.SubForm(v, at)
	if !ok {
		return CommandPermission{}, false
	}
	m, _ := v.(map[string]any)
	known(o, m, fieldsOf["command_permission"]...)
	var p CommandPermission
	n := 0
	for _, k := range permissionKinds {
		h, ok := o.Str(k.key)
		if !ok {
			continue
		}
		n++
		p.Type, p.Target = k.typ, h
		var found bool
		switch k.typ {
		case command.PermissionRole:
			found = h == Everyone || roles[h]
		case command.PermissionUser:
			found = d.users[h] || d.apps[h]
		case command.PermissionChannel:
			found = h == AllChannels || chans[h]
		}
		if !found {
			o.At(k.key).Add(CodeUnknownHandle, "Names no "+k.key+" of the world here")
		}
	}
	if n != 1 {
		at.Add(CodePermissionTarget, "An overwrite names exactly one of role, user or channel")
	}
	if o.Require("permission") {
		p.Allow, _ = o.Bool("permission")
	}
	return p, at.Empty()
}

// hasCommand reports whether key names a command of app in guild g (see
// CommandPermissions.Command).
func (d *decoder) hasCommand(app, g, key string) bool {
	if key == AllCommands {
		return true
	}
	i := slices.IndexFunc(d.s.Apps, func(a App) bool { return a.Handle == app })
	if i < 0 {
		return false
	}
	a := d.s.Apps[i]
	named := func(l []command.Parsed, name string) bool {
		return slices.ContainsFunc(l, func(c command.Parsed) bool { return commandName(c.Command) == name })
	}
	if name, ok := strings.CutPrefix(key, GlobalPrefix); ok {
		return named(a.Commands, name)
	}
	for _, gc := range a.GuildCommands {
		if gc.Guild == g && named(gc.Commands, key) {
			return true
		}
	}
	return named(a.Commands, key)
}

// messages reads a channel's (DM's, group DM's) messages, oldest first:
// each an author and what POST /channels/{id}/messages takes, checked by
// the same parser. parties, when not nil, are who may write (a DM's or
// group DM's).
func (d *decoder) messages(f admin.Form, parties []string) []Message {
	l, ok := f.List("messages")
	if !ok {
		return nil
	}
	if len(l) > MaxMessages {
		f.At("messages").Add(form.CodeMaxLength, form.MsgMaxLength(MaxMessages))
		return nil
	}
	var out []Message
	for i, v := range l {
		at := f.At("messages", i)
		o, ok := admin.SubForm(v, at)
		if !ok {
			continue
		}
		m, _ := v.(map[string]any)
		known(o, m, fieldsOf["message"]...)
		msg := Message{}
		if o.Require("author") {
			if h, ok := o.Str("author"); ok {
				switch {
				case !d.users[h] && !d.apps[h]:
					o.At("author").Add(CodeUnknownHandle, msgUnknownParty)
				case parties != nil && !slices.Contains(parties, h):
					o.At("author").Add(CodeUnknownHandle, "The author must take part in the conversation")
				}
				msg.Author = h
			}
		}
		body := make(map[string]any, len(m))
		for k, v := range m {
			if k != "author" && slices.Contains(fieldsOf["message"], k) {
				body[k] = v
			}
		}
		data, err := interaction.ParseMessage(body, false)
		if e, ok := apierr.As(err); ok && e.Fields != nil {
			at.Merge(e.Fields)
		} else if err != nil {
			at.Add(form.CodeModelConvert, err.Error())
		} else if data.Empty() {
			at.Add(form.CodeBadLength, interaction.ErrEmptyMessage.Error())
		}
		msg.Data = data
		if at.Empty() {
			out = append(out, msg)
		}
	}
	return out
}
