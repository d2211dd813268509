package msgcheck

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

// FuzzBody checks Body on any JSON object: it never panics, it decides
// the same way twice, and every error it records has a code and a message.
// The seeds are the docs' example bodies (message.mdx's allowed_mentions
// examples, discord-api-docs#6871's poll) and bodies that break a rule.
func FuzzBody(f *testing.F) {
	seeds := []string{
		embedBody(fullEmbed),
		`{"content":"@here Hello <@&1234> and <@5678>","allowed_mentions":{"parse":[]}}`,
		`{"content":"@here Hello <@&1234> and <@5678>","allowed_mentions":{"parse":["users","roles"],"users":[]}}`,
		`{"content":"@everyone <@1234> <@5678> <@&789>","allowed_mentions":{"parse":["everyone"],"users":["1234","5678"]}}`,
		`{"content":"@everyone <@1234> <@5678> <@9012> <@&200>","allowed_mentions":{"parse":["users"],"users":["1234","5678"]}}`,
		`{"content":"<@123> Time for some memes","allowed_mentions":{"users":["123","456"]}}`,
		`{"poll":` + docsPoll + `}`,
		`{"poll":{"question":{"text":""},"answers":[{"poll_media":{"emoji":{"id":"x"}}}],"duration":"0"}}`,
		embedBody(`{"title":5,"url":"ftp://x","timestamp":[],"color":1e20,"fields":[{},null],"footer":"x","image":{"url":"a b"}}`),
		`{"embeds":[{"description":"` + chars(6001) + `"}],"allowed_mentions":{"users":["1","1"],"parse":"x"},"poll":[]}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := form.DecodeJSON(b)
		if err != nil {
			return
		}
		body, ok := v.(map[string]any)
		if !ok {
			return
		}
		first, second := &apierr.Fields{}, &apierr.Fields{}
		Body(body, nil, first)
		Body(body, nil, second)
		a, err := json.Marshal(first)
		if err != nil {
			t.Fatalf("errors do not encode: %v", err)
		}
		if b, _ := json.Marshal(second); !bytes.Equal(a, b) {
			t.Fatalf("two runs differ:\n%s\n%s", a, b)
		}
		if !first.Empty() {
			checkLeaves(t, a)
		}
	})
}

// checkLeaves fails on an error of the wire tree b without a code or a message.
func checkLeaves(t *testing.T, b []byte) {
	var tree map[string]any
	if err := json.Unmarshal(b, &tree); err != nil {
		t.Fatal(err)
	}
	var walk func(node map[string]any)
	walk = func(node map[string]any) {
		for key, v := range node {
			if key != "_errors" {
				walk(v.(map[string]any))
				continue
			}
			for _, leaf := range v.([]any) {
				l := leaf.(map[string]any)
				if l["code"] == "" || l["message"] == "" {
					t.Fatalf("an error without code or message in %s", b)
				}
			}
		}
	}
	walk(tree)
}
