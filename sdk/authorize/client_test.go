package authorize

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func TestDefaultScopes(t *testing.T) {
	var c *Client // the methods do not need a client, like the reference SDK's statics
	if got := c.GetDefaultCommunicationScopes(); got != "openid sdk.social_layer" {
		t.Errorf("GetDefaultCommunicationScopes() = %q", got)
	}
	if got := c.GetDefaultPresenceScopes(); got != "openid sdk.social_layer_presence" {
		t.Errorf("GetDefaultPresenceScopes() = %q", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestWithHTTPClient(t *testing.T) {
	f := newFakeServer(t)
	var used bool
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		used = true
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := NewClient(f.URL, WithHTTPClient(hc), WithHTTPClient(nil), nil)
	if err := c.RevokeToken(t.Context(), 1, "tok"); err != nil || !used {
		t.Fatalf("err %v, custom client used %v", err, used)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestWithLogger(t *testing.T) {
	f := newFakeServer(t)
	var buf syncBuffer
	b := &browser{}
	c := NewClient(f.URL, WithBrowserOpener(b.open),
		WithLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	c.SetApplicationID(1)
	args, _ := newArgs(t, c)
	if _, err := c.Authorize(t.Context(), args); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"loopback listener started", "opening the browser", "/oauth2/authorize?client_id=1"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestOpenBrowserRefusesNonHTTP(t *testing.T) {
	for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "mygame:/authorize/callback", "%zz"} {
		if err := OpenBrowser(u); err == nil {
			t.Errorf("OpenBrowser(%q) accepted", u)
		}
	}
}

func TestSetApplicationID(t *testing.T) {
	c := NewClient("http://127.0.0.1:1")
	if c.ApplicationID() != 0 {
		t.Fatal("new client has an application id")
	}
	c.SetApplicationID(99)
	if c.ApplicationID() != 99 {
		t.Fatal("SetApplicationID")
	}
}
