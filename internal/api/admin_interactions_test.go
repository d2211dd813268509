package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// Setting an Interactions Endpoint URL verifies it first, as the real
// service does: a signed PING answered {"type":1} and a bad signature
// refused with 401. The good app here is the app-author SDK's handler.
func TestAdminInteractionsEndpoint(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	good := httptest.NewServer(interactions.Handler(e.App.PublicKey,
		func(context.Context, *interactions.Interaction) (interactions.Response, error) {
			return interactions.Message("hi"), nil
		}))
	defer good.Close()
	careless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"type":1}`)) // answers without checking signatures
	}))
	defer careless.Close()
	path := "/admin/v1/applications/" + e.App.ApplicationID + "/interactions-endpoint"
	refused := `{"message":"Invalid Form Body","code":50035,"errors":{"interactions_endpoint_url":{"_errors":[` +
		`{"code":"APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID","message":"The specified interactions endpoint url could not be verified."}]}}}`

	cases := []struct {
		name   string
		path   string
		body   string
		status int
		want   string // the error body, or the URL kept
	}{
		{"a verified app", path, `{"interactions_endpoint_url":"` + good.URL + `"}`, 200, good.URL},
		{"an app that skips signature checks", path, `{"interactions_endpoint_url":"` + careless.URL + `"}`, 400, refused},
		{"not a URL", path, `{"interactions_endpoint_url":"not a url"}`, 400, refused},
		{"cleared", path, `{"interactions_endpoint_url":""}`, 200, ""},
		{"unknown app", "/admin/v1/applications/1234567890/interactions-endpoint", `{"interactions_endpoint_url":""}`, 404,
			`{"message":"Unknown Application","code":10002}`},
	}
	for _, c := range cases { // in order: each step starts from the previous one's state
		r := e.Do("PUT", c.path, e.AdminAuth(), c.body)
		if r.Status != c.status {
			t.Fatalf("%s: %d %s", c.name, r.Status, r.Body)
		}
		if c.status != 200 {
			if string(r.Body) != c.want {
				t.Fatalf("%s: body\n got %s\nwant %s", c.name, r.Body, c.want)
			}
			continue
		}
		var app struct {
			URL string `json:"interactions_endpoint_url"`
		}
		e.Do("GET", "/admin/v1/applications/"+e.App.ApplicationID, e.AdminAuth(), nil).JSON(t, &app)
		if app.URL != c.want {
			t.Fatalf("%s: stored URL %q, want %q", c.name, app.URL, c.want)
		}
	}
	if r := e.Do("PUT", path, e.Bot(), `{"interactions_endpoint_url":""}`); r.Status != 401 {
		t.Fatalf("bot token on the admin API: %d", r.Status)
	}
}
