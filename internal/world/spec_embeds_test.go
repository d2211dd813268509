package world

import (
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
)

// A world's messages are checked as the API checks a channel post: an
// embed the real service would refuse is refused at its path in the
// spec, and the same embed within its limits is taken.
func TestSpecMessageEmbedsChecked(t *testing.T) {
	withEmbed := func(title string) string {
		return withPatch(t, `"general": {}`, `"general": {"messages": [{"author": "alice", "content": "hi",
			"embeds": [{"title": "`+title+`", "color": 255}]}]}`)
	}
	_, err := decodeJSON(t, withEmbed(strings.Repeat("t", 257)))
	e, ok := apierr.As(err)
	if !ok || e.Code != apierr.CodeInvalidFormBody || e.Status != 400 {
		t.Fatalf("error %v, want a 400 50035", err)
	}
	path := "guilds.club.channels.general.messages.0.embeds.0.title"
	if codes := errorAt(err, path); len(codes) != 1 || codes[0] != "BASE_TYPE_MAX_LENGTH" {
		body, _ := e.Fields.MarshalJSON()
		t.Fatalf("want BASE_TYPE_MAX_LENGTH at %s, got %s", path, body)
	}
	spec, err := decodeJSON(t, withEmbed(strings.Repeat("t", 256)))
	if err != nil {
		t.Fatal(err)
	}
	var messages int
	for _, g := range spec.Guilds {
		for _, c := range g.Channels {
			messages += len(c.Messages)
		}
	}
	if messages != 1 {
		t.Fatalf("%d messages", messages)
	}
}
