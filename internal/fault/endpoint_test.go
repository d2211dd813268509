package fault_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// TestEndpointDeliveryFaults: the delivery faults act alike on an app
// with an Interactions Endpoint URL: a dropped delivery never reaches the
// endpoint, an answered-for one reaches it after slashd answered, and
// its inline answer is not the member's.
func TestEndpointDeliveryFaults(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e, "endpoint-faults")
	var key struct {
		PublicKey string `json:"public_key"`
	}
	res := e.Do("GET", "/admin/v1/applications/"+w.AppID(), e.AdminAuth(), nil)
	res.JSON(t, &key)
	got := make(chan string, 8)
	endpoint := httptest.NewServer(interactions.Handler(key.PublicKey, func(_ context.Context, i *interactions.Interaction) (interactions.Response, error) {
		got <- i.ID
		return interactions.Message("from the endpoint"), nil
	}))
	t.Cleanup(endpoint.Close)
	if r := e.Do("PUT", "/admin/v1/applications/"+w.AppID()+"/interactions-endpoint", e.AdminAuth(),
		map[string]any{"interactions_endpoint_url": endpoint.URL}); r.Status != 200 {
		t.Fatalf("set endpoint: %d %s", r.Status, r.Body)
	}
	m := newMember(t, e, w)

	addFault(t, e, w, map[string]any{"kind": "delivery.drop", "app": "modbot"})
	noResponse(t, recv(t, m.invoke(), "the dropped invocation"))
	r := recv(t, m.invoke(), "the next invocation")
	if r.status != 200 || !strings.Contains(string(r.body), "from the endpoint") {
		t.Fatalf("next invocation: %d %s", r.status, r.body)
	}
	// The endpoint's first interaction is the second invocation's.
	if id := recv(t, got, "the endpoint's first interaction"); !strings.Contains(string(r.body), `"id":"`+id+`"`) {
		t.Errorf("the endpoint got %s first; the second invocation was %s", id, r.body)
	}

	addFault(t, e, w, map[string]any{"kind": "delivery.answered", "app": "modbot"})
	r = recv(t, m.invoke(), "the answered-for invocation")
	if r.status != 200 || !strings.Contains(string(r.body), "a delivery.answered fault") {
		t.Fatalf("answered for: %d %s", r.status, r.body)
	}
	id := recv(t, got, "the answered-for interaction at the endpoint")
	if !strings.Contains(string(r.body), `"id":"`+id+`"`) {
		t.Errorf("the endpoint got %s; the invocation was %s", id, r.body)
	}
}

// TestFiredIsReported: a firing reaches the journal's hook with its
// world, fault and what it hit, and the metric by kind.
func TestFiredIsReported(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e, "fired-reported")
	type firing struct {
		world  snowflake.ID
		f      store.Fault
		detail string
	}
	fired := make(chan firing, 4)
	e.API.Faults().OnFired(func(_ context.Context, world snowflake.ID, f store.Fault, detail string) {
		fired <- firing{world, f, detail}
	})
	f := addFault(t, e, w, map[string]any{"kind": "rest.500", "app": "modbot"})
	path := "/api/v10/applications/" + w.AppID() + "/commands"
	if r := e.Do("GET", path, w.Bot(), nil); r.Status != 500 {
		t.Fatalf("status %d", r.Status)
	}
	got := recv(t, fired, "the hook")
	if got.world.String() != w.ID || got.f.ID.String() != f.ID || got.f.Kind != "rest.500" || got.f.Fired != 1 ||
		got.detail != "GET "+path {
		t.Errorf("hook got %+v", got)
	}
	metrics := e.Do("GET", "/metrics", "", nil)
	if !strings.Contains(string(metrics.Body), `slashd_faults_fired_total{kind="rest.500"} 1`) {
		t.Errorf("metrics without the firing:\n%s", metrics.Body)
	}
}
