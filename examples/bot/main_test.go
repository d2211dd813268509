package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/slashd/slashd/sdk/interactions"
)

type bot struct {
	t    *testing.T
	priv ed25519.PrivateKey
	srv  *httptest.Server
}

func startBot(t *testing.T) *bot {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newHandler(hex.EncodeToString(pub))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &bot{t: t, priv: priv, srv: srv}
}

// post delivers body signed as slashd signs it and returns the status and
// the decoded answer.
func (b *bot) post(body string, badSignature bool) (int, map[string]any) {
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

func command(typ int, name, options string) string {
	return `{"id":"1","application_id":"2","type":` + strconv.Itoa(typ) + `,"token":"tok","version":1,` +
		`"guild_id":"3","channel_id":"4","member":{"user":{"id":"5","username":"alice"},"roles":[],` +
		`"joined_at":"2025-01-01T00:00:00+00:00","permissions":"2147483648"},"locale":"en-US",` +
		`"data":{"id":"6","name":"` + name + `","type":1,"options":` + options + `}}`
}

func TestBot(t *testing.T) {
	b := startBot(t)

	if code, out := b.post(`{"id":"1","application_id":"2","type":1,"token":"tok","version":1}`, false); code != 200 || out["type"] != 1.0 || len(out) != 1 {
		t.Fatalf("PING → %d %v", code, out)
	}
	if code, _ := b.post(`{"id":"1","application_id":"2","type":1,"token":"tok","version":1}`, true); code != http.StatusUnauthorized {
		t.Fatalf("bad signature → %d", code)
	}

	code, out := b.post(command(2, "ping", `[]`), false)
	data, _ := out["data"].(map[string]any)
	if code != 200 || out["type"] != 4.0 || data["content"] != "pong" || data["flags"] != 64.0 {
		t.Fatalf("/ping → %d %v", code, out)
	}

	code, out = b.post(command(2, "echo", `[{"name":"text","type":3,"value":"hello @everyone"}]`), false)
	data, _ = out["data"].(map[string]any)
	if code != 200 || out["type"] != 4.0 || data["content"] != "hello @everyone" || data["flags"] != nil {
		t.Fatalf("/echo → %d %v", code, out)
	}
	if am, _ := data["allowed_mentions"].(map[string]any); am == nil || len(am["parse"].([]any)) != 0 {
		t.Fatalf("/echo allowed_mentions = %v", data["allowed_mentions"])
	}

	code, out = b.post(command(4, "pick", `[{"name":"fruit","type":3,"value":"BERR","focused":true}]`), false)
	data, _ = out["data"].(map[string]any)
	choices, _ := data["choices"].([]any)
	if code != 200 || out["type"] != 8.0 || len(choices) != 5 {
		t.Fatalf("autocomplete → %d %v", code, out)
	}
	if c := choices[0].(map[string]any); c["name"] != "blackberry" || c["value"] != "blackberry" {
		t.Fatalf("first choice = %v", c)
	}
	_, out = b.post(command(4, "pick", `[{"name":"fruit","type":3,"value":"","focused":true}]`), false)
	if n := len(out["data"].(map[string]any)["choices"].([]any)); n != 25 {
		t.Fatalf("empty prefix → %d choices", n)
	}

	code, out = b.post(command(2, "pick", `[{"name":"fruit","type":3,"value":"mango"}]`), false)
	data, _ = out["data"].(map[string]any)
	if code != 200 || data["content"] != "You picked mango." {
		t.Fatalf("/pick → %d %v", code, out)
	}
	_, out = b.post(command(2, "pick", `[{"name":"fruit","type":3,"value":"rock"}]`), false)
	if data = out["data"].(map[string]any); data["flags"] != 64.0 {
		t.Fatalf("/pick rock → %v", out)
	}

	_, out = b.post(command(2, "nope", `[]`), false)
	if data = out["data"].(map[string]any); data["content"] != "Unknown command." {
		t.Fatalf("unknown → %v", out)
	}
}

func TestNewHandlerRejectsBadKey(t *testing.T) {
	if _, err := newHandler(""); err == nil {
		t.Fatal("empty key accepted")
	}
}
