package wire

import (
	"strconv"

	"github.com/slashd/slashd/internal/jsonenc"
)

// AppendJSON appends u exactly as jsonenc.Marshal encodes it, without
// reflection (FuzzUserAppendJSON checks the bytes): a user is in every
// message and interaction, several times over.
func (u *User) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = jsonenc.AppendID(b, uint64(u.ID))
	b = append(b, `,"username":`...)
	b = jsonenc.AppendString(b, u.Username)
	b = append(b, `,"avatar":`...)
	b = jsonenc.AppendNullString(b, u.Avatar)
	b = append(b, `,"discriminator":`...)
	b = jsonenc.AppendString(b, u.Discriminator)
	b = append(b, `,"public_flags":`...)
	b = strconv.AppendInt(b, int64(u.PublicFlags), 10)
	b = append(b, `,"flags":`...)
	b = strconv.AppendInt(b, int64(u.Flags), 10)
	if u.Bot {
		b = append(b, `,"bot":true`...)
	}
	b = append(b, `,"banner":`...)
	b = jsonenc.AppendNullString(b, u.Banner)
	b = append(b, `,"accent_color":`...)
	if u.AccentColor == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*u.AccentColor), 10)
	}
	b = append(b, `,"global_name":`...)
	b = jsonenc.AppendNullString(b, u.GlobalName)
	for _, f := range [...]struct {
		key string
		raw []byte
	}{
		{`,"avatar_decoration_data":`, u.AvatarDecorationData},
		{`,"collectibles":`, u.Collectibles},
		{`,"display_name_styles":`, u.DisplayNameStyles},
		{`,"clan":`, u.Clan},
		{`,"primary_guild":`, u.PrimaryGuild},
	} {
		b = append(b, f.key...)
		var err error
		if b, err = jsonenc.AppendRaw(b, f.raw); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}
