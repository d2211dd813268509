package command

import (
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

// PermissionType says what a permission overwrite targets (spec §2.7).
type PermissionType int

// Permission overwrite targets.
const (
	PermissionRole    PermissionType = 1
	PermissionUser    PermissionType = 2
	PermissionChannel PermissionType = 3
)

var permissionTypes = []int{1, 2, 3}

// Permission is one overwrite: allow or deny a role, user or channel.
type Permission struct {
	ID         snowflake.ID   `json:"id"`
	Type       PermissionType `json:"type"`
	Permission bool           `json:"permission"`
}

// GuildPermissions is the overwrite list of one command (or, when ID is the
// application id, of the whole app) in one guild.
type GuildPermissions struct {
	ID            snowflake.ID `json:"id"`
	ApplicationID snowflake.ID `json:"application_id"`
	GuildID       snowflake.ID `json:"guild_id"`
	Permissions   []Permission `json:"permissions"`
}

// AllChannelsID is the constant id of "all channels": the guild's id − 1.
func AllChannelsID(guild snowflake.ID) snowflake.ID { return guild - 1 }

// ParsePermissions reads the body of the edit-permissions endpoint,
// {"permissions": [...]}, with at most 100 entries. A later entry for the
// same target replaces an earlier one.
func ParsePermissions(v any) ([]Permission, *apierr.Fields) {
	errs := &apierr.Fields{}
	o, ok := form.AsObject(v, errs)
	if !ok {
		return nil, errs
	}
	if !o.Require("permissions") {
		return nil, errs
	}
	l, ok := o.List("permissions")
	if !ok {
		return nil, errs
	}
	if len(l) > MaxPermissions {
		errs.At("permissions").Add(form.CodeMaxLength, form.MsgMaxLength(MaxPermissions))
		return nil, errs
	}
	type key struct {
		id snowflake.ID
		t  PermissionType
	}
	index := make(map[key]int, len(l))
	out := make([]Permission, 0, len(l))
	for i, item := range l {
		at := errs.At("permissions", i)
		po, ok := form.AsObject(item, at)
		if !ok {
			continue
		}
		var p Permission
		id, idOK := po.Snowflake("id")
		if !idOK && !po.Present("id") {
			at.At("id").Add(form.CodeRequired, form.MsgRequired)
		}
		p.ID = id
		t, tOK := po.Choice("type", permissionTypes)
		if !tOK && !po.Present("type") {
			at.At("type").Add(form.CodeRequired, form.MsgRequired)
		}
		p.Type = PermissionType(t)
		b, bOK := po.Bool("permission")
		if !bOK && !po.Present("permission") {
			at.At("permission").Add(form.CodeRequired, form.MsgRequired)
		}
		p.Permission = b
		if !idOK || !tOK || !bOK {
			continue
		}
		k := key{p.ID, p.Type}
		if j, dup := index[k]; dup {
			out[j] = p
			continue
		}
		index[k] = len(out)
		out = append(out, p)
	}
	return out, errs
}
