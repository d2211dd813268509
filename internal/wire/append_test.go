package wire

import (
	"github.com/slashd/slashd/internal/jsonenc/jsonenctest"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
)

// fuzzUser builds a user from fuzz input: present or null optional
// fields, and raw JSON (valid or not) in those that carry it.
func fuzzUser(id uint64, name, other string, opts uint8, n int, raw []byte) User {
	u := User{ID: snowflake.ID(id), Username: name, Discriminator: other, PublicFlags: n, Flags: n >> 3, Bot: opts&1 != 0}
	if opts&2 != 0 {
		u.Avatar = &other
	}
	if opts&4 != 0 {
		u.Banner = &name
	}
	if opts&8 != 0 {
		u.AccentColor = &n
	}
	if opts&16 != 0 {
		u.GlobalName = &other
	}
	if opts&32 != 0 {
		u.AvatarDecorationData = raw
	}
	if opts&64 != 0 {
		u.Clan, u.PrimaryGuild = raw, raw
	}
	return u
}

var userSeeds = []struct {
	name, other string
	raw         string
}{
	{"alice", "0", `{"asset":"a"}`},
	{"<b>&\"q\"\\", "\u2028\u2029\x00\x1f\b\f\n\r\t", " [ 1 , \"\u2028<\" ] "},
	{"\xff\xfe caf\xc3\xa9", "\ud7ff", ``},
	{"", "", `{`},
}

// FuzzUserAppendJSON: User.AppendJSON writes exactly jsonenc.Marshal's
// bytes, and fails where it fails.
func FuzzUserAppendJSON(f *testing.F) {
	for i, s := range userSeeds {
		f.Add(uint64(i)<<40+7, s.name, s.other, uint8(i*37), i*1000-5, []byte(s.raw))
		f.Add(uint64(1)<<63, s.name, s.other, uint8(255), -1, []byte(s.raw))
	}
	f.Fuzz(func(t *testing.T, id uint64, name, other string, opts uint8, n int, raw []byte) {
		u := fuzzUser(id, name, other, opts, n, raw)
		jsonenctest.SameAsMarshal(t, u, u.AppendJSON)
	})
}
