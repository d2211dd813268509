package main

// Unit tests: the bot driven by signed requests as slashd sends them, its
// REST calls going to a fake service. e2e_test.go runs it against a real
// slashd.

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/sdk/interactions"
)

// restCall is a request the bot made to the (fake) service.
type restCall struct {
	method, path, body string
}

type testBot struct {
	t    *testing.T
	priv ed25519.PrivateKey
	bot  *bot
	srv  *httptest.Server

	mu    sync.Mutex
	calls []restCall
	fails int // answer the next fails REST calls with 10015
	logs  []string
}

// startBot runs the bot; its REST calls go to a fake service that records
// them and answers with a message.
func startBot(t *testing.T) *testBot {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tb := &testBot{t: t, priv: priv}
	rest := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		tb.mu.Lock()
		tb.calls = append(tb.calls, restCall{r.Method, r.URL.EscapedPath(), string(b)})
		fail := tb.fails > 0
		if fail {
			tb.fails--
		}
		tb.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if fail {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"Unknown Webhook","code":10015}`)
			return
		}
		io.WriteString(w, `{"id":"77","channel_id":"4","content":"x","timestamp":"2025-01-01T00:00:00.000000+00:00"}`)
	}))
	t.Cleanup(rest.Close)
	b, err := newHandler(hex.EncodeToString(pub), &interactions.Client{BaseURL: rest.URL, HTTP: rest.Client()})
	if err != nil {
		t.Fatal(err)
	}
	b.thinking = 10 * time.Millisecond
	b.logf = func(format string, args ...any) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		tb.logs = append(tb.logs, fmt.Sprintf(format, args...))
	}
	tb.bot = b
	tb.srv = httptest.NewServer(b)
	t.Cleanup(tb.srv.Close)
	t.Cleanup(b.wait)
	return tb
}

// post delivers body signed as slashd signs it and returns the status and
// the decoded answer.
func (b *testBot) post(body string, badSignature bool) (int, map[string]any) {
	b.t.Helper()
	ts := "1700000000"
	sig := interactions.Sign(b.priv, ts, []byte(body))
	if badSignature {
		sig = interactions.Sign(b.priv, ts, []byte(body+" "))
	}
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+InteractionsPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(interactions.HeaderSignature, sig)
	req.Header.Set(interactions.HeaderTimestamp, ts)
	resp, err := b.srv.Client().Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if resp.StatusCode == 200 {
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			b.t.Fatalf("Content-Type %q", ct)
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			b.t.Fatal(err)
		}
	}
	return resp.StatusCode, out
}

// answer posts body and returns the answer's type and data, failing
// unless the bot answered 200.
func (b *testBot) answer(body string) (float64, map[string]any) {
	b.t.Helper()
	code, out := b.post(body, false)
	if code != 200 {
		b.t.Fatalf("status %d for %s", code, body)
	}
	data, _ := out["data"].(map[string]any)
	typ, _ := out["type"].(float64)
	return typ, data
}

// restCalls waits for the bot's background work and returns its REST
// calls and logged failures.
func (b *testBot) restCalls() ([]restCall, []string) {
	b.bot.wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]restCall(nil), b.calls...), append([]string(nil), b.logs...)
}

const memberJSON = `"member":{"user":{"id":"5","username":"alice"},"roles":[],` +
	`"joined_at":"2025-01-01T00:00:00+00:00","permissions":"2147483648"}`

// interaction is an interaction of type typ whose data is data.
func interaction(typ int, data string) string {
	return `{"id":"1","application_id":"2","type":` + strconv.Itoa(typ) + `,"token":"tok","version":1,` +
		`"guild_id":"3","channel_id":"4",` + memberJSON + `,"locale":"en-US","data":` + data + `}`
}

func chatInput(typ int, name, options string) string {
	return interaction(typ, `{"id":"6","name":"`+name+`","type":1,"options":`+options+`}`)
}

func TestBot(t *testing.T) {
	b := startBot(t)

	if code, out := b.post(`{"id":"1","application_id":"2","type":1,"token":"tok","version":1}`, false); code != 200 || out["type"] != 1.0 || len(out) != 1 {
		t.Fatalf("PING → %d %v", code, out)
	}
	if code, _ := b.post(`{"id":"1","application_id":"2","type":1,"token":"tok","version":1}`, true); code != http.StatusUnauthorized {
		t.Fatalf("bad signature → %d", code)
	}

	typ, data := b.answer(chatInput(2, "ping", `[]`))
	if typ != 4 || data["content"] != "pong" || data["flags"] != 64.0 {
		t.Fatalf("/ping → %v %v", typ, data)
	}

	typ, data = b.answer(chatInput(2, "echo", `[{"name":"text","type":3,"value":"hello @everyone"}]`))
	if typ != 4 || data["content"] != "hello @everyone" || data["flags"] != nil {
		t.Fatalf("/echo → %v %v", typ, data)
	}
	if am, _ := data["allowed_mentions"].(map[string]any); am == nil || len(am["parse"].([]any)) != 0 {
		t.Fatalf("/echo allowed_mentions = %v", data["allowed_mentions"])
	}

	typ, data = b.answer(chatInput(2, "nope", `[]`))
	if typ != 4 || data["content"] != "Unknown command." {
		t.Fatalf("unknown → %v %v", typ, data)
	}
	if calls, logs := b.restCalls(); len(calls) != 0 || len(logs) != 0 {
		t.Fatalf("REST calls %v, logs %v", calls, logs)
	}
}

func TestPick(t *testing.T) {
	b := startBot(t)
	typ, data := b.answer(chatInput(4, "pick", `[{"name":"fruit","type":3,"value":"BERR","focused":true}]`))
	choices, _ := data["choices"].([]any)
	if typ != 8 || len(choices) != 5 {
		t.Fatalf("autocomplete → %v %v", typ, data)
	}
	if c := choices[0].(map[string]any); c["name"] != "blackberry" || c["value"] != "blackberry" {
		t.Fatalf("first choice = %v", c)
	}
	_, data = b.answer(chatInput(4, "pick", `[{"name":"fruit","type":3,"value":"","focused":true}]`))
	if n := len(data["choices"].([]any)); n != 25 {
		t.Fatalf("empty prefix → %d choices", n)
	}
	// INTEGER options arrive as the raw text typed, a string.
	_, data = b.answer(chatInput(4, "pick", `[{"name":"fruit","type":3,"value":"mango"},{"name":"amount","type":4,"value":"1","focused":true}]`))
	if got, _ := json.Marshal(data["choices"]); string(got) != `[{"name":"1","value":1},{"name":"10","value":10},{"name":"11","value":11},{"name":"12","value":12}]` {
		t.Fatalf("amount choices = %s", got)
	}
	_, data = b.answer(chatInput(4, "pick", `[{"name":"amount","type":4,"value":"x","focused":true}]`))
	if got, _ := json.Marshal(data["choices"]); string(got) != `[]` {
		t.Fatalf("amount choices for x = %s", got)
	}

	typ, data = b.answer(chatInput(2, "pick", `[{"name":"fruit","type":3,"value":"mango"}]`))
	if typ != 4 || data["content"] != "You picked mango." {
		t.Fatalf("/pick → %v %v", typ, data)
	}
	_, data = b.answer(chatInput(2, "pick", `[{"name":"fruit","type":3,"value":"mango"},{"name":"amount","type":4,"value":3}]`))
	if data["content"] != "You picked 3 × mango." {
		t.Fatalf("/pick amount:3 → %v", data)
	}
	_, data = b.answer(chatInput(2, "pick", `[{"name":"fruit","type":3,"value":"rock"}]`))
	if data["flags"] != 64.0 {
		t.Fatalf("/pick rock → %v", data)
	}
}

// /slow answers DEFERRED, thinks, then fills the loading message in.
func TestSlow(t *testing.T) {
	b := startBot(t)
	typ, data := b.answer(chatInput(2, "slow", `[]`))
	if typ != 5 || data != nil {
		t.Fatalf("/slow → %v %v", typ, data)
	}
	calls, logs := b.restCalls()
	want := []restCall{{"PATCH", "/api/v10/webhooks/2/tok/messages/@original", `{"content":"Thought about it: the answer is 42."}`}}
	if fmt.Sprint(calls) != fmt.Sprint(want) || len(logs) != 0 {
		t.Fatalf("REST calls %v, logs %v", calls, logs)
	}
}

// /multi answers, then posts a follow-up; until the service has the
// answer (10015) the follow-up is tried again.
func TestMulti(t *testing.T) {
	b := startBot(t)
	b.fails = 2
	typ, data := b.answer(chatInput(2, "multi", `[]`))
	if typ != 4 || data["content"] != "This is the answer." {
		t.Fatalf("/multi → %v %v", typ, data)
	}
	calls, logs := b.restCalls()
	followup := restCall{"POST", "/api/v10/webhooks/2/tok", `{"content":"And this is a follow-up."}`}
	if len(calls) != 3 || calls[0] != followup || calls[2] != followup || len(logs) != 0 {
		t.Fatalf("REST calls %v, logs %v", calls, logs)
	}
}

// Work after answering gives up after about 3 s of 10015, and says so.
func TestLaterGivesUp(t *testing.T) {
	b := startBot(t)
	b.fails = 100
	b.answer(chatInput(2, "multi", `[]`))
	calls, logs := b.restCalls()
	if len(calls) < 5 || len(calls) > 8 || len(logs) != 1 || !strings.Contains(logs[0], "10015") {
		t.Fatalf("%d REST calls, logs %v", len(calls), logs)
	}
}

func TestFeedback(t *testing.T) {
	b := startBot(t)
	typ, data := b.answer(chatInput(2, "feedback", `[]`))
	rows, _ := data["components"].([]any)
	if typ != 9 || data["custom_id"] != "feedback" || data["title"] != "Feedback" || len(rows) != 1 {
		t.Fatalf("/feedback → %v %v", typ, data)
	}
	input := rows[0].(map[string]any)["components"].([]any)[0].(map[string]any)
	if input["type"] != 4.0 || input["custom_id"] != "text" || input["style"] != 2.0 {
		t.Fatalf("text input = %v", input)
	}
	// The submission, in both shapes the service sends: quoted back,
	// for the user only, pinging nobody.
	cases := []struct {
		name, data, want string
	}{
		{"action row", `{"custom_id":"feedback","components":[{"type":1,"components":[{"type":4,"custom_id":"text","value":"great @everyone"}]}]}`,
			"Thanks for your feedback: great @everyone"},
		{"label", `{"custom_id":"feedback","components":[{"type":18,"component":{"type":4,"custom_id":"text","value":"Lovely playground"}}]}`,
			"Thanks for your feedback: Lovely playground"},
		{"blank", `{"custom_id":"feedback","components":[{"type":1,"components":[{"type":4,"custom_id":"text","value":"  "}]}]}`,
			"Thanks for your feedback!"},
		{"another modal", `{"custom_id":"other","components":[{"type":1,"components":[{"type":4,"custom_id":"text","value":"x"}]}]}`,
			"Thanks for your feedback!"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			typ, data := b.answer(interaction(5, c.data))
			if typ != 4 || data["content"] != c.want || data["flags"] != 64.0 {
				t.Fatalf("modal submit → %v %v", typ, data)
			}
			if am, _ := data["allowed_mentions"].(map[string]any); c.want != "Thanks for your feedback!" && (am == nil || len(am["parse"].([]any)) != 0) {
				t.Fatalf("allowed_mentions = %v", data["allowed_mentions"])
			}
		})
	}
}

// /counter answers "Count: 0" with a "+1" button whose custom_id
// carries the count; a press updates the message (type 7) to the next
// count and button. Other components get "Unknown button.".
func TestCounter(t *testing.T) {
	b := startBot(t)
	button := func(data map[string]any) string {
		b, _ := json.Marshal(data["components"])
		return string(b)
	}
	typ, data := b.answer(chatInput(2, "counter", `[]`))
	if typ != 4 || data["content"] != "Count: 0" || data["flags"] != nil ||
		button(data) != `[{"components":[{"custom_id":"counter:0","label":"+1","style":1,"type":2}],"type":1}]` {
		t.Fatalf("/counter → %v %v", typ, data)
	}
	press := func(customID string, componentType int) string {
		return interaction(3, fmt.Sprintf(`{"custom_id":%q,"component_type":%d}`, customID, componentType))
	}
	cases := []struct {
		name, body string
		typ        float64
		content    string
		components string // "" for none
	}{
		{"first press", press("counter:0", 2), 7, "Count: 1", `[{"components":[{"custom_id":"counter:1","label":"+1","style":1,"type":2}],"type":1}]`},
		{"later press", press("counter:41", 2), 7, "Count: 42", `[{"components":[{"custom_id":"counter:42","label":"+1","style":1,"type":2}],"type":1}]`},
		{"another button", press("press", 2), 4, "Unknown button.", ""},
		{"a select menu", `{"id":"1","application_id":"2","type":3,"token":"tok","version":1,"channel_id":"4",` + memberJSON +
			`,"data":{"custom_id":"counter:1","component_type":3,"values":["a"]}}`, 4, "Unknown button.", ""},
		{"a bad count", press("counter:x", 2), 4, "Unknown button.", ""},
		{"a negative count", press("counter:-5", 2), 4, "Unknown button.", ""},
		{"the largest count", press(fmt.Sprintf("counter:%d", math.MaxInt), 2), 4, "Unknown button.", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			typ, data := b.answer(c.body)
			if typ != c.typ || data["content"] != c.content {
				t.Fatalf("press → %v %v", typ, data)
			}
			if got := button(data); (c.components == "" && data["components"] != nil) || (c.components != "" && got != c.components) {
				t.Fatalf("components %s, want %s", got, c.components)
			}
			if c.typ == 4 && data["flags"] != 64.0 {
				t.Fatalf("not ephemeral: %v", data)
			}
		})
	}
}

func TestContextMenus(t *testing.T) {
	b := startBot(t)
	typ, data := b.answer(interaction(2, `{"id":"6","name":"Wave","type":2,"target_id":"8",`+
		`"resolved":{"users":{"8":{"id":"8","username":"bob"}},"members":{"8":{"roles":[],"joined_at":"2025-01-01T00:00:00+00:00"}}}}`))
	if typ != 4 || data["content"] != "alice waves at bob 👋" {
		t.Fatalf("Wave → %v %v", typ, data)
	}
	_, data = b.answer(interaction(2, `{"id":"6","name":"Wave","type":2,"target_id":"8"}`))
	if data["flags"] != 64.0 {
		t.Fatalf("Wave without resolved target → %v", data)
	}

	typ, data = b.answer(interaction(2, `{"id":"6","name":"Quote","type":3,"target_id":"9",`+
		`"resolved":{"messages":{"9":{"id":"9","channel_id":"4","author":{"id":"8","username":"bob"},`+
		`"content":"to be\nor not @everyone","timestamp":"2025-01-01T00:00:00+00:00","type":0}}}}`))
	if typ != 4 || data["content"] != "> to be\n> or not @everyone\n— bob" {
		t.Fatalf("Quote → %v %v", typ, data)
	}
	if am, _ := data["allowed_mentions"].(map[string]any); am == nil || len(am["parse"].([]any)) != 0 {
		t.Fatalf("Quote allowed_mentions = %v", data["allowed_mentions"])
	}
	_, data = b.answer(interaction(2, `{"id":"6","name":"Quote","type":3,"target_id":"9",`+
		`"resolved":{"messages":{"9":{"id":"9","channel_id":"4","content":"","timestamp":"2025-01-01T00:00:00+00:00","type":0}}}}`))
	if data["flags"] != 64.0 {
		t.Fatalf("Quote of an empty message → %v", data)
	}
}

func TestEntryPoint(t *testing.T) {
	b := startBot(t)
	code, out := b.post(interaction(2, `{"id":"6","name":"launch","type":4}`), false)
	if code != 200 || out["type"] != 12.0 || len(out) != 1 {
		t.Fatalf("entry point → %d %v", code, out)
	}
}

// The printed definitions are valid JSON, and the bot answers every
// command they define.
func TestGuildCommands(t *testing.T) {
	var cmds []struct {
		Name string `json:"name"`
		Type int    `json:"type"`
	}
	if err := json.Unmarshal([]byte(guildCommands), &cmds); err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 9 {
		t.Fatalf("%d commands", len(cmds))
	}
	b := startBot(t)
	for _, c := range cmds {
		typ := max(c.Type, 1)
		_, data := b.answer(interaction(2, fmt.Sprintf(`{"id":"6","name":%q,"type":%d}`, c.Name, typ)))
		if data["content"] == "Unknown command." {
			t.Errorf("%s: unknown command", c.Name)
		}
	}
}

func TestNewHandlerRejectsBadKey(t *testing.T) {
	if _, err := newHandler("", &interactions.Client{BaseURL: "http://127.0.0.1:1"}); err == nil {
		t.Fatal("empty key accepted")
	}
}
