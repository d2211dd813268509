package webhook

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var fixedNow = time.Unix(1700000000, 0)

func testKey(t *testing.T) (ed25519.PrivateKey, string) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return priv, hex.EncodeToString(pub)
}

// appServer is an HTTP app that checks signatures like a real one (401 on a
// bad signature) and otherwise runs answer.
func appServer(t *testing.T, pubHex string, answer http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "read", http.StatusBadRequest)
			return
		}
		if !Verify(pubHex, r.Header.Get(HeaderSignature), r.Header.Get(HeaderTimestamp), body) {
			http.Error(w, "invalid request signature", http.StatusUnauthorized)
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func jsonAnswer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// blockUntilGone blocks until the client goes away (or the test ends). The
// body is drained first: the server only notices a closed connection (and
// cancels r.Context()) once the request body has been read. The 10 s bound is
// a safety net against a hung test, far beyond any timeout used here.
func blockUntilGone(release <-chan struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}
}

func TestDeliver(t *testing.T) {
	priv, pub := testKey(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // safety net; handlers normally return when the client gives up

	type want struct {
		status      int
		viaCallback bool
		typ         int
		data        string // "" = nil
		multipart   string // the answer's multipart Content-Type ("" = none)
		kind        ErrorKind
		errStatus   int
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		cfg     Config
		want    want
	}{
		{"pong", jsonAnswer(200, `{"type":1}`), Config{}, want{status: 200, typ: 1}},
		{"message", jsonAnswer(200, `{"type":4,"data":{"content":"hi","flags":64}}`), Config{},
			want{status: 200, typ: 4, data: `{"content":"hi","flags":64}`}},
		{"deferred message", jsonAnswer(200, `{"type":5,"data":{"flags":64}}`), Config{},
			want{status: 200, typ: 5, data: `{"flags":64}`}},
		{"deferred update", jsonAnswer(200, `{"type":6}`), Config{}, want{status: 200, typ: 6}},
		{"update message", jsonAnswer(200, `{"type":7,"data":{"components":[]}}`), Config{},
			want{status: 200, typ: 7, data: `{"components":[]}`}},
		{"autocomplete", jsonAnswer(200, `{"type":8,"data":{"choices":[{"name":"a","value":"a"}]}}`), Config{},
			want{status: 200, typ: 8, data: `{"choices":[{"name":"a","value":"a"}]}`}},
		{"modal", jsonAnswer(200, `{"type":9,"data":{"custom_id":"m","title":"T","components":[]}}`), Config{},
			want{status: 200, typ: 9, data: `{"custom_id":"m","title":"T","components":[]}`}},
		{"premium required", jsonAnswer(200, `{"type":10,"data":{}}`), Config{}, want{status: 200, typ: 10, data: `{}`}},
		{"launch activity", jsonAnswer(200, `{"type":12}`), Config{}, want{status: 200, typ: 12}},
		{"null data", jsonAnswer(200, `{"type":6,"data":null}`), Config{}, want{status: 200, typ: 6}},
		{"charset and whitespace", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			io.WriteString(w, " {\"data\": {\"content\":\"x\"}, \"type\": 4}\n")
		}, Config{}, want{status: 200, typ: 4, data: `{"content":"x"}`}},
		// A multipart form (payload_json, files[n]) is the caller's to
		// read, as a callback's would be; only its size is checked here.
		{"multipart", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "multipart/form-data; boundary=b")
			io.WriteString(w, "--b\r\nContent-Disposition: form-data; name=\"payload_json\"\r\n\r\n{\"type\":4}\r\n--b--\r\n")
		}, Config{}, want{status: 200, multipart: "multipart/form-data; boundary=b"}},
		{"multipart oversized", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "multipart/form-data; boundary=b")
			io.WriteString(w, strings.Repeat("x", 100))
		}, Config{MaxResponseBytes: 64}, want{kind: KindBadResponse, errStatus: 200}},
		{"accepted", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(202) }, Config{},
			want{status: 202, viaCallback: true}},
		{"no content", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }, Config{},
			want{status: 204, viaCallback: true}},

		{"500", jsonAnswer(500, `{"error":"boom"}`), Config{}, want{kind: KindStatus, errStatus: 500}},
		{"404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, Config{},
			want{kind: KindStatus, errStatus: 404}},
		{"201", jsonAnswer(201, `{"type":4}`), Config{}, want{kind: KindStatus, errStatus: 201}},
		{"redirect not followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}, Config{}, want{kind: KindStatus, errStatus: 302}},
		{"not json", jsonAnswer(200, `<html>hi</html>`), Config{}, want{kind: KindBadResponse, errStatus: 200}},
		{"empty 200", jsonAnswer(200, ``), Config{}, want{kind: KindBadResponse, errStatus: 200}},
		{"trailing garbage", jsonAnswer(200, `{"type":4}{}`), Config{}, want{kind: KindBadResponse, errStatus: 200}},
		{"json array", jsonAnswer(200, `[{"type":4}]`), Config{}, want{kind: KindBadResponse, errStatus: 200}},
		{"wrong content type", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, `{"type":4,"data":{"content":"x"}}`)
		}, Config{}, want{kind: KindBadResponse, errStatus: 200}},
		{"missing type", jsonAnswer(200, `{"data":{"content":"x"}}`), Config{}, want{kind: KindBadResponse, errStatus: 200}},
		{"string type", jsonAnswer(200, `{"type":"4"}`), Config{}, want{kind: KindBadResponse, errStatus: 200}},
		{"fractional type", jsonAnswer(200, `{"type":4.5}`), Config{}, want{kind: KindBadResponse, errStatus: 200}},
		{"unknown type 2", jsonAnswer(200, `{"type":2}`), Config{}, want{kind: KindBadResponse, errStatus: 200}},
		{"unknown type 11", jsonAnswer(200, `{"type":11}`), Config{}, want{kind: KindBadResponse, errStatus: 200}},
		{"unknown type 13", jsonAnswer(200, `{"type":13}`), Config{}, want{kind: KindBadResponse, errStatus: 200}},
		{"data not object", jsonAnswer(200, `{"type":4,"data":"hi"}`), Config{}, want{kind: KindBadResponse, errStatus: 200}},
		{"oversized", jsonAnswer(200, `{"type":4,"data":{"content":"`+strings.Repeat("x", 100)+`"}}`),
			Config{MaxResponseBytes: 64}, want{kind: KindBadResponse, errStatus: 200}},
		{"oversized exactly at limit is fine", jsonAnswer(200, `{"type":4,"data":{"content":"xxxxx"}}`),
			Config{MaxResponseBytes: int64(len(`{"type":4,"data":{"content":"xxxxx"}}`))},
			want{status: 200, typ: 4, data: `{"content":"xxxxx"}`}},
		{"slow app", blockUntilGone(release), Config{Timeout: 200 * time.Millisecond},
			want{kind: KindTimeout}},
		{"slow body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"type":4,`)
			w.(http.Flusher).Flush()
			blockUntilGone(release)(w, r)
		}, Config{Timeout: 200 * time.Millisecond}, want{kind: KindTimeout, errStatus: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := appServer(t, pub, tt.handler)
			cfg := tt.cfg
			cfg.Now = func() time.Time { return fixedNow }
			if cfg.Timeout == 0 {
				cfg.Timeout = 5 * time.Second
			}
			d := New(cfg)
			body := []byte(`{"type":2,"id":"1","data":{"name":"ping"}}`)
			start := time.Now()
			resp, err := d.Deliver(context.Background(), srv.URL, priv, body)
			elapsed := time.Since(start)
			if tt.want.kind != 0 {
				var de *DeliveryError
				if !errors.As(err, &de) {
					t.Fatalf("err = %v (%T), want *DeliveryError; resp = %+v", err, err, resp)
				}
				if de.Kind != tt.want.kind || de.Status != tt.want.errStatus {
					t.Fatalf("kind/status = %v/%d, want %v/%d (%s)", de.Kind, de.Status, tt.want.kind, tt.want.errStatus, de.Diagnostic())
				}
				// A failed delivery still says how it was signed.
				if len(de.Signed.Signature) != 128 || de.Signed.Timestamp != "1700000000" {
					t.Errorf("signed %+v", de.Signed)
				}
				wantMsg := MessageFailed
				if tt.want.kind == KindTimeout {
					wantMsg = MessageNoResponse
					if elapsed > 3*time.Second {
						t.Errorf("timeout took %v, want about %v", elapsed, cfg.Timeout)
					}
				}
				if err.Error() != wantMsg {
					t.Errorf("Error() = %q, want %q", err.Error(), wantMsg)
				}
				if de.Diagnostic() == "" || len(de.Body) > maxErrorBody {
					t.Errorf("diagnostic %q, body %d bytes", de.Diagnostic(), len(de.Body))
				}
				return
			}
			if err != nil {
				var de *DeliveryError
				if errors.As(err, &de) {
					t.Fatalf("Deliver: %s", de.Diagnostic())
				}
				t.Fatalf("Deliver: %v", err)
			}
			if resp.Status != tt.want.status || resp.ViaCallback != tt.want.viaCallback || resp.Type != tt.want.typ {
				t.Errorf("resp = %+v, want %+v", resp, tt.want)
			}
			if got := string(resp.Data); got != tt.want.data {
				t.Errorf("Data = %q, want %q", got, tt.want.data)
			}
			if resp.Multipart != tt.want.multipart || (tt.want.multipart != "" && !strings.Contains(string(resp.Body), "payload_json")) {
				t.Errorf("Multipart = %q (body %q), want %q", resp.Multipart, resp.Body, tt.want.multipart)
			}
		})
	}
}

func TestDeliverHeaders(t *testing.T) {
	priv, pub := testKey(t)
	var mu sync.Mutex
	var got *http.Request
	var gotBody []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, gotBody = r, b
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()

	d := New(Config{Now: func() time.Time { return fixedNow }})
	body := []byte(`{"type":2,"id":"42"}`)
	resp, err := d.Deliver(context.Background(), srv.URL+"/interactions?x=1", priv, body)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// What the delivery reports it sent is what the endpoint got.
	if resp.Signed.Signature != got.Header.Get(HeaderSignature) || resp.Signed.Timestamp != got.Header.Get(HeaderTimestamp) {
		t.Errorf("reported %+v, sent %q %q", resp.Signed, got.Header.Get(HeaderSignature), got.Header.Get(HeaderTimestamp))
	}
	if got.Method != http.MethodPost || got.URL.Path != "/interactions" || got.URL.RawQuery != "x=1" {
		t.Errorf("request %s %s", got.Method, got.URL)
	}
	if ct := got.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if ua := got.Header.Get("User-Agent"); !strings.HasPrefix(ua, "slashd (") || !strings.HasSuffix(ua, ")") {
		t.Errorf("User-Agent = %q", ua)
	}
	ts, sig := got.Header.Get(HeaderTimestamp), got.Header.Get(HeaderSignature)
	if ts != "1700000000" {
		t.Errorf("timestamp = %q", ts)
	}
	if len(sig) != 128 {
		t.Errorf("signature %q has %d chars", sig, len(sig))
	}
	if string(gotBody) != string(body) {
		t.Errorf("body = %q", gotBody)
	}
	if !Verify(pub, sig, ts, gotBody) {
		t.Error("signature does not verify with the public key")
	}
}

func TestDeliverNetworkErrors(t *testing.T) {
	priv, _ := testKey(t)
	d := New(Config{Timeout: 5 * time.Second})

	srv := httptest.NewServer(http.NotFoundHandler())
	closedURL := srv.URL
	srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	live := httptest.NewServer(http.NotFoundHandler())
	defer live.Close()

	tests := []struct {
		name     string
		ctx      context.Context
		endpoint string
		isErr    error
	}{
		{"closed server", context.Background(), closedURL, nil},
		{"bad url", context.Background(), "http://[::1", nil},
		{"unsupported scheme", context.Background(), "ftp://example.invalid/", nil},
		{"cancelled context", ctx, live.URL, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Deliver(tt.ctx, tt.endpoint, priv, []byte(`{}`))
			var de *DeliveryError
			if !errors.As(err, &de) || de.Kind != KindNetwork {
				t.Fatalf("err = %v (%T), want network DeliveryError", err, err)
			}
			if err.Error() != MessageFailed {
				t.Errorf("Error() = %q", err.Error())
			}
			if tt.isErr != nil && !errors.Is(err, tt.isErr) {
				t.Errorf("errors.Is(%v, %v) = false", de.Err, tt.isErr)
			}
		})
	}
}

func TestDeliverBadKey(t *testing.T) {
	d := New(Config{})
	_, err := d.Deliver(context.Background(), "http://127.0.0.1:1/", ed25519.PrivateKey(make([]byte, 32)), nil)
	var de *DeliveryError
	if err == nil || errors.As(err, &de) {
		t.Fatalf("err = %v, want a plain key error", err)
	}
}

func TestDefaults(t *testing.T) {
	d := New(Config{})
	if d.timeout != 3*time.Second {
		t.Errorf("timeout = %v", d.timeout)
	}
	if d.maxBody != DefaultMaxResponseBytes || d.client == nil || d.now == nil {
		t.Errorf("defaults not applied: %+v", d)
	}
	if d.client == http.DefaultClient {
		t.Error("default client must not be shared http.DefaultClient")
	}
}

// The Response data is usable as-is.
func TestDeliverDataDecodes(t *testing.T) {
	priv, pub := testKey(t)
	srv := appServer(t, pub, jsonAnswer(200, `{"type":4,"data":{"content":"pong","embeds":[]}}`))
	resp, err := New(Config{}).Deliver(context.Background(), srv.URL, priv, []byte(`{"type":2}`))
	if err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(resp.Data, &msg); err != nil || msg.Content != "pong" {
		t.Fatalf("data %s: %v", resp.Data, err)
	}
}

func TestDeliverCallerDeadlineIsTimeout(t *testing.T) {
	priv, pub := testKey(t)
	release := make(chan struct{})
	defer close(release)
	srv := appServer(t, pub, blockUntilGone(release))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := New(Config{Timeout: 5 * time.Second}).Deliver(ctx, srv.URL, priv, []byte(`{}`))
	var de *DeliveryError
	if !errors.As(err, &de) || de.Kind != KindTimeout || err.Error() != MessageNoResponse {
		t.Fatalf("err = %v, want timeout DeliveryError", err)
	}
}

// Concurrent deliveries to one app reuse their connections: rounds of
// parallel deliveries open few more connections than the first round
// did, for any answer the app gives (inline, deferred, refused).
func TestDeliverKeepsConnectionsAlive(t *testing.T) {
	priv, pub := testKey(t)
	const parallel = 8
	for _, answer := range []struct {
		name string
		h    http.HandlerFunc
	}{
		{"inline", jsonAnswer(http.StatusOK, `{"type":4,"data":{"content":"hi"}}`)},
		{"deferred", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) }},
		{"refused", jsonAnswer(http.StatusInternalServerError, `{"message":"`+strings.Repeat("x", 4000)+`"}`)},
	} {
		t.Run(answer.name, func(t *testing.T) {
			var mu sync.Mutex
			opened := 0
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if !Verify(pub, r.Header.Get(HeaderSignature), r.Header.Get(HeaderTimestamp), body) {
					http.Error(w, "invalid request signature", http.StatusUnauthorized)
					return
				}
				answer.h(w, r)
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					mu.Lock()
					opened++
					mu.Unlock()
				}
			}
			srv.Start()
			t.Cleanup(srv.Close)
			d := New(Config{})
			for range 10 {
				var wg sync.WaitGroup
				for range parallel {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, _ = d.Deliver(t.Context(), srv.URL, priv, []byte(`{"type":2}`))
					}()
				}
				wg.Wait()
			}
			mu.Lock()
			defer mu.Unlock()
			// A connection goes back to the pool a moment after its
			// delivery returns, so on a loaded machine a round may start
			// before the last one's are all back and open a few more.
			// The bound leaves room for that and still fails the old
			// pool of 2 idle connections, which opened about 60.
			if limit := 3 * parallel; opened > limit {
				t.Errorf("%d connections opened for 10 rounds of %d parallel deliveries, want at most %d", opened, parallel, limit)
			}
		})
	}
}

// A multipart answer (a message with its files) may be larger than a
// JSON one, up to MaxMultipartBytes, within what Reserve grants: it is
// reserved before the body is read (its Content-Length) and released by
// the caller, or by the Deliverer when the answer is refused.
func TestDeliverMultipartReserve(t *testing.T) {
	priv, pub := testKey(t)
	form := func(size int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			body := "--b\r\nContent-Disposition: form-data; name=\"payload_json\"\r\n\r\n{\"type\":4}\r\n--b\r\n" +
				"Content-Disposition: form-data; name=\"files[0]\"; filename=\"a.bin\"\r\n\r\n" + strings.Repeat("x", size) + "\r\n--b--\r\n"
			w.Header().Set("Content-Type", "multipart/form-data; boundary=b")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			io.WriteString(w, body)
		}
	}
	var mu sync.Mutex
	var reserved []int64
	held := 0
	d := New(Config{Now: func() time.Time { return fixedNow }, MaxResponseBytes: 1000, MaxMultipartBytes: 5000,
		Reserve: func(_ context.Context, n int64) (func(), error) {
			mu.Lock()
			defer mu.Unlock()
			reserved = append(reserved, n)
			held++
			return func() { mu.Lock(); held--; mu.Unlock() }, nil
		}})
	holding := func() int { mu.Lock(); defer mu.Unlock(); return held }

	resp, err := d.Deliver(context.Background(), appServer(t, pub, form(3000)).URL, priv, []byte(`{"type":2}`))
	if err != nil || resp.Multipart == "" || len(resp.Body) < 3000 {
		t.Fatalf("a 3000-byte form: %v, %d bytes", err, len(resp.Body))
	}
	if holding() != 1 || reserved[0] != int64(len(resp.Body)) {
		t.Fatalf("reserved %v, holding %d; want the answer's length, held until Release", reserved, holding())
	}
	resp.Release()
	if holding() != 0 {
		t.Fatalf("holding %d after Release", holding())
	}

	_, err = d.Deliver(context.Background(), appServer(t, pub, form(6000)).URL, priv, []byte(`{"type":2}`))
	var de *DeliveryError
	if !errors.As(err, &de) || de.Kind != KindBadResponse {
		t.Fatalf("a 6000-byte form: %v, want a bad response", err)
	}
	if holding() != 0 {
		t.Fatalf("holding %d after a refused answer", holding())
	}
	// JSON keeps its own cap.
	_, err = d.Deliver(context.Background(), appServer(t, pub, jsonAnswer(200, `{"type":4,"data":{"content":"`+
		strings.Repeat("x", 2000)+`"}}`)).URL, priv, []byte(`{"type":2}`))
	if !errors.As(err, &de) || de.Kind != KindBadResponse {
		t.Fatalf("a 2000-byte JSON answer: %v, want a bad response", err)
	}
}
