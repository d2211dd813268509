package gateway_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/testenv"
)

// A dispatch goes out as other servers write JSON: a mention's < and >
// and an ampersand are not HTML-escaped, whether the event's data came as
// a Go value (this node) or as JSON (a networked bus).
func TestDispatchIsNotHTMLEscaped(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app, g := appID(t, e), guildID(t, e)
	c := dial(t, e)
	c.login(e, 0)
	for _, data := range []any{
		map[string]any{"id": "1", "type": 2, "content": "<@1> & <#2>"},
		json.RawMessage(`{"id":"2","type":2,"content":"\u003c@1\u003e \u0026 \u003c#2\u003e"}`),
	} {
		e.Events.Publish(context.Background(), event.Event{Type: event.InteractionCreate, ApplicationID: app, GuildID: g, Data: data})
		f := c.dispatch("INTERACTION_CREATE")
		if d := string(f.D); !strings.Contains(d, `"content":"<@1> & <#2>"`) || strings.Contains(d, `\u00`) {
			t.Fatalf("dispatched %s", d)
		}
	}
}
