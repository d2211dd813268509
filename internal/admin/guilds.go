package admin

import (
	"context"
	"math"
	"time"

	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Name lengths (the real service's) and the largest position.
const (
	MinGuildName = 2
	MaxGuildName = 100
	MaxRoleName  = 100
	MaxNick      = 32
	MaxPosition  = math.MaxInt32
)

// GuildName reads a guild's name; creating says whether it is required.
func GuildName(f Form, creating bool) (string, bool) {
	if creating {
		f.Require("name")
	}
	return f.StrLen("name", MinGuildName, MaxGuildName)
}

// RoleFields reads a role's writable fields into role; creating says
// whether absent required fields are errors.
func RoleFields(f Form, role *guild.Role, creating bool) {
	everyone := !creating && role.ID == guild.EveryoneRoleID(role.GuildID)
	if creating {
		f.Require("name")
	}
	for _, k := range []string{"name", "permissions", "position"} {
		if !creating && f.Null(k) {
			f.At(k).Add(form.CodeRequired, form.MsgRequired)
		}
	}
	if name, ok := f.StrLen("name", 1, MaxRoleName); ok {
		if everyone && name != role.Name {
			f.At("name").Add(CodeEveryone, "The @everyone role cannot be renamed")
		}
		role.Name = name
	}
	if p, ok := f.Perms("permissions"); ok {
		role.Permissions = p
	}
	if everyone {
		if pos, ok := f.Integer("position", 0, MaxPosition); ok && pos != 0 {
			f.At("position").Add(CodeEveryone, "The @everyone role is always at position 0")
		}
	} else if pos, ok := f.Integer("position", 1, MaxPosition); ok {
		role.Position = int(pos)
	}
}

// Member is a membership on the wire.
type Member struct {
	GuildID  snowflake.ID   `json:"guild_id"`
	UserID   snowflake.ID   `json:"user_id"`
	Nick     *string        `json:"nick"`
	Roles    []snowflake.ID `json:"roles"`
	JoinedAt time.Time      `json:"joined_at"`
}

// MemberOf is m on the wire.
func MemberOf(m guild.Member) Member {
	roles := m.Roles
	if roles == nil {
		roles = []snowflake.ID{}
	}
	return Member{GuildID: m.GuildID, UserID: m.UserID, Nick: nullable(m.Nick), Roles: roles,
		JoinedAt: m.JoinedAt.UTC()}
}

// MemberFields reads a membership {roles?, nick?} into m and checks that
// each role is one of the guild's.
func MemberFields(ctx context.Context, st store.Store, f Form, m *guild.Member) error {
	roles, rolesOK := f.IDs("roles")
	if nick, ok := f.StrLen("nick", 0, MaxNick); ok {
		m.Nick = nick
	}
	if err := f.Err(); err != nil || !rolesOK || len(roles) == 0 {
		return err
	}
	have, err := st.Roles(ctx, m.GuildID)
	if err != nil {
		return err
	}
	known := make(map[snowflake.ID]bool, len(have))
	for _, role := range have {
		known[role.ID] = true
	}
	for i, id := range roles {
		if !known[id] {
			f.At("roles", i).Add(CodeUnknownRole, "Unknown Role")
		}
	}
	if err := f.Err(); err != nil {
		return err
	}
	m.Roles = roles
	return nil
}
