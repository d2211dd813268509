package interactions

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

// The live counterpart of these tests, against a real slashd, is
// examples/bot/e2e_test.go: this package imports nothing but the
// standard library, tests included.

// recorded is one request the fake service received.
type recorded struct {
	method, path, rawQuery, contentType, userAgent string
	body                                           string
}

// fakeService answers every request with status and body, and records it.
type fakeService struct {
	mu       sync.Mutex
	requests []recorded
	status   int
	body     string
	header   http.Header
}

func newFake(t *testing.T, status int, body string) (*fakeService, *Client) {
	t.Helper()
	f := &fakeService{status: status, body: body}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.requests = append(f.requests, recorded{method: r.Method, path: r.URL.EscapedPath(), rawQuery: r.URL.RawQuery,
			contentType: r.Header.Get("Content-Type"), userAgent: r.Header.Get("User-Agent"), body: string(b)})
		status, body, header := f.status, f.body, f.header
		f.mu.Unlock()
		for k, v := range header {
			w.Header()[k] = v
		}
		if body != "" && w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return f, &Client{BaseURL: srv.URL, HTTP: srv.Client()}
}

// only returns the one request received.
func (f *fakeService) only(t *testing.T) recorded {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) != 1 {
		t.Fatalf("%d requests, want 1: %+v", len(f.requests), f.requests)
	}
	return f.requests[0]
}

func (f *fakeService) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

const sentMessage = `{"id":"900","type":20,"channel_id":"42","author":{"id":"7","username":"bot","bot":true},` +
	`"content":"hello","flags":64,"embeds":[{"title":"t"}],"components":[],` +
	`"timestamp":"2025-06-01T12:00:00.123456+00:00","edited_timestamp":null,"application_id":"7","webhook_id":"7","pinned":false}`

func checkSentMessage(t *testing.T, m ChannelMessage) {
	t.Helper()
	want := time.Date(2025, 6, 1, 12, 0, 0, 123456000, time.UTC)
	if m.ID != "900" || m.Type != 20 || m.ChannelID != "42" || m.Author.ID != "7" || !m.Author.Bot ||
		m.Content != "hello" || m.Flags != FlagEphemeral || len(m.Embeds) != 1 || string(m.Embeds[0]) != `{"title":"t"}` ||
		m.Components == nil || len(m.Components) != 0 || !m.Timestamp.Equal(want) || m.EditedTimestamp != nil ||
		m.ApplicationID != "7" || m.WebhookID != "7" {
		t.Fatalf("message = %+v", m)
	}
	if string(m.Raw) != sentMessage {
		t.Fatalf("Raw = %s", m.Raw)
	}
}

func TestClientRespond(t *testing.T) {
	f, c := newFake(t, http.StatusNoContent, "")
	if err := c.Respond(context.Background(), "123", "tok", Message("hi", Ephemeral())); err != nil {
		t.Fatal(err)
	}
	r := f.only(t)
	if r.method != "POST" || r.path != "/api/v10/interactions/123/tok/callback" || r.rawQuery != "" ||
		r.contentType != "application/json" || r.body != `{"type":4,"data":{"content":"hi","flags":64}}` {
		t.Fatalf("request = %+v", r)
	}
	if !strings.HasPrefix(r.userAgent, "DiscordBot (") {
		t.Fatalf("User-Agent %q", r.userAgent)
	}
}

func TestClientRespondWithResult(t *testing.T) {
	body := `{"interaction":{"id":"123","type":2,"response_message_id":"900","response_message_loading":false,` +
		`"response_message_ephemeral":true},"resource":{"type":4,"message":` + sentMessage + `}}`
	f, c := newFake(t, http.StatusOK, body)
	res, err := c.RespondWithResult(context.Background(), "123", "tok", Message("hello", Ephemeral()))
	if err != nil {
		t.Fatal(err)
	}
	r := f.only(t)
	if r.method != "POST" || r.path != "/api/v10/interactions/123/tok/callback" || r.rawQuery != "with_response=true" {
		t.Fatalf("request = %+v", r)
	}
	if res.Interaction.ID != "123" || res.Interaction.Type != InteractionApplicationCommand ||
		res.Interaction.ResponseMessageID != "900" || res.Interaction.ResponseMessageLoading ||
		!res.Interaction.ResponseMessageEphemeral || res.Resource == nil || res.Resource.Type != CallbackChannelMessageWithSource ||
		res.Resource.Message == nil || string(res.Raw) != body {
		t.Fatalf("result = %+v", res)
	}
	checkSentMessage(t, *res.Resource.Message)
}

func TestClientRespondWithResultActivity(t *testing.T) {
	body := `{"interaction":{"id":"123","type":2,"activity_instance_id":"i-1"},"resource":{"type":12,"activity_instance":{"id":"i-1"}}}`
	_, c := newFake(t, http.StatusOK, body)
	res, err := c.RespondWithResult(context.Background(), "123", "tok", LaunchActivity())
	if err != nil {
		t.Fatal(err)
	}
	if res.Interaction.ActivityInstanceID != "i-1" || res.Resource.Type != CallbackLaunchActivity ||
		res.Resource.ActivityInstance == nil || res.Resource.ActivityInstance.ID != "i-1" || res.Resource.Message != nil {
		t.Fatalf("result = %+v", res)
	}
}

func TestClientFollowup(t *testing.T) {
	f, c := newFake(t, http.StatusOK, sentMessage)
	m, err := c.Followup(context.Background(), "7", "tok", MessageData{Content: "hello", Flags: FlagEphemeral})
	if err != nil {
		t.Fatal(err)
	}
	r := f.only(t)
	if r.method != "POST" || r.path != "/api/v10/webhooks/7/tok" || r.rawQuery != "" ||
		r.contentType != "application/json" || r.body != `{"content":"hello","flags":64}` {
		t.Fatalf("request = %+v", r)
	}
	checkSentMessage(t, m)
}

func TestClientWebhookMessages(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name       string
		status     int
		call       func(c *Client) (ChannelMessage, error)
		method     string
		path, body string
	}{
		{"get original", 200, func(c *Client) (ChannelMessage, error) { return c.GetOriginal(ctx, "7", "tok") },
			"GET", "/api/v10/webhooks/7/tok/messages/@original", ""},
		{"get follow-up", 200, func(c *Client) (ChannelMessage, error) { return c.GetFollowup(ctx, "7", "tok", "901") },
			"GET", "/api/v10/webhooks/7/tok/messages/901", ""},
		{"edit original", 200, func(c *Client) (ChannelMessage, error) {
			return c.EditOriginal(ctx, "7", "tok", EditData{Content: new("done")})
		}, "PATCH", "/api/v10/webhooks/7/tok/messages/@original", `{"content":"done"}`},
		{"edit follow-up", 200, func(c *Client) (ChannelMessage, error) {
			return c.EditFollowup(ctx, "7", "tok", "901", EditData{Flags: new(FlagSuppressEmbeds)})
		}, "PATCH", "/api/v10/webhooks/7/tok/messages/901", `{"flags":4}`},
		{"delete original", 204, func(c *Client) (ChannelMessage, error) {
			return ChannelMessage{}, c.DeleteOriginal(ctx, "7", "tok")
		}, "DELETE", "/api/v10/webhooks/7/tok/messages/@original", ""},
		{"delete follow-up", 204, func(c *Client) (ChannelMessage, error) {
			return ChannelMessage{}, c.DeleteFollowup(ctx, "7", "tok", "901")
		}, "DELETE", "/api/v10/webhooks/7/tok/messages/901", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := sentMessage
			if tc.status == 204 {
				body = ""
			}
			f, c := newFake(t, tc.status, body)
			m, err := tc.call(c)
			if err != nil {
				t.Fatal(err)
			}
			r := f.only(t)
			if r.method != tc.method || r.path != tc.path || r.body != tc.body {
				t.Fatalf("request = %+v", r)
			}
			if (tc.body != "") != (r.contentType == "application/json") {
				t.Fatalf("Content-Type %q with body %q", r.contentType, r.body)
			}
			if tc.status == 200 {
				checkSentMessage(t, m)
			}
		})
	}
}

// A 2xx answer that is not a message is an error, not an empty message.
func TestClientNotAMessage(t *testing.T) {
	_, c := newFake(t, http.StatusOK, `{}`)
	if _, err := c.GetOriginal(context.Background(), "7", "tok"); err == nil {
		t.Fatal("no error")
	}
	_, c = newFake(t, http.StatusOK, `[1]`)
	if _, err := c.GetOriginal(context.Background(), "7", "tok"); err == nil {
		t.Fatal("no error")
	}
}

func TestEditDataJSON(t *testing.T) {
	cases := []struct {
		name string
		e    EditData
		want string
	}{
		{"nothing", EditData{}, `{}`},
		{"content only", EditData{Content: new("done")}, `{"content":"done"}`},
		{"clear content", EditData{Content: new("")}, `{"content":""}`},
		{"zero flags", EditData{Flags: new(0)}, `{"flags":0}`},
		{"remove embeds and components", EditData{Embeds: []json.RawMessage{}, Components: []any{}},
			`{"components":[],"embeds":[]}`},
		{"components", EditData{Components: []any{Row(Button("counter:2", "+1", ButtonPrimary))}},
			`{"components":[{"type":1,"components":[{"type":2,"style":1,"label":"+1","custom_id":"counter:2"}]}]}`},
		{"embeds", EditData{Embeds: []json.RawMessage{json.RawMessage(`{"title":"t"}`)}}, `{"embeds":[{"title":"t"}]}`},
		{"no mentions", EditData{Content: new("@everyone"), AllowedMentions: &AllowedMentions{Parse: []string{}}},
			`{"allowed_mentions":{"parse":[]},"content":"@everyone"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.e)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("got %s, want %s", b, tc.want)
			}
		})
	}
}

func TestClientAPIError(t *testing.T) {
	cases := []struct {
		name       string
		status     int
		header     http.Header
		body       string
		want       APIError
		wantErrStr string
	}{
		{"unknown webhook", 404, nil, `{"message": "Unknown Webhook", "code": 10015}`,
			APIError{Status: 404, Code: CodeUnknownWebhook, Message: "Unknown Webhook"}, "HTTP 404: Unknown Webhook (code 10015)"},
		{"form errors", 400, nil,
			`{"code":50035,"message":"Invalid Form Body","errors":{"content":{"_errors":[{"code":"BASE_TYPE_MAX_LENGTH","message":"Must be 2000 or fewer in length."}]}}}`,
			APIError{Status: 400, Code: 50035, Message: "Invalid Form Body",
				Errors: json.RawMessage(`{"content":{"_errors":[{"code":"BASE_TYPE_MAX_LENGTH","message":"Must be 2000 or fewer in length."}]}}`)},
			"BASE_TYPE_MAX_LENGTH"},
		{"null errors", 400, nil, `{"code":50006,"message":"Cannot send an empty message","errors":null}`,
			APIError{Status: 400, Code: CodeEmptyMessage, Message: "Cannot send an empty message"}, "(code 50006)"},
		{"rate limited", 429, nil, `{"message":"You are being rate limited.","retry_after":1.5,"global":false}`,
			APIError{Status: 429, Message: "You are being rate limited.", RetryAfter: 1500 * time.Millisecond}, "HTTP 429"},
		{"rate limited, header only", 429, http.Header{"Retry-After": {"2"}}, ``,
			APIError{Status: 429, Message: "Too Many Requests", RetryAfter: 2 * time.Second}, "HTTP 429: Too Many Requests"},
		{"not JSON", 502, http.Header{"Content-Type": {"text/html"}}, `<html>bad gateway</html>`,
			APIError{Status: 502, Message: "Bad Gateway"}, "HTTP 502: Bad Gateway"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t, tc.status, tc.body)
			f.header = tc.header
			_, err := c.Followup(context.Background(), "7", "tok", MessageData{Content: "x"})
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, not an *APIError", err)
			}
			if ae.Status != tc.want.Status || ae.Code != tc.want.Code || ae.Message != tc.want.Message ||
				string(ae.Errors) != string(tc.want.Errors) || ae.RetryAfter != tc.want.RetryAfter {
				t.Fatalf("APIError = %+v, want %+v", *ae, tc.want)
			}
			if !strings.Contains(err.Error(), tc.wantErrStr) {
				t.Fatalf("Error() = %q, want it to contain %q", err.Error(), tc.wantErrStr)
			}
		})
	}
	// Every method reports non-2xx answers the same way.
	f, c := newFake(t, 404, `{"message":"Unknown interaction","code":10062}`)
	err := c.Respond(context.Background(), "1", "tok", Pong())
	var ae *APIError
	if !errors.As(err, &ae) || ae.Code != CodeUnknownInteraction {
		t.Fatalf("Respond: %v", err)
	}
	f.status, f.body = 400, `{"message":"Interaction has already been acknowledged.","code":40060}`
	if _, err := c.RespondWithResult(context.Background(), "1", "tok", Pong()); !errors.As(err, &ae) || ae.Code != CodeAlreadyAcknowledged {
		t.Fatalf("RespondWithResult: %v", err)
	}
	f.status, f.body = 401, `{"message":"Invalid Webhook Token","code":50027}`
	if err := c.DeleteOriginal(context.Background(), "7", "tok"); !errors.As(err, &ae) || ae.Code != CodeInvalidWebhookToken {
		t.Fatalf("DeleteOriginal: %v", err)
	}
}

func TestClientBaseURL(t *testing.T) {
	for _, suffix := range []string{"", "/", "/api/v10", "/api/v10/"} {
		f, c := newFake(t, http.StatusNoContent, "")
		c.BaseURL += suffix
		if err := c.Respond(context.Background(), "1", "tok", Pong()); err != nil {
			t.Fatalf("%q: %v", suffix, err)
		}
		if r := f.only(t); r.path != "/api/v10/interactions/1/tok/callback" {
			t.Fatalf("BaseURL suffix %q: path %s", suffix, r.path)
		}
	}
}

// Path segments are escaped: a token cannot change the route.
func TestClientEscapesPath(t *testing.T) {
	f, c := newFake(t, http.StatusNoContent, "")
	if err := c.DeleteFollowup(context.Background(), "7", "a/b?c", "9#x"); err != nil {
		t.Fatal(err)
	}
	if r := f.only(t); r.path != "/api/v10/webhooks/7/a%2Fb%3Fc/messages/9%23x" || r.rawQuery != "" {
		t.Fatalf("request = %+v", r)
	}
}

// Bad arguments fail before anything is sent.
func TestClientRefusesEmptyArguments(t *testing.T) {
	f, c := newFake(t, http.StatusNoContent, "")
	ctx := context.Background()
	errs := []error{
		c.Respond(ctx, "", "tok", Pong()),
		c.Respond(ctx, "1", "", Pong()),
		func() error { _, err := c.RespondWithResult(ctx, "1", "", Pong()); return err }(),
		func() error { _, err := c.Followup(ctx, "", "tok", MessageData{Content: "x"}); return err }(),
		func() error { _, err := c.GetOriginal(ctx, "7", ""); return err }(),
		func() error { _, err := c.EditFollowup(ctx, "7", "tok", "", EditData{}); return err }(),
		c.DeleteFollowup(ctx, "7", "tok", ""),
		(&Client{}).Respond(ctx, "1", "tok", Pong()),
	}
	for i, err := range errs {
		if err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
	if n := f.count(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

func TestClientContext(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	c := &Client{BaseURL: srv.URL}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := c.Respond(ctx, "1", "tok", Pong())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}
