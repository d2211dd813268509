package interaction

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/jsonenc/jsonenctest"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/wire"
)

// fuzzPayload builds an interaction from fuzz input, every optional
// part present or not by a bit of opts.
func fuzzPayload(id uint64, text, key string, opts uint16, n int, raw []byte) Payload {
	user := wire.NewUser(snowflake.ID(id>>1), text, key, opts&1 != 0)
	p := Payload{ID: snowflake.ID(id), ApplicationID: snowflake.ID(id >> 2), Type: Type(n & 7), Token: text,
		Version: 1, AppPermissions: guild.Permissions(id >> 4), Locale: key, Context: n & 3, AttachmentSizeLimit: n}
	if opts&2 != 0 {
		p.Data = &PayloadData{Data: Data{ID: snowflake.ID(id), Name: key, Type: command.Type(n & 3)}}
	}
	if opts&4 != 0 {
		p.Guild = &PartialGuild{ID: snowflake.ID(id >> 3), Locale: key}
		if opts&8 != 0 {
			p.Guild.Features = []string{text, key}
		}
		p.GuildID, p.GuildLocale = snowflake.ID(n), text
	}
	switch opts >> 4 & 3 {
	case 1:
		c := NewChannel(guild.Channel{ID: snowflake.ID(id >> 5), Type: n & 15, GuildID: snowflake.ID(n), Name: text,
			ParentID: snowflake.ID(n >> 2), NSFW: opts&64 != 0, Position: n}, guild.Permissions(id))
		if opts&128 != 0 {
			last := snowflake.ID(id)
			c.LastMessageID, c.Topic, c.Flags, c.RateLimitPerUser = &last, &key, n, n>>1
		}
		p.Channel = &c
	case 2:
		p.Channel = &PrivateChannel{DMChannel: wire.NewDMChannel(snowflake.ID(id), 1, nil, []wire.User{user}), Permissions: 8}
	case 3:
		p.Channel = (*Channel)(nil)
	}
	p.ChannelID = snowflake.ID(n >> 1)
	if opts&256 != 0 {
		var roles []snowflake.ID
		if opts&512 != 0 {
			roles = []snowflake.ID{snowflake.ID(id), 7}
		}
		var u *wire.User
		if opts&1024 != 0 {
			u = &user
		}
		m := NewMember(guild.Member{Nick: key, Roles: roles}, u, guild.Permissions(n))
		m.IsPending, m.Pending = opts&2048 != 0, opts&4096 != 0
		p.Member = &m
	} else {
		p.User = &user
	}
	if opts&8192 != 0 {
		p.Message = raw
	}
	if opts&16384 != 0 {
		p.Entitlements = []json.RawMessage{raw}
	} else if opts&32768 == 0 {
		p.Entitlements = []json.RawMessage{}
	}
	if opts&32768 != 0 {
		p.AuthorizingIntegrationOwners = map[string]snowflake.ID{"0": snowflake.ID(id), key: snowflake.ID(n)}
	}
	return p
}

// FuzzPayloadAppendJSON: Payload.AppendJSON writes exactly
// jsonenc.Marshal's bytes, and fails where it fails.
func FuzzPayloadAppendJSON(f *testing.F) {
	for i, s := range []struct{ text, key, raw string }{
		{"aW50ZXJhY3Rpb246MTIz", "en-US", `{"id":"1","content":"x"}`},
		{"<b>&\"\\\u2028\x01\b", "\xff", " { \"a\" : [ 1 , \"\u2029>\" ] } "},
		{"", "", ``},
		{"x", "y", `nul`},
	} {
		for _, opts := range []uint16{0, 0xffff, 0xaaaa, 0x5555, 4 | 16 | 256 | 1024, 32 | 128, 48} {
			f.Add(uint64(1576472368556015616+i), s.text, s.key, opts, i*977-3, []byte(s.raw))
		}
	}
	f.Fuzz(func(t *testing.T, id uint64, text, key string, opts uint16, n int, raw []byte) {
		p := fuzzPayload(id, text, key, opts, n, raw)
		jsonenctest.SameAsMarshal(t, p, p.AppendJSON)
	})
}

// BenchmarkPayloadJSON: an interaction of a guild member, by AppendJSON
// and by jsonenc.Marshal.
func BenchmarkPayloadJSON(b *testing.B) {
	p := fuzzPayload(1576472368556015616, "aW50ZXJhY3Rpb246MTU3NjQ3MjM2ODU1NjAxNTYxNjpzZWNyZXQ", "en-US",
		2|4|16|128|256|512|1024|32768, 20, nil)
	b.Run("AppendJSON", func(b *testing.B) {
		for b.Loop() {
			if _, err := p.AppendJSON(make([]byte, 0, 2048)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonenc.Marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := jsonenc.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// fuzzData builds a command's data from fuzz input: options of every
// type the validator makes (and one it does not), nested or not, and
// the optional fields by bits of opts.
func fuzzData(id uint64, text string, opts uint16, n int, f float64) *PayloadData {
	d := &PayloadData{Data: Data{ID: snowflake.ID(id), Name: text, Type: command.Type(n & 3)}}
	if opts&1 != 0 {
		d.GuildID = snowflake.ID(id >> 1)
	}
	if opts&2 != 0 {
		d.TargetID = snowflake.ID(id >> 2)
	}
	values := []any{text, opts&4 != 0, int64(n), snowflake.ID(id >> 3), f, json.Number(strconv.Itoa(n)), nil, ""}
	leaf := func(i int) Value {
		return Value{Name: text, Type: command.OptionType(n + i), Value: values[i%len(values)], Focused: opts>>uint(i)&8 != 0}
	}
	switch opts >> 4 & 3 {
	case 1:
		d.Options = []Value{leaf(0), leaf(1), leaf(2), leaf(3)}
	case 2:
		d.Options = []Value{{Name: text, Type: command.SubCommand, Options: []Value{leaf(4), leaf(5), leaf(6), leaf(7)}}}
	case 3:
		d.Options = []Value{{Name: text, Type: command.SubCommandGroup,
			Options: []Value{{Name: "sub", Type: command.SubCommand, Options: []Value{}}}}}
	}
	if opts&64 != 0 {
		d.Options = []Value{}
	}
	if opts&128 != 0 {
		d.Resolved = &ResolvedData{Roles: map[snowflake.ID]Role{snowflake.ID(id): {ID: snowflake.ID(id), Name: text}}}
	}
	return d
}

// FuzzPayloadDataAppendJSON: a command's data, by Payload.AppendJSON,
// is exactly jsonenc.Marshal's bytes.
func FuzzPayloadDataAppendJSON(f *testing.F) {
	for i, text := range []string{"echo", "<b>&\"\\\u2028\x01\b", "", "\xff"} {
		for _, opts := range []uint16{0, 0xffff, 0xaaaa, 0x5555, 16, 32, 48, 16 | 8 | 4, 32 | 128} {
			f.Add(uint64(1576472368556015616+i), text, opts, i*977-3, 0.1*float64(i)+1e21*float64(i&1))
		}
	}
	f.Fuzz(func(t *testing.T, id uint64, text string, opts uint16, n int, x float64) {
		p := Payload{ID: snowflake.ID(id), Type: ApplicationCommand, Token: text, Data: fuzzData(id, text, opts, n, x)}
		jsonenctest.SameAsMarshal(t, p, p.AppendJSON)
		p.Data = (*PayloadData)(nil)
		jsonenctest.SameAsMarshal(t, p, p.AppendJSON)
	})
}
