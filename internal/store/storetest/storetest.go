// Package storetest is the contract suite every store.Store backend must
// pass, in the manner of testing/fstest.TestFS: a backend's own test calls
// Run with a function that opens a fresh, empty store.
package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Run runs the contract suite against fresh stores made by open (each
// subtest calls open for an empty store). open should register the
// store's Close with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Helper()
	t.Run("Identity", func(t *testing.T) { testIdentity(t, open) })
	t.Run("Commands", func(t *testing.T) { testCommands(t, open) })
	t.Run("Permissions", func(t *testing.T) { testPermissions(t, open) })
	t.Run("World", func(t *testing.T) { testWorld(t, open) })
	t.Run("OAuth", func(t *testing.T) { testOAuth(t, open) })
	t.Run("InstallContexts", func(t *testing.T) { testInstallContexts(t, open) })
	t.Run("RateLimits", func(t *testing.T) { testRateLimits(t, open) })
	t.Run("Messages", func(t *testing.T) { testMessages(t, open) })
	t.Run("PrivateChannels", func(t *testing.T) { testPrivateChannels(t, open) })
	t.Run("WorldEvents", func(t *testing.T) { testWorldEvents(t, open) })
	t.Run("PlaygroundSessions", func(t *testing.T) { testPlaygroundSessions(t, open) })
	t.Run("WorldIDs", func(t *testing.T) { testWorldIDs(t, open) })
	t.Run("Faults", func(t *testing.T) { testFaults(t, open) })
	t.Run("Journal", func(t *testing.T) { testJournal(t, open) })
	t.Run("TestWorlds", func(t *testing.T) { testTestWorlds(t, open) })
	t.Run("Files", func(t *testing.T) { testFiles(t, open) })
}

// Ids of the seeded fixture. Command ids come from counters far above
// them, so that an app id never collides with a command id.
const (
	ownerID    snowflake.ID = 1
	appID      snowflake.ID = 10
	otherAppID snowflake.ID = 20
	guildID    snowflake.ID = 100
	guild2ID   snowflake.ID = 200

	idBase = 1_000_000
)

// Scopes of the fixture.
var (
	globalScope      = command.Scope{ApplicationID: appID}
	guildScope       = command.Scope{ApplicationID: appID, GuildID: guildID}
	guild2Scope      = command.Scope{ApplicationID: appID, GuildID: guild2ID}
	otherGlobalScope = command.Scope{ApplicationID: otherAppID}
	otherGuildScope  = command.Scope{ApplicationID: otherAppID, GuildID: guildID}
)

// ms is a timestamp with millisecond precision, the precision every
// backend must keep.
func ms(v int64) time.Time { return time.UnixMilli(v).UTC() }

// counter mints increasing ids above idBase; safe for concurrent use.
func counter() command.IDs {
	var n atomic.Uint64
	n.Store(idBase)
	return func() snowflake.ID { return snowflake.ID(n.Add(1)) }
}

// countdown mints decreasing ids, so that creation order and id order
// disagree and a listing has to sort by id to pass.
func countdown() command.IDs {
	var n atomic.Uint64
	n.Store(2 * idBase)
	return func() snowflake.ID { return snowflake.ID(n.Add(^uint64(0))) }
}

// fixture is an open store seeded with an owner, two applications (each
// with its bot user) and two guilds where both apps are installed.
type fixture struct {
	s   store.Store
	ctx context.Context
	ids command.IDs
}

func newFixture(t *testing.T, open func(t *testing.T) store.Store) *fixture {
	t.Helper()
	f := &fixture{s: open(t), ctx: t.Context(), ids: counter()}
	must(t, f.s.CreateUser(f.ctx, store.User{ID: ownerID, Username: "owner", CreatedAt: ms(1_600_000_000_000)}))
	for _, id := range []snowflake.ID{appID, otherAppID} {
		app, bot := newApp(id)
		must(t, f.s.CreateApplication(f.ctx, app, bot))
	}
	for _, id := range []snowflake.ID{guildID, guild2ID} {
		must(t, f.s.CreateGuild(f.ctx, store.Guild{ID: id, Name: "guild " + id.String(), OwnerID: ownerID,
			CreatedAt: ms(1_600_000_000_000)}))
		for _, app := range []snowflake.ID{appID, otherAppID} {
			must(t, f.s.Install(f.ctx, store.Installation{GuildID: id, ApplicationID: app,
				Scopes: []string{"bot", "applications.commands"}, CreatedAt: ms(1_600_000_000_000)}))
		}
	}
	return f
}

func newApp(id snowflake.ID) (store.Application, store.User) {
	created := ms(1_650_000_000_000 + int64(id))
	app := store.Application{
		ID:               id,
		Name:             "app " + id.String(),
		OwnerID:          ownerID,
		Flags:            1 << 17,
		IntegrationTypes: []int{0, 1},
		InstallParams: map[int]store.InstallParams{0: {Scopes: []string{"applications.commands", "bot"}, Permissions: 2048},
			1: {Scopes: []string{"applications.commands"}}},
		ClientSecretHash: []byte{0xde, 0xad, 0xbe, 0xef, byte(id)},
		PublicKey:        "0123456789abcdef",
		PrivateKey:       []byte{1, 2, 3, byte(id)},
		CreatedAt:        created,
	}
	bot := store.User{ID: id, Username: "bot" + id.String(), Bot: true, CreatedAt: created}
	return app, bot
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// parse builds a command definition the way the API does: JSON decoded
// with form.DecodeJSON, validated by command.Parse for the scope.
func parse(t *testing.T, scope command.Scope, mode command.Mode, body string) command.Parsed {
	t.Helper()
	v, err := form.DecodeJSON([]byte(body))
	if err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return parseValue(t, scope, mode, v)
}

func parseValue(t *testing.T, scope command.Scope, mode command.Mode, v any) command.Parsed {
	t.Helper()
	p, errs := command.Parse(v, command.Target{
		App:   command.App{ID: scope.ApplicationID, IntegrationTypes: []int{command.GuildInstall}},
		Scope: scope,
		Mode:  mode,
	})
	if err := errs.Err(); err != nil {
		t.Fatalf("parse %v: %v", v, err)
	}
	return p
}

// cmdJSON is a minimal chat-input command body.
func cmdJSON(name, description string) string {
	b, _ := json.Marshal(map[string]string{"name": name, "description": description})
	return string(b)
}

func upsertPlan(in command.Parsed, ids command.IDs) store.PlanFunc {
	return func(cur []command.Command, createsToday int) (command.Plan, error) {
		return command.Upsert(cur, in, createsToday, ids)
	}
}

func overwritePlan(scope command.Scope, in []command.Parsed, ids command.IDs) store.PlanFunc {
	return func(cur []command.Command, createsToday int) (command.Plan, error) {
		return command.Overwrite(cur, in, scope.Global(), createsToday, ids)
	}
}

func deletePlan(id snowflake.ID) store.PlanFunc {
	return func(cur []command.Command, _ int) (command.Plan, error) { return command.Delete(cur, id) }
}

// upsert creates (or updates) one command on day 0 and returns it.
func (f *fixture) upsert(t *testing.T, scope command.Scope, name, description string) command.Command {
	t.Helper()
	p, err := f.s.WriteCommands(f.ctx, scope, 0, upsertPlan(parse(t, scope, command.ModeCreate, cmdJSON(name, description)), f.ids))
	if err != nil {
		t.Fatalf("upsert %q in %+v: %v", name, scope, err)
	}
	if len(p.Result) != 1 {
		t.Fatalf("upsert %q: result %+v", name, p.Result)
	}
	return p.Result[0]
}

// edit applies a PATCH body to a stored command, as the API does.
func (f *fixture) edit(t *testing.T, scope command.Scope, c command.Command, patch string) (command.Plan, error) {
	t.Helper()
	pv, err := form.DecodeJSON([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	shape := command.Overlay(command.EditShape(&c), pv.(map[string]any), scope.Global())
	in := parseValue(t, scope, command.ModeEdit, shape)
	return f.s.WriteCommands(f.ctx, scope, 0, func(cur []command.Command, _ int) (command.Plan, error) {
		return command.Edit(cur, c.ID, in, f.ids)
	})
}

func (f *fixture) list(t *testing.T, scope command.Scope) []command.Command {
	t.Helper()
	cs, err := f.s.Commands(f.ctx, scope)
	if err != nil {
		t.Fatalf("commands of %+v: %v", scope, err)
	}
	if cs == nil {
		t.Fatalf("commands of %+v: nil slice, want non-nil", scope)
	}
	return cs
}

func names(cs []command.Command) []string {
	out := make([]string, len(cs))
	for i := range cs {
		out[i] = cs[i].Name
	}
	return out
}

func ids(cs []command.Command) []snowflake.ID {
	out := make([]snowflake.ID, len(cs))
	for i := range cs {
		out[i] = cs[i].ID
	}
	return out
}

func equalCommands(t *testing.T, what string, got, want []command.Command) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %s\n want %s", what, dump(got), dump(want))
	}
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// checkRaw checks that RawCommands agrees with want (the scope's commands
// in id order): same ids and versions, and bodies that decode to them.
func (f *fixture) checkRaw(t *testing.T, scope command.Scope, want []command.Command) {
	t.Helper()
	raw, err := f.s.RawCommands(f.ctx, scope)
	if err != nil {
		t.Fatalf("RawCommands(%+v): %v", scope, err)
	}
	if raw == nil {
		t.Fatalf("RawCommands(%+v): nil slice, want non-nil", scope)
	}
	if len(raw) != len(want) {
		t.Fatalf("RawCommands(%+v): %d commands, want %d", scope, len(raw), len(want))
	}
	for i, r := range raw {
		var c command.Command
		if err := json.Unmarshal(r.Body, &c); err != nil {
			t.Errorf("RawCommands(%+v)[%d]: body %s: %v", scope, i, r.Body, err)
			continue
		}
		if r.ID != want[i].ID || r.Version != want[i].Version {
			t.Errorf("RawCommands(%+v)[%d]: id %d version %d, want id %d version %d",
				scope, i, r.ID, r.Version, want[i].ID, want[i].Version)
		}
		equalCommands(t, fmt.Sprintf("RawCommands(%+v)[%d] body", scope, i), []command.Command{c}, want[i:i+1])
	}
}
