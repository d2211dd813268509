package gateway

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
)

// FuzzMessageRendering: whatever a stored message body holds, the
// gateway's rendering of it never panics; a JSON object stays a JSON
// object that carries the guild's id, and its content-less copy has empty
// content, embeds, attachments and components and no poll, the other keys
// kept. Every <@id> in the content is among the mentions found.
func FuzzMessageRendering(f *testing.F) {
	for _, seed := range []string{
		`{"id":"1","content":"hi <@42>","embeds":[{"title":"t"}],"mentions":[{"id":"7"}],"poll":{}}`,
		`{}`, `{ }`, `{"guild_id":"9"}`, `[]`, `"x"`, `{"content":"<@!12><@&3><@"}`, `{"content":"<@>"}`, ``, `{`,
	} {
		f.Add([]byte(seed))
	}
	const guild = snowflake.ID(1 << 40)
	f.Fuzz(func(t *testing.T, body []byte) {
		mentions := mentionedUsers(body)
		full := withGuildID(body, guild)
		var in map[string]json.RawMessage
		if json.Unmarshal(body, &in) != nil {
			return
		}
		var out map[string]json.RawMessage
		if err := json.Unmarshal(full, &out); err != nil {
			t.Fatalf("withGuildID(%q) = %q: %v", body, full, err)
		}
		if _, had := in["guild_id"]; !had && string(out["guild_id"]) != `"`+guild.String()+`"` {
			t.Fatalf("withGuildID(%q) = %q: no guild_id", body, full)
		}
		for k, v := range in {
			if k != "guild_id" && string(out[k]) != string(v) {
				t.Fatalf("withGuildID(%q) changed %s: %s", body, k, out[k])
			}
		}
		var stripped map[string]json.RawMessage
		if err := json.Unmarshal(withoutContent(full), &stripped); err != nil {
			t.Fatalf("withoutContent: %v", err)
		}
		if string(stripped["content"]) != `""` || string(stripped["embeds"]) != `[]` ||
			string(stripped["attachments"]) != `[]` || string(stripped["components"]) != `[]` {
			t.Fatalf("withoutContent(%q) kept content: %v", full, stripped)
		}
		if _, ok := stripped["poll"]; ok {
			t.Fatalf("withoutContent(%q) kept the poll", full)
		}
		var content string
		if json.Unmarshal(in["content"], &content) == nil {
			for _, part := range strings.Split(content, "<@")[1:] {
				end := strings.IndexByte(part, '>')
				if end < 0 {
					continue
				}
				if id, err := snowflake.Parse(strings.TrimPrefix(part[:end], "!")); err == nil && !slices.Contains(mentions, id) {
					t.Fatalf("mentionedUsers(%q) = %v, lacks %s", body, mentions, id)
				}
			}
		}
	})
}
