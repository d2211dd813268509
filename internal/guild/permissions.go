package guild

import "github.com/slashd/slashd/internal/snowflake"

// Roles indexes a guild's roles by id.
type Roles map[snowflake.ID]Role

// BasePermissions is a member's guild-wide permissions: everything for the
// owner; otherwise @everyone's bits OR the member's roles' bits, and
// everything when that includes ADMINISTRATOR.
func BasePermissions(g Guild, roles Roles, m Member) Permissions {
	if m.UserID == g.OwnerID {
		return All
	}
	p := roles[EveryoneRoleID(g.ID)].Permissions
	for _, id := range m.Roles {
		p |= roles[id].Permissions
	}
	if p.Has(Administrator) {
		return All
	}
	return p
}

// ChannelPermissions is a member's permissions in a channel, as the real
// service computes them: the base permissions, then the channel's
// overwrites in order: @everyone's deny and allow, the member's roles'
// denies and allows (OR-ed together), then the member's own deny and
// allow. Owners and administrators are not affected by overwrites. A
// thread takes its parent channel's overwrites; pass that parent as ch.
func ChannelPermissions(g Guild, roles Roles, m Member, ch Channel) Permissions {
	base := BasePermissions(g, roles, m)
	if base.Has(Administrator) {
		return All
	}
	p := base
	var roleAllow, roleDeny Permissions
	var memberOW *Overwrite
	hasRole := make(map[snowflake.ID]bool, len(m.Roles))
	for _, id := range m.Roles {
		hasRole[id] = true
	}
	for i := range ch.Overwrites {
		ow := &ch.Overwrites[i]
		switch {
		case ow.Type == OverwriteRole && ow.ID == EveryoneRoleID(g.ID):
			p = (p &^ ow.Deny) | ow.Allow
		case ow.Type == OverwriteRole && hasRole[ow.ID]:
			roleAllow |= ow.Allow
			roleDeny |= ow.Deny
		case ow.Type == OverwriteMember && ow.ID == m.UserID:
			memberOW = ow
		}
	}
	p = (p &^ roleDeny) | roleAllow
	if memberOW != nil {
		p = (p &^ memberOW.Deny) | memberOW.Allow
	}
	return p
}

// HighestRolePosition is the position of the member's highest role
// (@everyone is 0).
func HighestRolePosition(roles Roles, m Member) int {
	top := 0
	for _, id := range m.Roles {
		if r, ok := roles[id]; ok && r.Position > top {
			top = r.Position
		}
	}
	return top
}
