package interaction

import (
	"strconv"

	"github.com/slashd/slashd/internal/jsonenc"
)

// AppendJSON appends p exactly as jsonenc.Marshal encodes it: by hand
// for what every interaction carries (its member and user, channel,
// guild and a command's data), through jsonenc for the rest (a
// component's or a modal's data, private channels). An interaction is
// encoded on every invocation (FuzzPayloadAppendJSON checks the bytes).
func (p *Payload) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = jsonenc.AppendID(b, uint64(p.ID))
	b = append(b, `,"application_id":`...)
	b = jsonenc.AppendID(b, uint64(p.ApplicationID))
	b = append(b, `,"type":`...)
	b = strconv.AppendInt(b, int64(p.Type), 10)
	if p.Data != nil {
		b = append(b, `,"data":`...)
		if d, ok := p.Data.(*PayloadData); ok && d != nil {
			b, err = d.appendJSON(b)
		} else {
			b, err = jsonenc.AppendValue(b, p.Data)
		}
		if err != nil {
			return b, err
		}
	}
	if g := p.Guild; g != nil {
		b = append(b, `,"guild":{"id":`...)
		b = jsonenc.AppendID(b, uint64(g.ID))
		b = append(b, `,"locale":`...)
		b = jsonenc.AppendString(b, g.Locale)
		b = append(b, `,"features":`...)
		b = jsonenc.AppendStrings(b, g.Features)
		b = append(b, '}')
	}
	if p.GuildID != 0 {
		b = append(b, `,"guild_id":`...)
		b = jsonenc.AppendID(b, uint64(p.GuildID))
	}
	if p.Channel != nil {
		b = append(b, `,"channel":`...)
		if c, ok := p.Channel.(*Channel); ok && c != nil {
			b = c.appendJSON(b)
		} else if b, err = jsonenc.AppendValue(b, p.Channel); err != nil {
			return b, err
		}
	}
	if p.ChannelID != 0 {
		b = append(b, `,"channel_id":`...)
		b = jsonenc.AppendID(b, uint64(p.ChannelID))
	}
	if p.Member != nil {
		b = append(b, `,"member":`...)
		if b, err = p.Member.appendJSON(b); err != nil {
			return b, err
		}
	}
	if p.User != nil {
		b = append(b, `,"user":`...)
		if b, err = p.User.AppendJSON(b); err != nil {
			return b, err
		}
	}
	b = append(b, `,"token":`...)
	b = jsonenc.AppendString(b, p.Token)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, int64(p.Version), 10)
	if len(p.Message) > 0 {
		b = append(b, `,"message":`...)
		if b, err = jsonenc.AppendRaw(b, p.Message); err != nil {
			return b, err
		}
	}
	b = append(b, `,"app_permissions":`...)
	b = jsonenc.AppendID(b, uint64(p.AppPermissions))
	if p.Locale != "" {
		b = append(b, `,"locale":`...)
		b = jsonenc.AppendString(b, p.Locale)
	}
	if p.GuildLocale != "" {
		b = append(b, `,"guild_locale":`...)
		b = jsonenc.AppendString(b, p.GuildLocale)
	}
	b = append(b, `,"entitlements":`...)
	if b, err = jsonenc.AppendRaws(b, p.Entitlements); err != nil {
		return b, err
	}
	b = append(b, `,"authorizing_integration_owners":`...)
	b = jsonenc.AppendIDMap(b, p.AuthorizingIntegrationOwners)
	b = append(b, `,"context":`...)
	b = strconv.AppendInt(b, int64(p.Context), 10)
	b = append(b, `,"attachment_size_limit":`...)
	b = strconv.AppendInt(b, int64(p.AttachmentSizeLimit), 10)
	return append(b, '}'), nil
}

// appendJSON appends c as jsonenc.Marshal encodes it.
func (c *Channel) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = jsonenc.AppendID(b, uint64(c.ID))
	b = append(b, `,"type":`...)
	b = strconv.AppendInt(b, int64(c.Type), 10)
	b = append(b, `,"guild_id":`...)
	b = jsonenc.AppendID(b, uint64(c.GuildID))
	b = append(b, `,"name":`...)
	b = jsonenc.AppendString(b, c.Name)
	b = append(b, `,"parent_id":`...)
	b = appendNullID(b, c.ParentID)
	b = append(b, `,"nsfw":`...)
	b = strconv.AppendBool(b, c.NSFW)
	b = append(b, `,"position":`...)
	b = strconv.AppendInt(b, int64(c.Position), 10)
	b = append(b, `,"permissions":`...)
	b = jsonenc.AppendID(b, uint64(c.Permissions))
	b = append(b, `,"flags":`...)
	b = strconv.AppendInt(b, int64(c.Flags), 10)
	b = append(b, `,"last_message_id":`...)
	b = appendNullID(b, c.LastMessageID)
	b = append(b, `,"rate_limit_per_user":`...)
	b = strconv.AppendInt(b, int64(c.RateLimitPerUser), 10)
	b = append(b, `,"topic":`...)
	b = jsonenc.AppendNullString(b, c.Topic)
	return append(b, '}')
}

// appendJSON appends m as jsonenc.Marshal encodes it: the gateway's
// member object's fields, then the interaction's two.
func (m *Member) appendJSON(b []byte) ([]byte, error) {
	var err error
	gm := &m.GuildMember
	b = append(b, '{')
	if gm.User != nil {
		b = append(b, `"user":`...)
		if b, err = gm.User.AppendJSON(b); err != nil {
			return b, err
		}
		b = append(b, ',')
	}
	b = append(b, `"nick":`...)
	b = jsonenc.AppendNullString(b, gm.Nick)
	b = append(b, `,"avatar":`...)
	b = jsonenc.AppendNullString(b, gm.Avatar)
	b = append(b, `,"banner":`...)
	b = jsonenc.AppendNullString(b, gm.Banner)
	b = append(b, `,"roles":`...)
	b = jsonenc.AppendIDs(b, gm.Roles)
	b = append(b, `,"joined_at":`...)
	b = jsonenc.AppendString(b, gm.JoinedAt)
	b = append(b, `,"premium_since":`...)
	b = jsonenc.AppendNullString(b, gm.PremiumSince)
	if gm.Deaf != nil {
		b = append(b, `,"deaf":`...)
		b = strconv.AppendBool(b, *gm.Deaf)
	}
	if gm.Mute != nil {
		b = append(b, `,"mute":`...)
		b = strconv.AppendBool(b, *gm.Mute)
	}
	b = append(b, `,"pending":`...)
	b = strconv.AppendBool(b, gm.Pending)
	b = append(b, `,"flags":`...)
	b = strconv.AppendInt(b, int64(gm.Flags), 10)
	b = append(b, `,"communication_disabled_until":`...)
	b = jsonenc.AppendNullString(b, gm.CommunicationDisabledUntil)
	b = append(b, `,"is_pending":`...)
	b = strconv.AppendBool(b, m.IsPending)
	b = append(b, `,"permissions":`...)
	b = jsonenc.AppendID(b, uint64(m.Permissions))
	return append(b, '}'), nil
}

func appendNullID[T ~uint64](b []byte, id *T) []byte {
	if id == nil {
		return append(b, "null"...)
	}
	return jsonenc.AppendID(b, uint64(*id))
}
