package command

import (
	"github.com/slashd/slashd/internal/apierr"
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

// EveryoneID is the constant id of @everyone in a guild: the guild's id.
func EveryoneID(guild snowflake.ID) snowflake.ID { return guild }

// AllChannelsID is the constant id of "all channels": the guild's id − 1.
func AllChannelsID(guild snowflake.ID) snowflake.ID { return guild - 1 }

// ParsePermissions reads the body of the edit-permissions endpoint,
// {"permissions": [...]}, with at most 100 entries. A later entry for the
// same target replaces an earlier one.
func ParsePermissions(v any) ([]Permission, *apierr.Fields) {
	errs := &apierr.Fields{}
	o, ok := asObject(v, errs)
	if !ok {
		return nil, errs
	}
	if !o.present("permissions") {
		errs.At("permissions").Add(codeRequired, msgRequired)
		return nil, errs
	}
	l, ok := o.list("permissions")
	if !ok {
		return nil, errs
	}
	if len(l) > MaxPermissions {
		errs.At("permissions").Add(codeMaxLength, msgMaxLength(MaxPermissions))
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
		po, ok := asObject(item, at)
		if !ok {
			continue
		}
		var p Permission
		id, idOK := po.snowflake("id")
		if !idOK && !po.present("id") {
			at.At("id").Add(codeRequired, msgRequired)
		}
		p.ID = id
		t, tOK := po.integer("type")
		switch {
		case !tOK && !po.present("type"):
			at.At("type").Add(codeRequired, msgRequired)
		case tOK && !containsInt(permissionTypes, int(t)):
			at.At("type").Add(codeChoices, msgChoicesOf(permissionTypes))
			tOK = false
		}
		p.Type = PermissionType(t)
		b, bOK := po.boolean("permission")
		if !bOK && !po.present("permission") {
			at.At("permission").Add(codeRequired, msgRequired)
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
