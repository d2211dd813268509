package command_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

// stored turns parsed bodies into a scope's current commands, with ids and
// versions, as a first bulk overwrite would.
func stored(t *testing.T, tg command.Target, bodies ...string) []command.Command {
	t.Helper()
	var in []command.Parsed
	for _, b := range bodies {
		in = append(in, mustParse(t, b, tg))
	}
	p, err := command.Overwrite(nil, in, tg.Scope.Global(), 0, seqIDs(100))
	if err != nil {
		t.Fatalf("Overwrite: %v", err)
	}
	return p.Result
}

func chatNamed(name, desc string) string {
	return fmt.Sprintf(`{"name":%q,"description":%q}`, name, desc)
}

func typed(typ int, name string) string {
	if typ == 1 {
		return chatNamed(name, "d")
	}
	return fmt.Sprintf(`{"type":%d,"name":%q}`, typ, name)
}

// nOf makes n commands of a type with distinct names.
func nOf(t *testing.T, typ, n int, tg command.Target) []command.Command {
	t.Helper()
	cur := make([]command.Command, 0, n)
	for i := 0; i < n; i++ {
		c := mustParse(t, typed(typ, fmt.Sprintf("c%d", i)), tg).Command
		c.ID, c.Version = snowflake.ID(10000+i), snowflake.ID(20000+i)
		cur = append(cur, c)
	}
	return cur
}

// wantAPIError checks an error's status, JSON code and message.
func wantAPIError(t *testing.T, err error, status, code int, msg string) *apierr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %d %q", code, msg)
	}
	e, ok := apierr.As(err)
	if !ok {
		t.Fatalf("error %v is not an *apierr.Error", err)
	}
	if e.Status != status || e.Code != code || e.Message != msg {
		t.Fatalf("error = %d %d %q, want %d %d %q", e.Status, e.Code, e.Message, status, code, msg)
	}
	return e
}

func ids(cs []command.Command) []snowflake.ID {
	out := make([]snowflake.ID, len(cs))
	for i := range cs {
		out[i] = cs[i].ID
	}
	return out
}

func TestUpsert(t *testing.T) {
	next := seqIDs(5000)
	in := mustParse(t, chatNamed("ping", "Ping"), global)

	p, err := command.Upsert(nil, in, 0, next)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Created || p.Creates != 1 || len(p.Put) != 1 || len(p.Result) != 1 {
		t.Fatalf("new: %+v", p)
	}
	created := p.Result[0]
	if created.ID == 0 || created.Version == 0 || created.Name != "ping" || created.ApplicationID != testAppID {
		t.Fatalf("created = %+v", created)
	}
	cur := []command.Command{created}

	t.Run("unchanged keeps version and writes nothing", func(t *testing.T) {
		p, err := command.Upsert(cur, mustParse(t, chatNamed("ping", "Ping"), global), 0, next)
		if err != nil {
			t.Fatal(err)
		}
		if p.Created || p.Creates != 0 || len(p.Put) != 0 {
			t.Fatalf("no-op plan = %+v", p)
		}
		if r := p.Result[0]; r.ID != created.ID || r.Version != created.Version {
			t.Fatalf("result id/version = %d/%d, want %d/%d", r.ID, r.Version, created.ID, created.Version)
		}
	})
	t.Run("changed keeps id, new version", func(t *testing.T) {
		p, err := command.Upsert(cur, mustParse(t, chatNamed("ping", "Pong"), global), 0, next)
		if err != nil {
			t.Fatal(err)
		}
		if p.Created || p.Creates != 0 || len(p.Put) != 1 {
			t.Fatalf("overwrite plan = %+v", p)
		}
		r := p.Result[0]
		if r.ID != created.ID || r.Version == created.Version || r.Description != "Pong" {
			t.Fatalf("overwritten = %+v", r)
		}
		if !reflect.DeepEqual(p.Put[0], r) {
			t.Fatalf("Put %+v != Result %+v", p.Put[0], r)
		}
		if len(p.DropPermissions) != 0 || len(p.Delete) != 0 {
			t.Fatalf("overwrite drops: %+v", p)
		}
	})
	t.Run("same name other type is a new command", func(t *testing.T) {
		p, err := command.Upsert(cur, mustParse(t, `{"type":2,"name":"ping"}`, global), 0, next)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Created || p.Result[0].ID == created.ID {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("overwrite in another scope is separate", func(t *testing.T) {
		// The caller passes the scope's own commands: a guild command of
		// the same name is new next to a global one.
		p, err := command.Upsert(nil, mustParse(t, chatNamed("ping", "Ping"), guild), 0, next)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Created || p.Result[0].GuildID != testGuildID {
			t.Fatalf("plan = %+v", p)
		}
	})
}

func TestUpsertCaps(t *testing.T) {
	for _, tc := range []struct {
		typ, max int
		target   command.Target
	}{
		{1, 100, global}, {2, 15, global}, {3, 15, global}, {1, 100, guild}, {2, 15, guild}, {3, 15, guild},
		{4, 1, globalEmbedded},
	} {
		t.Run(fmt.Sprintf("type %d in guild %v", tc.typ, !tc.target.Scope.Global()), func(t *testing.T) {
			if got := command.MaxPerType(command.Type(tc.typ)); got != tc.max {
				t.Fatalf("MaxPerType = %d, want %d", got, tc.max)
			}
			tg := tc.target
			var cur []command.Command
			if tc.typ == 4 {
				c := mustParse(t, `{"type":4,"name":"Launch","handler":2}`, tg).Command
				c.ID, c.Version = 10, 11
				cur = []command.Command{c}
			} else {
				cur = nOf(t, tc.typ, tc.max-1, tg)
				// One below the cap: a create fits.
				p, err := command.Upsert(cur, mustParse(t, typed(tc.typ, "last"), tg), 0, seqIDs(90000))
				if err != nil {
					t.Fatalf("create at %d: %v", tc.max-1, err)
				}
				cur = append(cur, p.Result[0])
			}
			_, err := command.Upsert(cur, mustParse(t, typed(tc.typ, "one-more"), tg), 0, seqIDs(90000))
			wantAPIError(t, err, 400, 30032, fmt.Sprintf("Maximum number of application commands reached (%d)", tc.max))

			// At the cap, an overwrite of an existing name still works.
			existing := cur[0]
			body := typed(tc.typ, existing.Name)
			if tc.typ == 4 {
				body = `{"type":4,"name":"Launch","handler":1}`
			} else if tc.typ == 1 {
				body = chatNamed(existing.Name, "changed")
			} else {
				body = fmt.Sprintf(`{"type":%d,"name":%q,"nsfw":true}`, tc.typ, existing.Name)
			}
			p, err := command.Upsert(cur, mustParse(t, body, tg), 0, seqIDs(90000))
			if err != nil {
				t.Fatalf("overwrite at cap: %v", err)
			}
			if p.Created || p.Result[0].ID != existing.ID {
				t.Fatalf("overwrite at cap: %+v", p)
			}

			// Other types have their own caps.
			other := 1
			if tc.typ == 1 {
				other = 2
			}
			if _, err := command.Upsert(cur, mustParse(t, typed(other, "other-type"), tg), 0, seqIDs(90000)); err != nil {
				t.Fatalf("other type at cap: %v", err)
			}
		})
	}
}

func TestUpsertDailyLimit(t *testing.T) {
	cur := stored(t, guild, chatNamed("a", "d"))
	if _, err := command.Upsert(cur, mustParse(t, chatNamed("b", "d"), guild), 199, seqIDs(500)); err != nil {
		t.Fatalf("200th create: %v", err)
	}
	_, err := command.Upsert(cur, mustParse(t, chatNamed("b", "d"), guild), 200, seqIDs(500))
	wantAPIError(t, err, 400, 30034, "Max number of daily application command creates has been reached (200)")

	// Overwriting an existing name is not a create.
	p, err := command.Upsert(cur, mustParse(t, chatNamed("a", "changed"), guild), 200, seqIDs(500))
	if err != nil || p.Creates != 0 {
		t.Fatalf("overwrite over the daily limit: %+v, %v", p, err)
	}
}

func TestEdit(t *testing.T) {
	cur := stored(t, global, chatNamed("alpha", "A"), chatNamed("beta", "B"), `{"type":2,"name":"gamma"}`)
	alpha := cur[0]
	next := seqIDs(7000)

	edit := func(t *testing.T, c *command.Command, patch string) (command.Plan, error) {
		t.Helper()
		pv, err := form.DecodeJSON([]byte(patch))
		if err != nil {
			t.Fatal(err)
		}
		shape := command.Overlay(command.EditShape(c), pv.(map[string]any), true)
		tg := global
		tg.Mode = command.ModeEdit
		in, errs := command.Parse(shape, tg)
		if !errs.Empty() {
			b, _ := json.Marshal(errs)
			t.Fatalf("Parse: %s", b)
		}
		return command.Edit(cur, c.ID, in, next)
	}

	t.Run("rename drops permissions", func(t *testing.T) {
		p, err := edit(t, &alpha, `{"name":"alpha2"}`)
		if err != nil {
			t.Fatal(err)
		}
		r := p.Result[0]
		if r.ID != alpha.ID || r.Version == alpha.Version || r.Name != "alpha2" || r.Description != "A" {
			t.Fatalf("renamed = %+v", r)
		}
		if !reflect.DeepEqual(p.DropPermissions, []snowflake.ID{alpha.ID}) || len(p.Put) != 1 {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("description change keeps permissions", func(t *testing.T) {
		p, err := edit(t, &alpha, `{"description":"new"}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.DropPermissions) != 0 || len(p.Put) != 1 || p.Result[0].Version == alpha.Version {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("unchanged keeps version", func(t *testing.T) {
		p, err := edit(t, &alpha, `{"description":"A"}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Put) != 0 || p.Result[0].Version != alpha.Version {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("rename onto existing name", func(t *testing.T) {
		_, err := edit(t, &alpha, `{"name":"beta"}`)
		wantAPIError(t, err, 400, 40041, "An application command with that name already exists")
	})
	t.Run("rename onto a name of another type", func(t *testing.T) {
		if _, err := edit(t, &alpha, `{"name":"gamma"}`); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("unknown id", func(t *testing.T) {
		in := mustParse(t, chatNamed("x", "d"), global)
		_, err := command.Edit(cur, 424242, in, next)
		wantAPIError(t, err, 404, 10063, "Unknown application command")
	})
	t.Run("guild edit ignores global-only fields", func(t *testing.T) {
		gcur := stored(t, guild, chatNamed("g", "d"))
		pv, _ := form.DecodeJSON([]byte(`{"dm_permission":false,"contexts":[0],"integration_types":[1],"nsfw":true}`))
		shape := command.Overlay(command.EditShape(&gcur[0]), pv.(map[string]any), false)
		tg := guild
		tg.Mode = command.ModeEdit
		in, errs := command.Parse(shape, tg)
		if !errs.Empty() {
			t.Fatalf("errors: %v", errs)
		}
		if in.DMPermission != nil || !reflect.DeepEqual(in.Contexts, []int{0, 1, 2}) ||
			!reflect.DeepEqual(in.IntegrationTypes, []int{0}) || !in.NSFW {
			t.Fatalf("edited = %+v", in.Command)
		}
	})
}

func TestDelete(t *testing.T) {
	cur := stored(t, global, chatNamed("a", "d"), chatNamed("b", "d"))
	p, err := command.Delete(cur, cur[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Delete, []snowflake.ID{cur[1].ID}) || !reflect.DeepEqual(p.DropPermissions, p.Delete) ||
		len(p.Put) != 0 {
		t.Fatalf("plan = %+v", p)
	}
	_, err = command.Delete(cur, 1)
	wantAPIError(t, err, 404, 10063, "Unknown application command")
}

func parseAll(t *testing.T, tg command.Target, bodies ...string) []command.Parsed {
	t.Helper()
	out := make([]command.Parsed, len(bodies))
	for i, b := range bodies {
		out[i] = mustParse(t, b, tg)
	}
	return out
}

func TestOverwrite(t *testing.T) {
	cur := stored(t, global, chatNamed("a", "A"), chatNamed("b", "B"), chatNamed("c", "C"), `{"type":3,"name":"Quote"}`)
	a, b, c, quote := cur[0], cur[1], cur[2], cur[3]

	t.Run("keeps unchanged, bumps changed, creates, deletes the rest", func(t *testing.T) {
		in := parseAll(t, globalBulk, chatNamed("a", "A"), chatNamed("b", "B2"), chatNamed("d", "D"), `{"type":3,"name":"Quote"}`)
		p, err := command.Overwrite(cur, in, true, 0, seqIDs(9000))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Result) != 4 {
			t.Fatalf("result = %+v", p.Result)
		}
		ra, rb, rd, rq := p.Result[0], p.Result[1], p.Result[2], p.Result[3]
		if ra.ID != a.ID || ra.Version != a.Version {
			t.Errorf("unchanged a: %d/%d, want %d/%d", ra.ID, ra.Version, a.ID, a.Version)
		}
		if rq.ID != quote.ID || rq.Version != quote.Version {
			t.Errorf("unchanged quote: %d/%d", rq.ID, rq.Version)
		}
		if rb.ID != b.ID || rb.Version == b.Version || rb.Description != "B2" {
			t.Errorf("changed b: %+v", rb)
		}
		if rd.ID == 0 || rd.ID == c.ID || rd.Name != "d" {
			t.Errorf("new d: %+v", rd)
		}
		if p.Creates != 1 {
			t.Errorf("Creates = %d", p.Creates)
		}
		if got := ids(p.Put); !reflect.DeepEqual(got, []snowflake.ID{b.ID, rd.ID}) {
			t.Errorf("Put = %v", got)
		}
		if !reflect.DeepEqual(p.Delete, []snowflake.ID{c.ID}) || !reflect.DeepEqual(p.DropPermissions, []snowflake.ID{c.ID}) {
			t.Errorf("Delete = %v, DropPermissions = %v", p.Delete, p.DropPermissions)
		}
	})
	t.Run("identical payload is a no-op", func(t *testing.T) {
		in := parseAll(t, globalBulk, chatNamed("a", "A"), chatNamed("b", "B"), chatNamed("c", "C"), `{"type":3,"name":"Quote"}`)
		p, err := command.Overwrite(cur, in, true, 0, seqIDs(9000))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Put)+len(p.Delete)+len(p.DropPermissions)+p.Creates != 0 || !reflect.DeepEqual(p.Result, cur) {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("rename by requested id", func(t *testing.T) {
		in := parseAll(t, globalBulk, fmt.Sprintf(`{"id":"%d","name":"a-renamed","description":"A"}`, a.ID),
			chatNamed("b", "B"), chatNamed("c", "C"), `{"type":3,"name":"Quote"}`)
		p, err := command.Overwrite(cur, in, true, 0, seqIDs(9000))
		if err != nil {
			t.Fatal(err)
		}
		r := p.Result[0]
		if r.ID != a.ID || r.Name != "a-renamed" || r.Version == a.Version {
			t.Fatalf("renamed = %+v", r)
		}
		if p.Creates != 0 || len(p.Delete) != 0 || !reflect.DeepEqual(p.DropPermissions, []snowflake.ID{a.ID}) {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("requested id wins over a name match", func(t *testing.T) {
		// Element 1 names a's id with a new name; element 0 takes the
		// name "a" for a new command. a's id must follow its id.
		in := parseAll(t, globalBulk, chatNamed("a", "A"), fmt.Sprintf(`{"id":"%d","name":"z","description":"A"}`, a.ID),
			chatNamed("b", "B"), chatNamed("c", "C"), `{"type":3,"name":"Quote"}`)
		p, err := command.Overwrite(cur, in, true, 0, seqIDs(9000))
		if err != nil {
			t.Fatal(err)
		}
		if p.Result[1].ID != a.ID || p.Result[1].Name != "z" {
			t.Fatalf("element 1 = %+v, want id %d", p.Result[1], a.ID)
		}
		if p.Result[0].ID == a.ID || p.Creates != 1 {
			t.Fatalf("element 0 = %+v, Creates %d", p.Result[0], p.Creates)
		}
	})
	t.Run("requested id of another type is a name match", func(t *testing.T) {
		in := parseAll(t, globalBulk, fmt.Sprintf(`{"id":"%d","name":"a","description":"A"}`, quote.ID))
		p, err := command.Overwrite(cur, in, true, 0, seqIDs(9000))
		if err != nil {
			t.Fatal(err)
		}
		if p.Result[0].ID != a.ID {
			t.Fatalf("result = %+v", p.Result[0])
		}
	})
	t.Run("unknown requested id falls back to name", func(t *testing.T) {
		in := parseAll(t, globalBulk, `{"id":"1","name":"b","description":"B"}`)
		p, err := command.Overwrite(cur, in, true, 0, seqIDs(9000))
		if err != nil {
			t.Fatal(err)
		}
		if p.Result[0].ID != b.ID || p.Result[0].Version != b.Version {
			t.Fatalf("result = %+v", p.Result[0])
		}
	})
	t.Run("duplicate names", func(t *testing.T) {
		in := parseAll(t, globalBulk, chatNamed("x", "d"), chatNamed("y", "d"), chatNamed("x", "e"), chatNamed("y", "f"))
		_, err := command.Overwrite(cur, in, true, 0, seqIDs(9000))
		e := wantAPIError(t, err, 400, 50035, "Invalid Form Body")
		got, _ := json.Marshal(e.Fields)
		want := tree(leaf{"2", "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique"},
			leaf{"3", "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique"})
		if !sameJSON(t, string(got), want) {
			t.Fatalf("errors %s, want %s", got, want)
		}
	})
	t.Run("same name different types", func(t *testing.T) {
		in := parseAll(t, globalBulk, chatNamed("x", "d"), `{"type":2,"name":"x"}`, `{"type":3,"name":"x"}`)
		p, err := command.Overwrite(cur, in, true, 0, seqIDs(9000))
		if err != nil {
			t.Fatal(err)
		}
		if p.Creates != 3 || len(p.Delete) != 4 {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("empty payload deletes everything", func(t *testing.T) {
		p, err := command.Overwrite(cur, nil, true, 0, seqIDs(9000))
		if err != nil {
			t.Fatal(err)
		}
		if p.Result == nil || len(p.Result) != 0 || len(p.Delete) != 4 {
			t.Fatalf("plan = %+v", p)
		}
		b, _ := json.Marshal(p.Result)
		if string(b) != "[]" {
			t.Fatalf("result renders %s", b)
		}
	})
}

func TestOverwriteEntryPoint(t *testing.T) {
	cur := stored(t, globalEmbedded, chatNamed("a", "A"), `{"type":4,"name":"Launch","handler":2}`)
	t.Run("omitted", func(t *testing.T) {
		in := parseAll(t, globalBulk, chatNamed("a", "A"))
		_, err := command.Overwrite(cur, in, true, 0, seqIDs(9000))
		wantAPIError(t, err, 400, 50240, "You cannot remove this app's Entry Point command in a bulk update operation. "+
			"Please include the Entry Point command in your update request or delete it separately.")
	})
	t.Run("included", func(t *testing.T) {
		tg := globalEmbedded
		tg.Mode = command.ModeBulk
		in := parseAll(t, tg, `{"type":4,"name":"Launch","handler":2}`)
		p, err := command.Overwrite(cur, in, true, 0, seqIDs(9000))
		if err != nil {
			t.Fatal(err)
		}
		if p.Result[0].ID != cur[1].ID || p.Result[0].Version != cur[1].Version || !reflect.DeepEqual(p.Delete, []snowflake.ID{cur[0].ID}) {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("deleted on its own", func(t *testing.T) {
		if _, err := command.Delete(cur, cur[1].ID); err != nil {
			t.Fatal(err)
		}
	})
}

func TestOverwriteCaps(t *testing.T) {
	bodies := func(typ, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = typed(typ, fmt.Sprintf("c%d", i))
		}
		return out
	}
	for _, tc := range []struct{ typ, max int }{{1, 100}, {2, 15}, {3, 15}} {
		for _, tg := range []command.Target{globalBulk, guildBulk} {
			in := parseAll(t, tg, bodies(tc.typ, tc.max)...)
			if _, err := command.Overwrite(nil, in, tg.Scope.Global(), 0, seqIDs(9000)); err != nil {
				t.Fatalf("type %d: %d commands: %v", tc.typ, tc.max, err)
			}
			in = parseAll(t, tg, bodies(tc.typ, tc.max+1)...)
			_, err := command.Overwrite(nil, in, tg.Scope.Global(), 0, seqIDs(9000))
			wantAPIError(t, err, 400, 30032, fmt.Sprintf("Maximum number of application commands reached (%d)", tc.max))
		}
	}
	tg := globalEmbedded
	tg.Mode = command.ModeBulk
	in := parseAll(t, tg, `{"type":4,"name":"Launch"}`, `{"type":4,"name":"Play"}`)
	_, err := command.Overwrite(nil, in, true, 0, seqIDs(9000))
	wantAPIError(t, err, 400, 30032, "Maximum number of application commands reached (1)")

	// 100 + 15 + 15 + 1 of different types fit together.
	all := append(append(append(bodies(1, 100), bodies(2, 15)...), bodies(3, 15)...), `{"type":4,"name":"Launch"}`)
	if _, err := command.Overwrite(nil, parseAll(t, tg, all...), true, 0, seqIDs(9000)); err != nil {
		t.Fatalf("full house: %v", err)
	}
}

func TestOverwriteDailyLimit(t *testing.T) {
	bodies := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, chatNamed(fmt.Sprintf("c%d", i), "d"))
		}
		return out
	}
	// 200 new commands on a fresh day fit; one more create does not.
	if _, err := command.Overwrite(nil, parseAll(t, guildBulk, bodies(0, 100)...), false, 100, seqIDs(9000)); err != nil {
		t.Fatal(err)
	}
	_, err := command.Overwrite(nil, parseAll(t, guildBulk, bodies(0, 100)...), false, 101, seqIDs(9000))
	wantAPIError(t, err, 400, 30034, "Max number of daily application command creates has been reached (200)")

	// Only new names count: 50 existing + 10 new with 190 creates today.
	cur := stored(t, guild, bodies(0, 50)...)
	p, err := command.Overwrite(cur, parseAll(t, guildBulk, bodies(0, 60)...), false, 190, seqIDs(9000))
	if err != nil {
		t.Fatal(err)
	}
	if p.Creates != 10 {
		t.Fatalf("Creates = %d", p.Creates)
	}
	_, err = command.Overwrite(cur, parseAll(t, guildBulk, bodies(0, 61)...), false, 190, seqIDs(9000))
	wantAPIError(t, err, 400, 30034, "Max number of daily application command creates has been reached (200)")
	// Re-putting the same names at the limit is fine.
	if _, err := command.Overwrite(cur, parseAll(t, guildBulk, bodies(0, 50)...), false, 200, seqIDs(9000)); err != nil {
		t.Fatal(err)
	}
}

func TestSameDefinition(t *testing.T) {
	a := mustParse(t, chatNamed("x", "d"), global).Command
	b := mustParse(t, chatNamed("x", "d"), global).Command
	b.ID, b.Version = 5, 6
	if !command.SameDefinition(&a, &b) {
		t.Fatal("same body, different id/version: not the same definition")
	}
	for _, body := range []string{
		chatNamed("x", "e"),
		`{"name":"x","description":"d","nsfw":true}`,
		`{"name":"x","description":"d","default_member_permissions":"0"}`,
		`{"name":"x","description":"d","dm_permission":false}`,
		`{"name":"x","description":"d","contexts":[0]}`,
		`{"name":"x","description":"d","name_localizations":{"de":"y"}}`,
		`{"name":"x","description":"d","options":[` + opt(3, "o", "") + `]}`,
	} {
		c := mustParse(t, body, global).Command
		if command.SameDefinition(&a, &c) {
			t.Errorf("%s: same definition as the plain command", body)
		}
	}
	// Parsing normalizes: an explicit default equals an omitted one.
	for _, body := range []string{
		`{"name":"x","description":"d","dm_permission":true,"nsfw":false,"default_permission":true,"options":null}`,
		`{"type":1,"name":"x","description":"d","integration_types":[0,1],"name_localizations":{"de":"x"}}`,
		`{"name":"x","description":"d","contexts":null,"options":[]}`,
	} {
		c := mustParse(t, body, global).Command
		if !command.SameDefinition(&a, &c) {
			t.Errorf("%s: not the same definition as the plain command", body)
		}
	}
}

// editShapeBodies are definitions whose EditShape must parse back to the
// same definition.
var editShapeBodies = []struct {
	target command.Target
	body   string
}{
	{global, chatNamed("x", "d")},
	{guild, chatNamed("x", "d")},
	{global, `{"type":2,"name":"Show Profile","name_localizations":{"de":"Profil zeigen"},"nsfw":true}`},
	{guild, `{"type":3,"name":"Quote","default_member_permissions":8}`},
	{globalEmbedded, `{"type":4,"name":"Launch","description":"Play","handler":2}`},
	{global, `{"name":"hello","description":"Say hello","name_localizations":{"de":"hallo"},` +
		`"description_localizations":{"fr":"Dis bonjour"},"dm_permission":false,"integration_types":[1],"contexts":[1,2],` +
		`"default_member_permissions":"0","default_permission":false}`},
	{guild, chat(opt(2, "g", `,"options":`+optsOf(opt(1, "s", `,"options":`+optsOf(
		opt(4, "i", `,"required":true,"min_value":-3,"max_value":9007199254740991`),
		opt(10, "n", `,"min_value":0.001,"choices":[{"name":"pi","value":3.14159,"name_localizations":{"de":"Pi"}}]`),
		opt(3, "s", `,"min_length":0,"max_length":6000,"autocomplete":true`),
		opt(7, "c", `,"channel_types":[0,2]`),
	)))), opt(1, "t", ""))},
	{global, bigCommand(22, `,"name_localizations":{"de":"kurz"}`)},
}

func TestEditShapeRoundTrip(t *testing.T) {
	for i, tc := range editShapeBodies {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			c := mustParse(t, tc.body, tc.target).Command
			c.ID, c.Version = 77, 88
			shape := command.EditShape(&c)
			for _, k := range []string{"id", "version", "application_id", "guild_id"} {
				if _, ok := shape[k]; ok {
					t.Errorf("edit shape has %q", k)
				}
			}
			tg := tc.target
			tg.Mode = command.ModeEdit
			back, errs := command.Parse(shape, tg)
			if !errs.Empty() {
				b, _ := json.Marshal(errs)
				t.Fatalf("edit shape does not parse: %s", b)
			}
			if !command.SameDefinition(&c, &back.Command) {
				x, _ := json.Marshal(&c)
				y, _ := json.Marshal(&back.Command)
				t.Fatalf("round trip changed the command\nbefore %s\nafter  %s", x, y)
			}
			// An empty PATCH is a no-op edit.
			shape = command.Overlay(command.EditShape(&c), map[string]any{}, tg.Scope.Global())
			back, _ = command.Parse(shape, tg)
			p, err := command.Edit([]command.Command{c}, c.ID, back, seqIDs(1))
			if err != nil || len(p.Put) != 0 || p.Result[0].Version != c.Version {
				t.Fatalf("empty edit: %+v %v", p, err)
			}
		})
	}
}

func TestOverlay(t *testing.T) {
	c := mustParse(t, `{"name":"x","description":"d","nsfw":true,"dm_permission":false}`, global).Command
	patch := map[string]any{"description": "new", "id": "1", "version": "2", "application_id": "3", "bogus": true,
		"dm_permission": true}
	shape := command.Overlay(command.EditShape(&c), patch, true)
	if shape["description"] != "new" || shape["name"] != "x" || shape["nsfw"] != true || shape["dm_permission"] != true {
		t.Fatalf("shape = %v", shape)
	}
	for _, k := range []string{"id", "version", "application_id", "bogus"} {
		if _, ok := shape[k]; ok {
			t.Errorf("patch key %q laid over", k)
		}
	}
	// A null in the patch replaces the stored value.
	shape = command.Overlay(command.EditShape(&c), map[string]any{"name_localizations": nil, "default_member_permissions": nil}, true)
	if v, ok := shape["name_localizations"]; !ok || v != nil {
		t.Fatalf("null not laid over: %v", shape)
	}
}

func TestOverwriteRenamesEntryPoint(t *testing.T) {
	app := command.App{ID: 1, Flags: command.ApplicationFlagEmbedded, IntegrationTypes: []int{0}}
	scope := command.Scope{ApplicationID: 1}
	parse := func(body string) command.Parsed {
		v, err := form.DecodeJSON([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		p, errs := command.Parse(v, command.Target{App: app, Scope: scope, Mode: command.ModeBulk})
		if !errs.Empty() {
			t.Fatalf("parse %s: %v", body, errs.Err())
		}
		return p
	}
	n := snowflake.ID(100)
	next := func() snowflake.ID { n++; return n }
	first, err := command.Overwrite(nil, []command.Parsed{parse(`{"type":4,"name":"Launch","handler":2}`)}, true, 0, next)
	if err != nil {
		t.Fatal(err)
	}
	second, err := command.Overwrite(first.Put, []command.Parsed{parse(`{"type":4,"name":"Play","handler":2}`)}, true, 0, next)
	if err != nil {
		t.Fatalf("renaming the entry point in a bulk overwrite: %v", err)
	}
	if got, want := second.Result[0].ID, first.Result[0].ID; got != want || len(second.Delete) != 0 {
		t.Fatalf("entry point not renamed in place: id %d want %d, deletes %v", got, want, second.Delete)
	}
}

// With the current commands' wire forms known (as the store hands them),
// a write decides the same and gives the stored forms of what it puts:
// exactly json.Marshal of each, with the new version.
func TestPlansWithWireForms(t *testing.T) {
	tg := command.Target{App: command.App{ID: 1}, Scope: command.Scope{ApplicationID: 1, GuildID: 2}, Mode: command.ModeBulk}
	cur := stored(t, tg, chatNamed("alpha", "a"), chatNamed("beta", "b"))
	withWire := make([]command.Command, len(cur))
	for i, c := range cur {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		withWire[i] = command.WithWire(c, b)
	}
	in := []command.Parsed{mustParse(t, chatNamed("alpha", "a"), tg), mustParse(t, chatNamed("beta", "changed"), tg),
		mustParse(t, chatNamed("gamma", "new"), tg)}
	for _, tc := range []struct {
		name string
		cur  []command.Command
	}{{"without", cur}, {"with", withWire}} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := command.Overwrite(tc.cur, in, false, 0, seqIDs(1000))
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Put) != 2 || p.Put[0].Name != "beta" || p.Put[1].Name != "gamma" {
				t.Fatalf("Put %v, want beta and gamma", ids(p.Put))
			}
			if !reflect.DeepEqual(p.Result[0], cur[0]) {
				t.Errorf("unchanged alpha: %+v, want the stored %+v", p.Result[0], cur[0])
			}
			if p.Put[0].Version == cur[1].Version || p.Put[0].ID != cur[1].ID {
				t.Errorf("changed beta keeps id %v and gets a new version: %v/%v", cur[1].ID, p.Put[0].ID, p.Put[0].Version)
			}
			for i, c := range p.Put {
				if i >= len(p.PutWire) || p.PutWire[i] == nil {
					continue // unknown: the store encodes it
				}
				want, _ := json.Marshal(c)
				if string(p.PutWire[i]) != string(want) {
					t.Errorf("PutWire[%d] = %s, want %s", i, p.PutWire[i], want)
				}
			}
			if tc.name == "with" && (len(p.PutWire) < 1 || p.PutWire[0] == nil) {
				t.Error("beta's wire form unknown though the stored one was given")
			}
		})
	}
}
