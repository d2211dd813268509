package wire

import "github.com/slashd/slashd/internal/snowflake"

// DMChannel is the DM channel object (OpenAPI's PrivateChannelResponse):
// a DM as one of its users sees it, recipients being the other user.
// slashd has no pins and no channel flags: last_pin_timestamp is left
// out, as the real service leaves it out of channels never pinned in,
// and flags is 0.
type DMChannel struct {
	ID            snowflake.ID  `json:"id"`
	Type          int           `json:"type"`
	LastMessageID *snowflake.ID `json:"last_message_id"`
	Flags         int           `json:"flags"`
	Recipients    []User        `json:"recipients"`
}

// GroupDMChannel is the group DM channel object (OpenAPI's
// PrivateGroupChannelResponse): a DM's fields plus its name (null
// unnamed), icon (always null: slashd keeps no images) and owner.
type GroupDMChannel struct {
	DMChannel
	Name    *string      `json:"name"`
	Icon    *string      `json:"icon"`
	OwnerID snowflake.ID `json:"owner_id"`
}

// NewDMChannel shapes a DM; recipients are the users other than the one
// who sees it.
func NewDMChannel(id snowflake.ID, typ int, lastMessage *snowflake.ID, recipients []User) DMChannel {
	if recipients == nil {
		recipients = []User{}
	}
	return DMChannel{ID: id, Type: typ, LastMessageID: lastMessage, Recipients: recipients}
}

// NewGroupDMChannel shapes a group DM ("" name: unnamed).
func NewGroupDMChannel(dm DMChannel, name string, owner snowflake.ID) GroupDMChannel {
	return GroupDMChannel{DMChannel: dm, Name: nullable(name), OwnerID: owner}
}
