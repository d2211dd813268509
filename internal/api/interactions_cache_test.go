package api_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

// worldAdmin calls the admin API and checks the status.
func worldAdmin(t *testing.T, e *testenv.Env, method, path string, body any, status int) {
	t.Helper()
	if r := e.Do(method, "/admin/v1"+path, e.AdminAuth(), body); r.Status != status {
		t.Fatalf("%s /admin/v1%s: %d %s, want %d", method, path, r.Status, r.Body, status)
	}
}

// A warm invocation reads nothing of the world from the database: the
// store's metrics (which count what reaches it, below the cache) see
// its one write, the record with its inline answer, and nothing else.
func TestWarmInvocationReadsTheWorldFromMemory(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(jsonObj{"name": "ping", "description": "Ping"})
	body := w.invocation(2, cmd)
	if r := w.invoke(body); r.Status != http.StatusOK {
		t.Fatalf("first invocation: %d %s", r.Status, r.Body)
	}
	before := scrape(t, e)
	if r := w.invoke(body); r.Status != http.StatusOK {
		t.Fatalf("second invocation: %d %s", r.Status, r.Body)
	}
	after := scrape(t, e)
	const count = "slashd_store_operation_duration_seconds_count"
	calls := map[string]float64{}
	for _, op := range after.LabelValues(count, "op") {
		if n := value(after, count, labels{"op": op}) - value(before, count, labels{"op": op}); n != 0 {
			calls[op] = n
		}
	}
	// The janitor may run meanwhile; it reads nothing of the world.
	delete(calls, "DeleteInteractionsBefore")
	delete(calls, "DeleteRateLimitsBefore")
	if len(calls) != 1 || calls["CreateAnsweredInteraction"] != 1 {
		t.Errorf("store calls of a warm invocation: %v, want CreateAnsweredInteraction once", calls)
	}
}

// Every world write through the API is seen by the next invocation,
// however warm the caches: roles, overwrites, memberships, users,
// channels, installations.
func TestInvocationSeesEveryWorldWrite(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(jsonObj{"name": "ping", "description": "Ping"})
	body := w.invocation(2, cmd)
	invoke := func(step string, status int) {
		t.Helper()
		if r := w.invoke(body); r.Status != status {
			t.Fatalf("%s: invocation %d %s, want %d", step, r.Status, r.Body, status)
		}
	}
	invoke("warm", http.StatusOK)

	// A role that may not view the channel, then the member given it.
	hidden := w.role("hidden", "0", 1)
	worldAdmin(t, e, "PATCH", "/guilds/"+w.guild+"/channels/"+w.channel, jsonObj{"permission_overwrites": []jsonObj{
		{"id": hidden, "type": 0, "allow": "0", "deny": permViewChannel},
	}}, http.StatusOK)
	invoke("overwrite for a role the member lacks", http.StatusOK)
	w.world.member(w.member, hidden)
	invoke("member given the hidden role", http.StatusForbidden)
	worldAdmin(t, e, "DELETE", "/guilds/"+w.guild+"/roles/"+hidden, nil, http.StatusNoContent)
	invoke("hidden role deleted", http.StatusOK)
	if roles := w.last().Member.Roles; len(roles) != 0 {
		t.Errorf("member's roles after the role's deletion: %v", roles)
	}

	// The user's locale, the channel's name: as the app receives them.
	worldAdmin(t, e, "PATCH", "/users/"+w.member, jsonObj{"locale": "fr"}, http.StatusOK)
	worldAdmin(t, e, "PATCH", "/guilds/"+w.guild+"/channels/"+w.channel, jsonObj{"name": "renamed"}, http.StatusOK)
	invoke("locale and channel name changed", http.StatusOK)
	if got := w.last(); got.Locale != "fr" || got.Channel == nil || got.Channel.Name != "renamed" {
		t.Errorf("delivered locale %q, channel %+v; want fr and renamed", got.Locale, got.Channel)
	}

	// The app uninstalled, then back; the member removed.
	w.uninstall(w.app)
	if r := w.invoke(body); r.Status < 400 {
		t.Fatalf("after uninstall: %d %s", r.Status, r.Body)
	}
	w.install(w.app)
	invoke("installed again", http.StatusOK)
	worldAdmin(t, e, "DELETE", "/guilds/"+w.guild+"/members/"+w.member, nil, http.StatusNoContent)
	invoke("member removed", http.StatusForbidden)
}

// A write around the server, straight to its SQLite store (as the CLI
// makes on a running server's data directory), is seen by the next
// invocation too: the world clock moved.
func TestInvocationSeesWritesAroundTheServer(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(jsonObj{"name": "ping", "description": "Ping"})
	body := w.invocation(2, cmd)
	if r := w.invoke(body); r.Status != http.StatusOK {
		t.Fatalf("warm: %d %s", r.Status, r.Body)
	}
	ctx := context.Background()
	id, err := snowflake.Parse(w.member)
	if err != nil {
		t.Fatal(err)
	}
	u, err := e.Store.User(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	u.Locale = "de"
	if err := e.Store.UpdateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	gid, _ := snowflake.Parse(w.guild)
	if err := e.Store.DeleteMember(ctx, gid, id); err != nil {
		t.Fatal(err)
	}
	if r := w.invoke(body); r.Status != http.StatusForbidden {
		t.Fatalf("after the member was removed around the server: %d %s, want 403", r.Status, r.Body)
	}
	if err := e.Store.PutMember(ctx, guild.Member{GuildID: gid, UserID: id}); err != nil {
		t.Fatal(err)
	}
	if r := w.invoke(body); r.Status != http.StatusOK {
		t.Fatalf("member again: %d %s", r.Status, r.Body)
	}
	if got := w.last(); got.Locale != "de" || !slices.Equal(got.Member.Roles, []string{}) {
		t.Errorf("delivered locale %q, roles %v; want de and none", got.Locale, got.Member.Roles)
	}
}
