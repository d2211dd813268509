package interaction

import (
	"encoding/json"
	"github.com/slashd/slashd/internal/jsonenc/jsonenctest"
	"testing"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/wire"
)

// fuzzMessage builds a message from fuzz input, every optional part
// present or not by a bit of opts, raw JSON (valid or not) where the
// message carries some.
func fuzzMessage(id uint64, text, key string, opts uint16, n int, raw []byte) Message {
	user := wire.NewUser(snowflake.ID(id>>1), text, key, opts&1 != 0)
	m := NewMessage(snowflake.ID(id), snowflake.ID(id>>3), user, key)
	m.Type, m.Content, m.Flags = n&31, text, uint64(n)
	m.Pinned, m.MentionEveryone, m.TTS = opts&2 != 0, opts&4 != 0, opts&8 != 0
	if opts&16 != 0 {
		m.EditedTimestamp = &text
	}
	switch opts >> 5 & 3 { // the lists: as NewMessage makes them, nil, or with one element
	case 1:
		m.Attachments, m.Embeds, m.Mentions, m.MentionRoles, m.Components = nil, nil, nil, nil, nil
	case 2:
		m.Attachments, m.Embeds, m.Components = []json.RawMessage{raw}, []json.RawMessage{raw, raw}, []json.RawMessage{raw}
		m.Mentions, m.MentionRoles = []wire.User{user, {}}, []snowflake.ID{snowflake.ID(id), 0}
	}
	if opts&128 != 0 {
		m.ApplicationID, m.WebhookID = snowflake.ID(id>>2), snowflake.ID(n)
	}
	if opts&256 != 0 {
		md := &InteractionMetadata{ID: snowflake.ID(id), Type: Type(n & 7), User: user,
			Name: key, CommandType: command.Type(n & 3), OriginalResponseMessageID: snowflake.ID(n)}
		if opts&512 != 0 {
			md.AuthorizingIntegrationOwners = map[string]snowflake.ID{"0": snowflake.ID(id), key: 5, text: 0}
		}
		if opts&1024 != 0 {
			md.TargetUser, md.TargetMessageID, md.InteractedMessageID = &user, snowflake.ID(id), snowflake.ID(id>>5)
			md.TriggeringInteractionMetadata = raw
		}
		m.InteractionMetadata = md
	}
	if opts&2048 != 0 {
		m.Interaction = &MessageInteraction{ID: snowflake.ID(id), Type: Type(n), Name: text, User: user}
	}
	if opts&4096 != 0 {
		m.Poll = raw
	}
	if opts&8192 != 0 {
		m.ActivityInstance = &ActivityInstance{ID: key}
	}
	return m
}

// FuzzMessageAppendJSON: Message.AppendJSON writes exactly
// jsonenc.Marshal's bytes, and fails where it fails.
func FuzzMessageAppendJSON(f *testing.F) {
	for i, s := range []struct{ text, key, raw string }{
		{"hello", "2026-11-29T05:38:22.105162+00:00", `{"type":1,"components":[]}`},
		{"<b>&\"\\\u2028\x01\b", "\xff", " { \"a\" : [ 1 , \"\u2029>\" ] } "},
		{"", "", ``},
		{"x", "y", `nul`},
	} {
		for _, opts := range []uint16{0, 0x3fff, 0x2aaa, 0x1555, 256 | 512 | 1024} {
			f.Add(uint64(1576472368556015616+i), s.text, s.key, opts, i*977-3, []byte(s.raw))
		}
	}
	f.Fuzz(func(t *testing.T, id uint64, text, key string, opts uint16, n int, raw []byte) {
		m := fuzzMessage(id, text, key, opts, n, raw)
		jsonenctest.SameAsMarshal(t, m, m.AppendJSON)
	})
}

// BenchmarkMessageJSON: an answer's message, by AppendJSON and by
// jsonenc.Marshal.
func BenchmarkMessageJSON(b *testing.B) {
	m := fuzzMessage(1576472368556015616, "hello", "2026-11-29T05:38:22.105162+00:00", 128|256|512|2048, 20, nil)
	b.Run("AppendJSON", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.AppendJSON(make([]byte, 0, 2048)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonenc.Marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := jsonenc.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
