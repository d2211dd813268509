package interactions

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestHandlerPing(t *testing.T) {
	k := newKey(t)
	called := false
	h := Handler(k.hex, func(context.Context, *Interaction) (Response, error) {
		called = true
		return Message("no"), nil
	})
	w := serve(h, k.request(pingBody))
	if w.Code != 200 || w.Body.String() != `{"type":1}` || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("PING → %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	if called {
		t.Fatal("handler called for PING")
	}
}

func TestHandlerRefusesBadSignature(t *testing.T) {
	k := newKey(t)
	h := Handler(k.hex, func(context.Context, *Interaction) (Response, error) {
		t.Error("handler called")
		return Pong(), nil
	})
	r := k.request(pingBody)
	r.Header.Set(HeaderTimestamp, "1")
	if w := serve(h, r); w.Code != http.StatusUnauthorized {
		t.Fatalf("bad signature → %d", w.Code)
	}
	r = k.request(pingBody)
	r.Header.Del(HeaderSignature)
	if w := serve(h, r); w.Code != http.StatusUnauthorized {
		t.Fatalf("no signature → %d", w.Code)
	}
	r = k.request(pingBody)
	r.Method = http.MethodGet
	if w := serve(h, r); w.Code != http.StatusMethodNotAllowed {
		t.Fatalf("GET → %d", w.Code)
	}
	if w := serve(h, k.request(`{"type":`)); w.Code != http.StatusBadRequest {
		t.Fatalf("bad JSON → %d", w.Code)
	}
}

func TestHandlerAnswers(t *testing.T) {
	k := newKey(t)
	h := Handler(k.hex, func(ctx context.Context, i *Interaction) (Response, error) {
		if ctx == nil {
			t.Error("nil context")
		}
		switch i.Type {
		case InteractionAutocomplete:
			f, _ := i.Data.Focused()
			s, _ := f.String()
			return Autocomplete(Choice{Name: s + "ple", Value: s + "ple"}), nil
		default:
			return Message(strings.Join(i.Data.SubcommandPath(), " "), Ephemeral()), nil
		}
	})
	w := serve(h, k.request(chatInputBody))
	if w.Code != 200 || w.Body.String() != `{"type":4,"data":{"content":"config set","flags":64}}` ||
		w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("chat input → %d %q", w.Code, w.Body)
	}
	w = serve(h, k.request(autocompleteBody))
	if w.Code != 200 || w.Body.String() != `{"type":8,"data":{"choices":[{"name":"apple","value":"apple"}]}}` {
		t.Fatalf("autocomplete → %d %q", w.Code, w.Body)
	}
}

func TestHandlerErrors(t *testing.T) {
	k := newKey(t)
	h := Handler(k.hex, func(context.Context, *Interaction) (Response, error) {
		return Response{}, errors.New("boom")
	})
	if w := serve(h, k.request(chatInputBody)); w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "boom") {
		t.Fatalf("handler error → %d %q", w.Code, w.Body)
	}
	h = Handler(k.hex, func(context.Context, *Interaction) (Response, error) { return Response{}, nil })
	if w := serve(h, k.request(chatInputBody)); w.Code != http.StatusInternalServerError {
		t.Fatalf("zero response → %d", w.Code)
	}
	h = Handler(k.hex, func(context.Context, *Interaction) (Response, error) {
		return Response{Type: CallbackChannelMessageWithSource, Data: make(chan int)}, nil
	})
	if w := serve(h, k.request(chatInputBody)); w.Code != http.StatusInternalServerError {
		t.Fatalf("unmarshalable response → %d", w.Code)
	}
}

func TestHandlerPanicsOnBadKey(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("no panic")
		}
	}()
	Handler("nothex", func(context.Context, *Interaction) (Response, error) { return Pong(), nil })
}

// Over a real connection, as the service will call it.
func TestHandlerOverHTTP(t *testing.T) {
	k := newKey(t)
	srv := httptest.NewServer(Handler(k.hex, func(context.Context, *Interaction) (Response, error) { return Pong(), nil }))
	defer srv.Close()
	r := k.request(pingBody)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(pingBody))
	req.Header = r.Header
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("→ %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
