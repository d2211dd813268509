package access

// Tests of guild.BasePermissions and guild.ChannelPermissions, which step 7
// relies on. They live here because this task may only add files to
// internal/access.

import (
	"testing"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

func TestGuildPermissions(t *testing.T) {
	const (
		g       snowflake.ID = 1000
		owner   snowflake.ID = 1
		u       snowflake.ID = 10
		other   snowflake.ID = 11
		rA      snowflake.ID = 2001
		rB      snowflake.ID = 2002
		rAdmin  snowflake.ID = 2003
		rAbsent snowflake.ID = 2009 // not in the guild's roles
	)
	view, send, kick, mg := guild.ViewChannel, guild.SendMessages, guild.KickMembers, guild.ManageGuild
	roles := guild.Roles{
		g:      {ID: g, Permissions: view | send},
		rA:     {ID: rA, Permissions: kick},
		rB:     {ID: rB, Permissions: mg},
		rAdmin: {ID: rAdmin, Permissions: guild.Administrator},
	}
	ev := func(allow, deny guild.Permissions) guild.Overwrite {
		return guild.Overwrite{ID: g, Type: guild.OverwriteRole, Allow: allow, Deny: deny}
	}
	role := func(id snowflake.ID, allow, deny guild.Permissions) guild.Overwrite {
		return guild.Overwrite{ID: id, Type: guild.OverwriteRole, Allow: allow, Deny: deny}
	}
	mem := func(id snowflake.ID, allow, deny guild.Permissions) guild.Overwrite {
		return guild.Overwrite{ID: id, Type: guild.OverwriteMember, Allow: allow, Deny: deny}
	}
	cases := []struct {
		name      string
		user      snowflake.ID
		roles     []snowflake.ID
		ows       []guild.Overwrite // nil: check BasePermissions only
		base, got guild.Permissions
	}{
		{name: "base: @everyone only", user: u, base: view | send},
		{name: "base: roles OR-ed with @everyone", user: u, roles: []snowflake.ID{rA, rB}, base: view | send | kick | mg},
		{name: "base: unknown role adds nothing", user: u, roles: []snowflake.ID{rAbsent}, base: view | send},
		{name: "base: owner has everything", user: owner, base: guild.All},
		{name: "base: administrator has everything", user: u, roles: []snowflake.ID{rAdmin}, base: guild.All},

		{name: "channel: no overwrites", user: u, roles: []snowflake.ID{rA}, ows: []guild.Overwrite{},
			base: view | send | kick, got: view | send | kick},
		{name: "channel: @everyone deny", user: u, ows: []guild.Overwrite{ev(0, view)},
			base: view | send, got: send},
		{name: "channel: @everyone allow grants a bit", user: u, ows: []guild.Overwrite{ev(mg, 0)},
			base: view | send, got: view | send | mg},
		{name: "channel: @everyone deny then role allow", user: u, roles: []snowflake.ID{rA}, ows: []guild.Overwrite{role(rA, view, 0), ev(0, view)},
			base: view | send | kick, got: view | send | kick},
		{name: "channel: role deny and role allow OR-ed, allow wins", user: u, roles: []snowflake.ID{rA, rB}, ows: []guild.Overwrite{role(rA, 0, send), role(rB, send, 0)},
			base: view | send | kick | mg, got: view | send | kick | mg},
		{name: "channel: role denies OR-ed", user: u, roles: []snowflake.ID{rA, rB}, ows: []guild.Overwrite{role(rA, 0, kick), role(rB, 0, mg)},
			base: view | send | kick | mg, got: view | send},
		{name: "channel: role overwrite for a role the member lacks", user: u, roles: []snowflake.ID{rA}, ows: []guild.Overwrite{role(rB, 0, view|send)},
			base: view | send | kick, got: view | send | kick},
		{name: "channel: member deny last, beats role allow", user: u, roles: []snowflake.ID{rA}, ows: []guild.Overwrite{mem(u, 0, view), role(rA, view, 0)},
			base: view | send | kick, got: send | kick},
		{name: "channel: member allow beats role deny", user: u, roles: []snowflake.ID{rA}, ows: []guild.Overwrite{role(rA, 0, kick), mem(u, kick, 0)},
			base: view | send | kick, got: view | send | kick},
		{name: "channel: another member's overwrite", user: u, ows: []guild.Overwrite{mem(other, 0, view)},
			base: view | send, got: view | send},
		{name: "channel: member overwrite typed as role does not match the user", user: u, ows: []guild.Overwrite{role(u, 0, view)},
			base: view | send, got: view | send},
		{name: "channel: owner ignores overwrites", user: owner, ows: []guild.Overwrite{ev(0, guild.All), mem(owner, 0, guild.All)},
			base: guild.All, got: guild.All},
		{name: "channel: administrator ignores overwrites", user: u, roles: []snowflake.ID{rAdmin}, ows: []guild.Overwrite{ev(0, guild.All), role(rAdmin, 0, guild.All), mem(u, 0, guild.All)},
			base: guild.All, got: guild.All},
		{name: "channel: administrator granted by an overwrite does not count", user: u, ows: []guild.Overwrite{ev(guild.Administrator, 0)},
			base: view | send, got: view | send | guild.Administrator},
	}
	if len(cases) < 10 {
		t.Fatalf("%d cases", len(cases))
	}
	gd := guild.Guild{ID: g, OwnerID: owner}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := guild.Member{GuildID: g, UserID: tc.user, Roles: tc.roles}
			if got := guild.BasePermissions(gd, roles, m); got != tc.base {
				t.Errorf("BasePermissions = %d, want %d", got, tc.base)
			}
			if tc.ows == nil {
				return
			}
			ch := guild.Channel{ID: 3000, GuildID: g, Overwrites: tc.ows}
			if got := guild.ChannelPermissions(gd, roles, m, ch); got != tc.got {
				t.Errorf("ChannelPermissions = %d, want %d", got, tc.got)
			}
		})
	}
}
