package storetest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// allScopes are the fixture's scopes, for isolation checks.
var allScopes = []command.Scope{globalScope, guildScope, guild2Scope, otherGlobalScope, otherGuildScope}

func testCommands(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("empty scope lists an empty non-nil slice", func(t *testing.T) {
		f := newFixture(t, open)
		for _, sc := range allScopes {
			if cs := f.list(t, sc); len(cs) != 0 {
				t.Errorf("Commands(%+v) = %s, want []", sc, dump(cs))
			}
			f.checkRaw(t, sc, nil)
			if _, err := f.s.Command(f.ctx, sc, idBase+1); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Command(%+v, unknown): err = %v, want ErrNotFound", sc, err)
			}
		}
	})

	t.Run("upsert creates and lists by id", func(t *testing.T) {
		f := newFixture(t, open)
		f.ids = countdown() // later commands get smaller ids
		var created []command.Command
		for _, name := range []string{"zeta", "alpha", "mid"} {
			p, err := f.s.WriteCommands(f.ctx, globalScope, 0,
				upsertPlan(parse(t, globalScope, command.ModeCreate, cmdJSON(name, "Describe "+name)), f.ids))
			if err != nil {
				t.Fatalf("upsert %q: %v", name, err)
			}
			if !p.Created || p.Creates != 1 || len(p.Put) != 1 || len(p.Result) != 1 {
				t.Fatalf("upsert %q: plan %s, want one created command", name, dump(p))
			}
			c := p.Result[0]
			if c.ID == 0 || c.Version == 0 || c.Name != name || c.ApplicationID != appID || c.GuildID != 0 {
				t.Fatalf("upsert %q: result %s", name, dump(c))
			}
			created = append(created, c)
		}
		want := slices.Clone(created)
		slices.SortFunc(want, func(a, b command.Command) int { return cmp.Compare(a.ID, b.ID) })
		got := f.list(t, globalScope)
		equalCommands(t, "Commands (ordered by id)", got, want)
		f.checkRaw(t, globalScope, want)
		if slices.Equal(names(got), []string{"zeta", "alpha", "mid"}) {
			t.Errorf("Commands listed in creation order %q, want id order", names(got))
		}
		for _, c := range created {
			got, err := f.s.Command(f.ctx, globalScope, c.ID)
			if err != nil {
				t.Errorf("Command(%d): %v", c.ID, err)
				continue
			}
			equalCommands(t, "Command "+c.Name, []command.Command{got}, []command.Command{c})
		}
	})

	t.Run("commands are visible only in their own scope", func(t *testing.T) {
		f := newFixture(t, open)
		home := map[snowflake.ID]command.Scope{}
		byScope := map[command.Scope]command.Command{}
		// The same name in every scope but guild2: each is its own command.
		for _, sc := range []command.Scope{globalScope, guildScope, otherGlobalScope, otherGuildScope} {
			c := f.upsert(t, sc, "ping", "Ping")
			if _, dup := home[c.ID]; dup {
				t.Fatalf("upsert in %+v reused id %d", sc, c.ID)
			}
			if c.GuildID != sc.GuildID || c.ApplicationID != sc.ApplicationID {
				t.Errorf("command made in %+v has app %d guild %d", sc, c.ApplicationID, c.GuildID)
			}
			home[c.ID], byScope[sc] = sc, c
		}
		check := func(stage string) {
			t.Helper()
			for _, sc := range allScopes {
				want := []command.Command{}
				if c, ok := byScope[sc]; ok {
					want = append(want, c)
				}
				equalCommands(t, fmt.Sprintf("%s: Commands(%+v)", stage, sc), f.list(t, sc), want)
				f.checkRaw(t, sc, want)
				for id, h := range home {
					got, err := f.s.Command(f.ctx, sc, id)
					switch {
					case h == sc && err != nil:
						t.Errorf("%s: Command(%+v, %d): %v", stage, sc, id, err)
					case h == sc && got.ID != id:
						t.Errorf("%s: Command(%+v, %d) = %s", stage, sc, id, dump(got))
					case h != sc && !errors.Is(err, store.ErrNotFound):
						t.Errorf("%s: Command(%+v, %d) of scope %+v: err = %v, want ErrNotFound", stage, sc, id, h, err)
					}
				}
			}
		}
		check("after creates")

		// Writes on one scope never reach into another: deleting the
		// global command through the guild scope is unknown there, and
		// emptying the guild scope leaves the others alone.
		if _, err := f.s.WriteCommands(f.ctx, guildScope, 0, deletePlan(byScope[globalScope].ID)); err == nil {
			t.Error("deleting a global command through a guild scope succeeded")
		}
		if _, err := f.s.WriteCommands(f.ctx, otherGlobalScope, 0, deletePlan(byScope[globalScope].ID)); err == nil {
			t.Error("deleting a command through another app's scope succeeded")
		}
		check("after foreign deletes")
		if _, err := f.s.WriteCommands(f.ctx, guildScope, 0, overwritePlan(guildScope, nil, f.ids)); err != nil {
			t.Fatal(err)
		}
		delete(home, byScope[guildScope].ID)
		delete(byScope, guildScope)
		check("after emptying the guild scope")
	})

	t.Run("no-op upsert keeps version, a change bumps it", func(t *testing.T) {
		f := newFixture(t, open)
		first := f.upsert(t, guildScope, "ping", "Ping")
		p, err := f.s.WriteCommands(f.ctx, guildScope, 0,
			upsertPlan(parse(t, guildScope, command.ModeCreate, cmdJSON("ping", "Ping")), f.ids))
		must(t, err)
		if p.Created || p.Creates != 0 || len(p.Put) != 0 {
			t.Errorf("same definition again: plan %s, want a no-op", dump(p))
		}
		equalCommands(t, "no-op result", p.Result, []command.Command{first})
		equalCommands(t, "after no-op", f.list(t, guildScope), []command.Command{first})

		second := f.upsert(t, guildScope, "ping", "Pong")
		if second.ID != first.ID || second.Version == first.Version || second.Description != "Pong" {
			t.Errorf("changed upsert = %s, want id %d with a new version", dump(second), first.ID)
		}
		equalCommands(t, "after change", f.list(t, guildScope), []command.Command{second})
		f.checkRaw(t, guildScope, []command.Command{second})
		got, err := f.s.Command(f.ctx, guildScope, first.ID)
		must(t, err)
		equalCommands(t, "Command after change", []command.Command{got}, []command.Command{second})
	})

	t.Run("delete removes one command", func(t *testing.T) {
		f := newFixture(t, open)
		a := f.upsert(t, globalScope, "a", "A")
		b := f.upsert(t, globalScope, "b", "B")
		p, err := f.s.WriteCommands(f.ctx, globalScope, 0, deletePlan(a.ID))
		must(t, err)
		if !slices.Equal(p.Delete, []snowflake.ID{a.ID}) {
			t.Errorf("delete plan %s", dump(p))
		}
		equalCommands(t, "after delete", f.list(t, globalScope), []command.Command{b})
		if _, err := f.s.Command(f.ctx, globalScope, a.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Command(deleted): err = %v, want ErrNotFound", err)
		}
		if _, err := f.s.WriteCommands(f.ctx, globalScope, 0, deletePlan(a.ID)); err == nil {
			t.Error("deleting a deleted command succeeded")
		}
		equalCommands(t, "after second delete", f.list(t, globalScope), []command.Command{b})
		// The name is free again and a new command gets a new id.
		again := f.upsert(t, globalScope, "a", "A")
		if again.ID == a.ID {
			t.Errorf("recreated command reused id %d", a.ID)
		}
	})

	t.Run("edit keeps the id and frees the old name", func(t *testing.T) {
		f := newFixture(t, open)
		a := f.upsert(t, guildScope, "a", "A")
		b := f.upsert(t, guildScope, "b", "B")
		p, err := f.edit(t, guildScope, a, `{"description":"A2"}`)
		must(t, err)
		a2 := p.Result[0]
		if a2.ID != a.ID || a2.Version == a.Version || a2.Description != "A2" {
			t.Errorf("edit = %s", dump(a2))
		}
		p, err = f.edit(t, guildScope, a2, `{"name":"z"}`)
		must(t, err)
		z := p.Result[0]
		if z.ID != a.ID || z.Name != "z" {
			t.Errorf("rename = %s", dump(z))
		}
		if _, err := f.edit(t, guildScope, z, `{"name":"b"}`); err == nil {
			t.Error("renaming onto an existing name succeeded")
		}
		equalCommands(t, "after edits", f.list(t, guildScope), []command.Command{z, b})
		if c := f.upsert(t, guildScope, "a", "A"); c.ID == a.ID {
			t.Errorf("name freed by a rename: upsert reused id %d", a.ID)
		}
	})

	t.Run("overwrite replaces the set", func(t *testing.T) {
		f := newFixture(t, open)
		a := f.upsert(t, globalScope, "a", "A")
		b := f.upsert(t, globalScope, "b", "B")
		c := f.upsert(t, globalScope, "c", "C")
		other := f.upsert(t, guildScope, "c", "C")
		in := []command.Parsed{
			parse(t, globalScope, command.ModeBulk, cmdJSON("b", "B2")),
			parse(t, globalScope, command.ModeBulk, cmdJSON("d", "D")),
			parse(t, globalScope, command.ModeBulk, cmdJSON("a", "A")),
		}
		p, err := f.s.WriteCommands(f.ctx, globalScope, 0, overwritePlan(globalScope, in, f.ids))
		must(t, err)
		if p.Creates != 1 || len(p.Result) != 3 {
			t.Fatalf("overwrite plan %s", dump(p))
		}
		b2, d, a2 := p.Result[0], p.Result[1], p.Result[2]
		if a2.ID != a.ID || a2.Version != a.Version {
			t.Errorf("unchanged a = %s, want id %d version %d", dump(a2), a.ID, a.Version)
		}
		if b2.ID != b.ID || b2.Version == b.Version || b2.Description != "B2" {
			t.Errorf("changed b = %s, want id %d and a new version", dump(b2), b.ID)
		}
		if d.ID == a.ID || d.ID == b.ID || d.ID == c.ID {
			t.Errorf("new d reused an id: %s", dump(d))
		}
		equalCommands(t, "after overwrite", f.list(t, globalScope), []command.Command{a2, b2, d})
		f.checkRaw(t, globalScope, []command.Command{a2, b2, d})
		if _, err := f.s.Command(f.ctx, globalScope, c.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Command(dropped c): err = %v, want ErrNotFound", err)
		}
		equalCommands(t, "guild scope after global overwrite", f.list(t, guildScope), []command.Command{other})

		p, err = f.s.WriteCommands(f.ctx, globalScope, 0, overwritePlan(globalScope, nil, f.ids))
		must(t, err)
		if len(p.Result) != 0 || len(p.Delete) != 3 {
			t.Errorf("empty overwrite plan %s", dump(p))
		}
		equalCommands(t, "after empty overwrite", f.list(t, globalScope), nil)
	})

	t.Run("overwrite renames without tripping the unique name", func(t *testing.T) {
		cases := []struct {
			name  string
			from  []string
			to    []string // to[i] is the new name of the command named from[i]
			after []string // names in id order
		}{
			{"swap a and b", []string{"a", "b"}, []string{"b", "a"}, []string{"b", "a"}},
			{"rotate a, b, c", []string{"a", "b", "c"}, []string{"b", "c", "a"}, []string{"b", "c", "a"}},
			{"swap two of three", []string{"a", "b", "c"}, []string{"c", "b", "a"}, []string{"c", "b", "a"}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t, open)
				var before []command.Command
				for _, n := range tc.from {
					before = append(before, f.upsert(t, guildScope, n, "Describe "+n))
				}
				var in []command.Parsed
				for i, n := range tc.to {
					body := fmt.Sprintf(`{"id":%q,"name":%q,"description":"Describe %s"}`, before[i].ID, n, n)
					in = append(in, parse(t, guildScope, command.ModeBulk, body))
				}
				if _, err := f.s.WriteCommands(f.ctx, guildScope, 0, overwritePlan(guildScope, in, f.ids)); err != nil {
					t.Fatalf("overwrite: %v", err)
				}
				got := f.list(t, guildScope)
				if !slices.Equal(names(got), tc.after) || !slices.Equal(ids(got), ids(before)) {
					t.Errorf("after overwrite: ids %v names %q, want ids %v names %q",
						ids(got), names(got), ids(before), tc.after)
				}
			})
		}
	})

	t.Run("failed write leaves the scope unchanged", func(t *testing.T) {
		boom := errors.New("boom")
		cases := []struct {
			name string
			// plan builds the failing plan from the scope's commands
			// (a, b, c, in id order) and fresh ids.
			plan     func(t *testing.T, cur []command.Command, ids command.IDs) store.PlanFunc
			wantErr  error // nil: any error
			panicked bool
		}{
			{"plan returns an error", func(t *testing.T, cur []command.Command, ids command.IDs) store.PlanFunc {
				return func([]command.Command, int) (command.Plan, error) {
					return command.Plan{Delete: []snowflake.ID{cur[0].ID}, Creates: 1}, boom
				}
			}, boom, false},
			{"overwrite rejects duplicate names", func(t *testing.T, cur []command.Command, ids command.IDs) store.PlanFunc {
				in := []command.Parsed{
					parse(t, globalScope, command.ModeBulk, cmdJSON("x", "X")),
					parse(t, globalScope, command.ModeBulk, cmdJSON("x", "X")),
				}
				return overwritePlan(globalScope, in, ids)
			}, nil, false},
			{"apply fails midway on a duplicate name", func(t *testing.T, cur []command.Command, ids command.IDs) store.PlanFunc {
				x := parse(t, globalScope, command.ModeCreate, cmdJSON("x", "X")).Command
				x.ID, x.Version = ids(), ids()
				dup := parse(t, globalScope, command.ModeCreate, cmdJSON(cur[1].Name, "Clash")).Command
				dup.ID, dup.Version = ids(), ids()
				changed := cur[2]
				changed.Description, changed.Version = "Changed", ids()
				return func([]command.Command, int) (command.Plan, error) {
					return command.Plan{
						Delete:          []snowflake.ID{cur[0].ID},
						Put:             []command.Command{changed, x, dup},
						DropPermissions: []snowflake.ID{cur[0].ID, cur[2].ID},
						Creates:         2,
					}, nil
				}
			}, store.ErrConflict, false},
			{"plan panics", func(t *testing.T, cur []command.Command, ids command.IDs) store.PlanFunc {
				return func([]command.Command, int) (command.Plan, error) { panic(boom) }
			}, nil, true},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t, open)
				for _, n := range []string{"a", "b", "c"} {
					f.upsert(t, globalScope, n, "Describe "+n)
				}
				f.upsert(t, guildScope, "a", "Guild a")
				before := f.list(t, globalScope)
				guildBefore := f.list(t, guildScope)
				perms := []command.Permission{{ID: 5, Type: command.PermissionUser, Permission: true}}
				for _, c := range before {
					f.setPermissions(t, guildID, c.ID, perms)
				}
				createsBefore := f.createsToday(t, globalScope, 0)

				var (
					err       error
					recovered any
				)
				func() {
					defer func() { recovered = recover() }()
					_, err = f.s.WriteCommands(f.ctx, globalScope, 0, tc.plan(t, before, f.ids))
				}()
				switch {
				case tc.panicked && recovered == nil && err == nil:
					t.Fatal("panicking plan: WriteCommands returned no error")
				case !tc.panicked && recovered != nil:
					t.Fatalf("WriteCommands panicked: %v", recovered)
				case !tc.panicked && err == nil:
					t.Fatal("WriteCommands succeeded, want an error")
				case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}

				equalCommands(t, "global scope after failed write", f.list(t, globalScope), before)
				f.checkRaw(t, globalScope, before)
				equalCommands(t, "guild scope after failed write", f.list(t, guildScope), guildBefore)
				for _, c := range before {
					gp, err := f.s.CommandPermissions(f.ctx, appID, guildID, c.ID)
					if err != nil || len(gp.Permissions) != 1 {
						t.Errorf("permissions of %q after failed write = %s, %v", c.Name, dump(gp), err)
					}
				}
				if n := f.createsToday(t, globalScope, 0); n != createsBefore {
					t.Errorf("createsToday after failed write = %d, want %d", n, createsBefore)
				}
				// The store is still writable.
				f.upsert(t, globalScope, "after", "After")
			})
		}
	})

	t.Run("daily create counter", func(t *testing.T) {
		f := newFixture(t, open)
		const day1, day2 = 20000, 20001
		write := func(day int64, plan store.PlanFunc) command.Plan {
			t.Helper()
			p, err := f.s.WriteCommands(f.ctx, globalScope, day, plan)
			if err != nil {
				t.Fatalf("write on day %d: %v", day, err)
			}
			return p
		}
		upsert := func(day int64, name, desc string) command.Plan {
			t.Helper()
			return write(day, upsertPlan(parse(t, globalScope, command.ModeCreate, cmdJSON(name, desc)), f.ids))
		}
		expect := func(stage string, sc command.Scope, day int64, want int) {
			t.Helper()
			if got := f.createsToday(t, sc, day); got != want {
				t.Errorf("%s: createsToday(%+v, day %d) = %d, want %d", stage, sc, day, got, want)
			}
		}
		expect("fresh scope", globalScope, day1, 0)
		upsert(day1, "a", "A")
		expect("after a create", globalScope, day1, 1)
		upsert(day1, "a", "A")
		expect("after a no-op upsert", globalScope, day1, 1)
		upsert(day1, "a", "A2")
		expect("after an update", globalScope, day1, 1)
		p := write(day1, overwritePlan(globalScope, []command.Parsed{
			parse(t, globalScope, command.ModeBulk, cmdJSON("a", "A2")),
			parse(t, globalScope, command.ModeBulk, cmdJSON("b", "B")),
			parse(t, globalScope, command.ModeBulk, cmdJSON("c", "C")),
			parse(t, globalScope, command.ModeBulk, cmdJSON("d", "D")),
		}, f.ids))
		if p.Creates != 3 {
			t.Fatalf("overwrite Creates = %d, want 3", p.Creates)
		}
		expect("after an overwrite creating 3", globalScope, day1, 4)
		if _, err := f.s.WriteCommands(f.ctx, globalScope, day1, func([]command.Command, int) (command.Plan, error) {
			return command.Plan{Creates: 5}, errors.New("refused")
		}); err == nil {
			t.Fatal("failing plan succeeded")
		}
		expect("after a failed write", globalScope, day1, 4)
		write(day1, deletePlan(p.Result[1].ID))
		expect("after a delete", globalScope, day1, 4)

		// The counter is per scope.
		expect("guild scope", guildScope, day1, 0)
		expect("other app", otherGlobalScope, day1, 0)
		upsert(day1, "e", "E")
		expect("after another create", globalScope, day1, 5)

		// A new day starts from zero and counts again.
		expect("next day", globalScope, day2, 0)
		upsert(day2, "f", "F")
		upsert(day2, "g", "G")
		expect("next day after two creates", globalScope, day2, 2)
		if got := len(f.list(t, globalScope)); got != 6 {
			t.Errorf("commands after the day changed = %d, want 6 (a new day deletes nothing)", got)
		}
	})

	t.Run("concurrent upserts of one name make one command", func(t *testing.T) {
		f := newFixture(t, open)
		const n = 16
		in := parse(t, globalScope, command.ModeCreate, cmdJSON("ping", "Ping"))
		var (
			mu      sync.Mutex
			results []command.Plan
			wg      sync.WaitGroup
		)
		for range n {
			wg.Go(func() {
				p, err := f.s.WriteCommands(f.ctx, globalScope, 0, upsertPlan(in, f.ids))
				if err != nil {
					t.Errorf("concurrent upsert: %v", err)
					return
				}
				mu.Lock()
				results = append(results, p)
				mu.Unlock()
			})
		}
		wg.Wait()
		cs := f.list(t, globalScope)
		if len(cs) != 1 {
			t.Fatalf("after %d concurrent upserts of one name: %d commands %s", n, len(cs), dump(cs))
		}
		created := 0
		for _, p := range results {
			if p.Created {
				created++
			}
			equalCommands(t, "concurrent upsert result", p.Result, cs)
		}
		if created != 1 {
			t.Errorf("%d upserts reported a create, want exactly 1", created)
		}
		if got := f.createsToday(t, globalScope, 0); got != 1 {
			t.Errorf("createsToday = %d, want 1", got)
		}
	})

	t.Run("concurrent upserts of distinct names lose no write", func(t *testing.T) {
		f := newFixture(t, open)
		const n = 16
		var wg sync.WaitGroup
		for i := range n {
			in := parse(t, guildScope, command.ModeCreate, cmdJSON(fmt.Sprintf("cmd%02d", i), "Command"))
			wg.Go(func() {
				if _, err := f.s.WriteCommands(f.ctx, guildScope, 0, upsertPlan(in, f.ids)); err != nil {
					t.Errorf("concurrent upsert: %v", err)
				}
			})
		}
		wg.Wait()
		if got := len(f.list(t, guildScope)); got != n {
			t.Errorf("after %d concurrent creates: %d commands", n, got)
		}
		if got := f.createsToday(t, guildScope, 0); got != n {
			t.Errorf("createsToday = %d, want %d", got, n)
		}
	})
}

// createsToday reads the scope's daily create counter for day, as the
// planning function sees it, through a write that plans nothing.
func (f *fixture) createsToday(t *testing.T, scope command.Scope, day int64) int {
	t.Helper()
	n := -1
	_, err := f.s.WriteCommands(f.ctx, scope, day, func(_ []command.Command, creates int) (command.Plan, error) {
		n = creates
		return command.Plan{}, nil
	})
	if err != nil {
		t.Fatalf("probe daily counter of %+v: %v", scope, err)
	}
	return n
}
