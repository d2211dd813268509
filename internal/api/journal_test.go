package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// journalEvent is an entry as GET …/events shows it (the fields the
// tests read).
type journalEvent struct {
	Cursor        string          `json:"cursor"`
	ID            string          `json:"id"`
	Type          string          `json:"type"`
	At            string          `json:"at"`
	Route         string          `json:"route"`
	Path          string          `json:"path"`
	Method        string          `json:"method"`
	Status        int             `json:"status"`
	Error         json.RawMessage `json:"error"`
	InteractionID string          `json:"interaction_id"`
	Payload       json.RawMessage `json:"payload"`
	Answer        json.RawMessage `json:"answer"`
	Event         string          `json:"event"`
	Session       string          `json:"session_id"`
	Code          int             `json:"code"`
	By            string          `json:"by"`
	MessageID     string          `json:"message_id"`
	AuthorID      string          `json:"author_id"`
	ApplicationID string          `json:"application_id"`
}

type journalPage struct {
	Events []journalEvent `json:"events"`
	Cursor string         `json:"cursor"`
}

func readEvents(t *testing.T, e *testenv.Env, world string, query url.Values) journalPage {
	t.Helper()
	res := e.Do("GET", "/admin/v1/worlds/"+world+"/events?"+query.Encode(), e.AdminAuth(), nil)
	if res.Status != http.StatusOK {
		t.Fatalf("events: %d %s", res.Status, res.Body)
	}
	var p journalPage
	res.JSON(t, &p)
	return p
}

// waitEvent long-polls the journal from cursor until an entry of typ
// that ok accepts comes.
func waitEvent(t *testing.T, e *testenv.Env, world, cursor, typ string, ok func(journalEvent) bool) journalEvent {
	t.Helper()
	deadline := time.Now().Add(testenv.WaitTimeout)
	for time.Now().Before(deadline) {
		p := readEvents(t, e, world, url.Values{"after": {cursor}, "type": {typ}, "wait": {"5s"}})
		for _, ev := range p.Events {
			if ok == nil || ok(ev) {
				return ev
			}
		}
		cursor = p.Cursor
	}
	t.Fatalf("no %s in the journal", typ)
	return journalEvent{}
}

func TestJournalRESTRequests(t *testing.T) {
	e := testenv.New(t)
	w := createWorld(t, e, issueExample)
	bot := "Bot " + w.Apps["modbot"].BotToken
	mustDo(t, e, "GET", "/api/v10/users/@me", bot, nil, 200)
	mustDo(t, e, "GET", "/api/v10/channels/1234", bot, nil, 404)
	// An app of no world is not recorded.
	mustDo(t, e, "GET", "/api/v10/users/@me", e.Bot(), nil, 200)

	refused := waitEvent(t, e, w.Name, "", "rest.request", func(ev journalEvent) bool { return ev.Status == 404 })
	if refused.Method != "GET" || refused.Route != "GET /api/v10/channels/{channel_id}" || !strings.Contains(string(refused.Error), `"code":10003`) {
		t.Errorf("refused request = %+v; want the route pattern and the error body", refused)
	}
	all := readEvents(t, e, w.ID, url.Values{"type": {"rest.request"}})
	if len(all.Events) != 2 || all.Events[0].Status != 200 || all.Events[0].Route != "GET /api/v10/users/@me" {
		t.Fatalf("rest.request entries = %+v; want the world bot's two", all.Events)
	}
	failures := readEvents(t, e, w.ID, url.Values{"type": {"failures"}})
	if len(failures.Events) != 1 || failures.Events[0].Status != 404 {
		t.Fatalf("failures = %+v; want the 404 only", failures.Events)
	}
	// Nothing after the last cursor: an empty page, same cursor, after the wait.
	start := time.Now()
	empty := readEvents(t, e, w.ID, url.Values{"after": {all.Cursor}, "wait": {"100ms"}})
	if len(empty.Events) != 0 || empty.Cursor != all.Cursor || time.Since(start) < 100*time.Millisecond {
		t.Errorf("after the end: %+v in %v; want none, cursor %s, after 100ms", empty, time.Since(start), all.Cursor)
	}

	for _, c := range []struct{ query, field string }{
		{"after=abc", "after"}, {"wait=soon", "wait"}, {"type=rest", "type"}, {"limit=0", "limit"}, {"limit=100000", "limit"},
	} {
		res := e.Do("GET", "/admin/v1/worlds/"+w.ID+"/events?"+c.query, e.AdminAuth(), nil)
		if res.Status != 400 || !strings.Contains(string(res.Body), `"`+c.field+`":{"_errors"`) {
			t.Errorf("?%s: %d %s; want 400 at %s", c.query, res.Status, res.Body, c.field)
		}
	}
	if res := e.Do("GET", "/admin/v1/worlds/nope/events", e.AdminAuth(), nil); res.Status != 404 {
		t.Errorf("unknown world: %d %s", res.Status, res.Body)
	}
	if res := e.Do("GET", "/admin/v1/worlds/"+w.ID+"/events", "", nil); res.Status != 401 {
		t.Errorf("no admin token: %d", res.Status)
	}
	// Gone with its world: its entries are deleted with it.
	worldID, err := snowflake.Parse(w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if kept, err := e.Store.JournalEntries(t.Context(), store.JournalQuery{WorldID: worldID, Limit: 10}); err != nil || len(kept) == 0 {
		t.Fatalf("the world's journal before DELETE: %v, %v; want entries", kept, err)
	}
	mustDo(t, e, "DELETE", "/admin/v1/worlds/"+w.ID, e.AdminAuth(), nil, 204)
	if kept, err := e.Store.JournalEntries(t.Context(), store.JournalQuery{WorldID: worldID, Limit: 10}); err != nil || len(kept) != 0 {
		t.Errorf("the deleted world's journal = %v, %v; want none", kept, err)
	}
}

// gatewayBot is a bot on a real gateway connection: it identifies and
// answers every INTERACTION_CREATE through the REST callback.
func gatewayBot(t testing.TB, e *testenv.Env, token string, answer string) (closeBot func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ws, _, err := websocket.Dial(ctx, strings.Replace(e.URL, "http", "ws", 1)+"/gateway?v=10&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(1 << 20)
	var hello struct{ Op int }
	if _, data, err := ws.Read(ctx); err != nil || json.Unmarshal(data, &hello) != nil || hello.Op != 10 {
		t.Fatalf("hello: %s %v", data, err)
	}
	id, _ := json.Marshal(map[string]any{"op": 2, "d": map[string]any{"token": token, "intents": 1,
		"properties": map[string]string{"os": "linux", "browser": "t", "device": "t"}}})
	if err := ws.Write(ctx, websocket.MessageText, id); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				return
			}
			var f struct {
				T string `json:"t"`
				D struct {
					ID    string `json:"id"`
					Token string `json:"token"`
				} `json:"d"`
			}
			if json.Unmarshal(data, &f) != nil || f.T != "INTERACTION_CREATE" {
				continue
			}
			_, _ = doJSON(e, "POST", "/api/v10/interactions/"+f.D.ID+"/"+f.D.Token+"/callback", "",
				map[string]any{"type": 4, "data": map[string]any{"content": answer}})
		}
	}()
	var once sync.Once
	closeBot = func() {
		once.Do(func() {
			_ = ws.Close(websocket.StatusNormalClosure, "bye")
			cancel()
			<-done
		})
	}
	t.Cleanup(closeBot)
	return closeBot
}

func TestJournalGatewayBotAnswers(t *testing.T) {
	e := testenv.New(t)
	w := createWorld(t, e, issueExample)
	app := w.Apps["modbot"]
	closeBot := gatewayBot(t, e, app.BotToken, "banned")
	identified := waitEvent(t, e, w.ID, "", "gateway.identify", nil)

	// A test's wait for "the bot answered" is a long-poll started before
	// the invocation.
	answered := make(chan journalEvent, 1)
	go func() {
		p := readEvents(t, e, w.ID, url.Values{"after": {identified.Cursor}, "type": {"interaction.answered"}, "wait": {"20s"}})
		if len(p.Events) > 0 {
			answered <- p.Events[0]
		}
		close(answered)
	}()
	var cmds []struct{ ID, Name, Version string }
	mustDo(t, e, "GET", "/api/v10/applications/"+app.ID+"/commands", "Bot "+app.BotToken, nil, 200).JSON(t, &cmds)
	if len(cmds) != 1 {
		t.Fatalf("commands = %+v", cmds)
	}
	club := w.Guilds["club"]
	inv := map[string]any{"type": 2, "application_id": app.ID, "guild_id": club.ID, "channel_id": club.Channels["general"],
		"data": map[string]any{"id": app.Commands["ban"], "name": "ban", "type": 1, "version": cmds[0].Version,
			"options": []map[string]any{{"type": 6, "name": "user", "value": w.Users["bob"].ID}}}}
	res := mustDo(t, e, "POST", "/api/v10/interactions", w.Users["alice"].ClientToken, inv, 200)
	var ev journalEvent
	select {
	case got, ok := <-answered:
		if !ok {
			t.Fatal("the long-poll ended without interaction.answered")
		}
		ev = got
	case <-time.After(testenv.WaitTimeout):
		t.Fatal("no interaction.answered")
	}
	if !strings.Contains(string(ev.Answer), "banned") {
		t.Errorf("interaction.answered = %+v; want the answer", ev)
	}
	// The journal's answer is what the invoking client was shown.
	var shown, journaled any
	if json.Unmarshal(res.Body, &shown) != nil || json.Unmarshal(ev.Answer, &journaled) != nil ||
		!reflect.DeepEqual(shown, journaled) {
		t.Errorf("interaction.answered's answer = %s; want the invoker's answer %s", ev.Answer, res.Body)
	}
	delivered := waitEvent(t, e, w.ID, identified.Cursor, "interaction.delivered", nil)
	if delivered.InteractionID != ev.InteractionID || !strings.Contains(string(delivered.Payload), `"name":"ban"`) {
		t.Errorf("interaction.delivered = %+v", delivered)
	}
	dispatch := waitEvent(t, e, w.ID, identified.Cursor, "gateway.dispatch", func(d journalEvent) bool { return d.Event == "INTERACTION_CREATE" })
	if dispatch.Session == "" || dispatch.ApplicationID != app.ID || identified.ApplicationID != app.ID {
		t.Errorf("dispatch = %+v, identify = %+v; want modbot's session", dispatch, identified)
	}
	callback := waitEvent(t, e, w.ID, identified.Cursor, "rest.request", func(d journalEvent) bool { return strings.HasSuffix(d.Route, "/callback") })
	if callback.Status != 204 || strings.Contains(callback.Path, "callback") && strings.Count(callback.Path, "/") != 6 ||
		!strings.Contains(callback.Path, ":interaction_token") || callback.Route != "POST /api/v10/interactions/{interaction_id}/{interaction_token}/callback" {
		t.Errorf("callback = %+v; want the route pattern and the token redacted", callback)
	}
	created := waitEvent(t, e, w.ID, identified.Cursor, "message.created", nil)
	if created.MessageID == "" || created.AuthorID != app.ID {
		t.Errorf("message.created = %+v", created)
	}
	closeBot()
	closed := waitEvent(t, e, w.ID, identified.Cursor, "gateway.close", nil)
	if closed.Code != 1000 || closed.By != "client" || closed.Session != dispatch.Session || closed.ApplicationID != app.ID {
		t.Errorf("gateway.close = %+v", closed)
	}
	// The bot made no refused call.
	if f := readEvents(t, e, w.ID, url.Values{"type": {"failures"}}); len(f.Events) != 0 {
		t.Errorf("failures = %+v; want none", f.Events)
	}
}

// A read of the journal (no wait) right after the request it records
// sees it: the node writes what it queued before reading, so a test's
// closing "no failures" never misses its last refused call.
func TestJournalReadSeesWhatWasJustQueued(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := createWorld(t, e, issueExample)
	bot := "Bot " + w.Apps["modbot"].BotToken
	for n := range 5 {
		mustDo(t, e, "GET", "/api/v10/channels/1234", bot, nil, http.StatusNotFound)
		got := readEvents(t, e, w.ID, url.Values{"type": {"failures"}}).Events
		if len(got) != n+1 || got[n].Status != http.StatusNotFound {
			t.Fatalf("after refused call %d, failures read at once: %+v; want %d", n+1, got, n+1)
		}
	}
}
