package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// pongApp answers a PING with {"type":1} (after appServer checked the
// signature) and records the PINGs it saw.
type pongApp struct {
	mu    sync.Mutex
	pings []map[string]any
}

func (a *pongApp) handle(w http.ResponseWriter, r *http.Request) {
	var in map[string]any
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	a.pings = append(a.pings, in)
	a.mu.Unlock()
	if in["type"] == float64(1) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":1}`)
		return
	}
	http.Error(w, "unexpected", http.StatusBadRequest)
}

func TestVerifyEndpointGoodApp(t *testing.T) {
	priv, pub := testKey(t)
	app := &pongApp{}
	srv := appServer(t, pub, app.handle)
	d := New(Config{Now: func() time.Time { return fixedNow }, Timeout: 5 * time.Second})

	if err := d.VerifyEndpoint(context.Background(), srv.URL+"/interactions", priv); err != nil {
		t.Fatalf("VerifyEndpoint: %v", err)
	}
	ping := Ping{ID: "111", ApplicationID: "222", Token: "tok"}
	if err := d.VerifyEndpointPing(context.Background(), srv.URL, priv, ping); err != nil {
		t.Fatalf("VerifyEndpointPing: %v", err)
	}

	app.mu.Lock()
	defer app.mu.Unlock()
	if len(app.pings) != 2 {
		t.Fatalf("app saw %d correctly signed PINGs, want 2 (the bad-signature probes must not pass)", len(app.pings))
	}
	first := app.pings[0]
	for _, k := range []string{"id", "application_id", "token"} {
		if s, ok := first[k].(string); !ok || s == "" {
			t.Errorf("generated PING %s = %v", k, first[k])
		}
	}
	if first["version"] != float64(1) || first["type"] != float64(1) {
		t.Errorf("PING type/version = %v/%v", first["type"], first["version"])
	}
	second := app.pings[1]
	if second["id"] != "111" || second["application_id"] != "222" || second["token"] != "tok" {
		t.Errorf("PING identity not used: %v", second)
	}
}

func TestVerifyEndpointBadApps(t *testing.T) {
	priv, pub := testKey(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })

	pong := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":1}`)
	}
	tests := []struct {
		name string
		// checked: the handler runs behind signature checking (401 on bad).
		checked bool
		handler http.HandlerFunc
		check   string
		kind    ErrorKind // for transport failures
	}{
		{"wrong PONG type", true, jsonAnswer(200, `{"type":4}`), CheckPing, 0},
		{"PONG not JSON", true, jsonAnswer(200, `pong`), CheckPing, 0},
		{"PONG empty", true, jsonAnswer(200, ``), CheckPing, 0},
		{"PONG without type", true, jsonAnswer(200, `{}`), CheckPing, 0},
		{"PONG string type", true, jsonAnswer(200, `{"type":"1"}`), CheckPing, 0},
		{"PONG wrong content type", true, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, `{"type":1}`)
		}, CheckPing, 0},
		{"PONG with 204", true, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }, CheckPing, 0},
		{"PONG with 500", true, jsonAnswer(500, `{"type":1}`), CheckPing, 0},
		{"accepts bad signatures", false, pong, CheckBadSignature, 0},
		{"bad signature gets 403", false, func(w http.ResponseWriter, r *http.Request) {
			if !Verify(pub, r.Header.Get(HeaderSignature), r.Header.Get(HeaderTimestamp), mustRead(r)) {
				w.WriteHeader(http.StatusForbidden)
				return
			}
			pong(w, r)
		}, CheckBadSignature, 0},
		{"401s everything", false, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
		}, CheckPing, 0},
		{"times out", false, blockUntilGone(release), CheckPing, KindTimeout},
		{"times out on bad signature", false, func(w http.ResponseWriter, r *http.Request) {
			if !Verify(pub, r.Header.Get(HeaderSignature), r.Header.Get(HeaderTimestamp), mustRead(r)) {
				blockUntilGone(release)(w, r)
				return
			}
			pong(w, r)
		}, CheckBadSignature, KindTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var srv *httptest.Server
			if tt.checked {
				srv = appServer(t, pub, tt.handler)
			} else {
				srv = httptest.NewServer(tt.handler)
				t.Cleanup(srv.Close)
			}
			d := New(Config{Timeout: 200 * time.Millisecond})
			if tt.kind == 0 {
				d = New(Config{Timeout: 5 * time.Second})
			}
			err := d.VerifyEndpoint(context.Background(), srv.URL, priv)
			var ve *VerificationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v (%T), want *VerificationError", err, err)
			}
			if ve.Check != tt.check {
				t.Errorf("Check = %q, want %q (%v)", ve.Check, tt.check, err)
			}
			if !strings.Contains(err.Error(), tt.check) || ve.Reason == "" {
				t.Errorf("Error() = %q", err.Error())
			}
			if tt.kind != 0 {
				var de *DeliveryError
				if !errors.As(err, &de) || de.Kind != tt.kind {
					t.Errorf("underlying = %v, want DeliveryError kind %v", ve.Err, tt.kind)
				}
			}
		})
	}
}

func mustRead(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}

func TestVerifyEndpointClosedServerAndBadURL(t *testing.T) {
	priv, _ := testKey(t)
	d := New(Config{Timeout: 5 * time.Second})

	srv := httptest.NewServer(http.NotFoundHandler())
	closedURL := srv.URL
	srv.Close()
	err := d.VerifyEndpoint(context.Background(), closedURL, priv)
	var ve *VerificationError
	var de *DeliveryError
	if !errors.As(err, &ve) || ve.Check != CheckPing || !errors.As(err, &de) || de.Kind != KindNetwork {
		t.Fatalf("closed server: err = %v", err)
	}

	err = d.VerifyEndpoint(context.Background(), "ftp://example.com/", priv)
	if !errors.As(err, &ve) || ve.Check != CheckURL || !errors.Is(err, ErrInvalidEndpointURL) {
		t.Fatalf("bad URL: err = %v", err)
	}
}

func TestValidateEndpointURL(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", MaxEndpointURLLength-len("https://example.com/"))
	tests := []struct {
		url string
		ok  bool
	}{
		{"https://example.com/interactions", true},
		{"http://localhost:8080/i", true},
		{"http://127.0.0.1:3000", true},
		{"http://[::1]:3000/x?y=z", true},
		{"HTTPS://Example.com/", true},
		{long, true},
		{long + "a", false},
		{"", false},
		{"example.com/interactions", false},
		{"/interactions", false},
		{"//example.com/x", false},
		{"ftp://example.com/", false},
		{"ws://example.com/", false},
		{"javascript:alert(1)", false},
		{"http:example.com", false},
		{"https://", false},
		{"https:///path", false},
		{"https://example.com/#frag", false},
		{"https://example.com/#", false},
		{"https://exa mple.com/", false},
		{"https://example.com/\n", false},
		{"https://example.com:99999/", false},
		{"https://example.com:0/", false},
		{"https://[::1/", false},
	}
	for _, tt := range tests {
		name := tt.url
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			err := ValidateEndpointURL(tt.url)
			if (err == nil) != tt.ok {
				t.Fatalf("ValidateEndpointURL(%q) = %v, want ok=%v", tt.url, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalidEndpointURL) {
				t.Errorf("error %v does not wrap ErrInvalidEndpointURL", err)
			}
		})
	}
}
