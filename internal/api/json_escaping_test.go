package api_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// htmlEscaped reports whether b holds one of the escapes encoding/json's
// HTML escaping writes, which no other server does.
func htmlEscaped(b []byte) bool {
	return bytes.Contains(b, []byte(`\u003c`)) || bytes.Contains(b, []byte(`\u003e`)) || bytes.Contains(b, []byte(`\u0026`))
}

// Mentions (<@id>) and ampersands go out as they are in every JSON slashd
// writes: API answers, the delivery an endpoint verifies (signed over
// exactly those bytes), the invoker's answer and stored messages read
// back. A bot that checks the signature over JSON it re-serialized
// (slash-create) sees the same bytes as the ones signed.
func TestJSONIsWrittenWithoutHTMLEscaping(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	delivered := make(chan []byte, 1)
	app := endpointApp(t, e.App.PublicKey, func(rw http.ResponseWriter, r *http.Request, i *interactions.Interaction) {
		writeAnswer(rw, `{"type":4,"data":{"content":"hi <@`+w.member+`> & welcome"}}`)
	})
	// The endpoint sees the delivery's bytes before the SDK checks them.
	capture := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"type":2`) {
			delivered <- body
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		app.Config.Handler.ServeHTTP(rw, r)
	})
	front := httptest.NewServer(capture)
	t.Cleanup(front.Close)
	adminDo(t, e, "PUT", "/applications/"+w.app+"/interactions-endpoint", jsonObj{"interactions_endpoint_url": front.URL}, 200)

	cmd := w.command(with(chat("greet"), "description", "Greets <someone> & all",
		"options", []jsonObj{{"type": 3, "name": "who", "description": "Who <exactly>"}}))
	r := e.Do("GET", w.paths.guildCmd(cmd["id"].(string)), e.Bot(), nil)
	wantStatus(t, r, 200)
	if htmlEscaped(r.Body) || !bytes.Contains(r.Body, []byte(`"Greets <someone> & all"`)) {
		t.Fatalf("command read back as %s", r.Body)
	}

	mention := "<@" + w.member + "> & <#" + w.channel + ">"
	r = w.invoke(w.invocation(2, cmd, "options", []jsonObj{{"type": 3, "name": "who", "value": mention}}))
	wantStatus(t, r, 200)
	if htmlEscaped(r.Body) || !bytes.Contains(r.Body, []byte(`"hi <@`+w.member+`> & welcome"`)) {
		t.Fatalf("invoker's answer: %s", r.Body)
	}
	body := <-delivered
	if htmlEscaped(body) || !bytes.Contains(body, []byte(`"value":"`+mention+`"`)) {
		t.Fatalf("delivered payload: %s", body)
	}
	r = e.Do("GET", "/api/v10/channels/"+w.channel+"/messages", e.Bot(), nil)
	wantStatus(t, r, 200)
	if htmlEscaped(r.Body) || !bytes.Contains(r.Body, []byte(`> & welcome`)) {
		t.Fatalf("channel's messages: %s", r.Body)
	}
	// An error names what was sent as it was sent.
	r = e.Do("POST", w.paths.guildCmds(), e.Bot(), jsonObj{"name": "<bad>", "description": "x"})
	wantStatus(t, r, 400)
	if htmlEscaped(r.Body) {
		t.Fatalf("error body: %s", r.Body)
	}
}
