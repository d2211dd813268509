package api_test

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// parallel runs fn(i) for i in [0, n) at once and returns the responses.
func parallel(t *testing.T, n int, fn func(i int) (testenv.Response, error)) []testenv.Response {
	t.Helper()
	out := make([]testenv.Response, n)
	errs := make([]error, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			out[i], errs[i] = fn(i)
		}()
	}
	start.Done()
	done.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestConcurrentUpsertSameName(t *testing.T) {
	t.Parallel()
	for _, scope := range []string{"global", "guild"} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			p := v10(e)
			list := p.global()
			if scope == "guild" {
				list = p.guildCmds()
			}
			res := parallel(t, 20, func(int) (testenv.Response, error) {
				return doJSON(e, "POST", list, e.Bot(), chat("race"))
			})
			created, ids, versions := 0, map[string]bool{}, map[string]bool{}
			for _, r := range res {
				switch r.Status {
				case 201:
					created++
				case 200:
				default:
					t.Fatalf("status %s", describe(r))
				}
				m := decodeObj(t, r)
				ids[str(m, "id")], versions[str(m, "version")] = true, true
			}
			if created != 1 || len(ids) != 1 || len(versions) != 1 {
				t.Fatalf("created %d, ids %v, versions %v", created, ids, versions)
			}
			l := decodeList(t, mustDo(t, e, "GET", list, e.Bot(), nil, 200))
			if len(l) != 1 || !ids[str(l[0], "id")] {
				t.Fatalf("stored %v", l)
			}
		})
	}
}

// TestConcurrentUpsertDifferentDefinitions: concurrent upserts of one name
// with different descriptions leave one command, holding one of them.
func TestConcurrentUpsertDifferentDefinitions(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	res := parallel(t, 20, func(i int) (testenv.Response, error) {
		return doJSON(e, "POST", p.guildCmds(), e.Bot(), with(chat("race"), "description", fmt.Sprintf("v%d", i)))
	})
	created, ids := 0, map[string]bool{}
	for _, r := range res {
		if r.Status != 200 && r.Status != 201 {
			t.Fatalf("status %s", describe(r))
		}
		if r.Status == 201 {
			created++
		}
		ids[str(decodeObj(t, r), "id")] = true
	}
	l := decodeList(t, mustDo(t, e, "GET", p.guildCmds(), e.Bot(), nil, 200))
	if created != 1 || len(ids) != 1 || len(l) != 1 {
		t.Fatalf("created %d ids %v stored %v", created, ids, l)
	}
}

// TestConcurrentBulkOverwrite: the final state is exactly one of the
// submitted sets, and each response is exactly the set it submitted.
func TestConcurrentBulkOverwrite(t *testing.T) {
	t.Parallel()
	for _, scope := range []string{"global", "guild"} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			p := v10(e)
			list := p.global()
			if scope == "guild" {
				list = p.guildCmds()
			}
			// A shared command in every set, plus 3 of the set's own.
			sets := make([][]jsonObj, 20)
			for i := range sets {
				sets[i] = []jsonObj{chat("shared"), chat(fmt.Sprintf("s%d-a", i)), userCmd(fmt.Sprintf("Set %d", i)), msgCmd(fmt.Sprintf("Set %d", i))}
			}
			res := parallel(t, len(sets), func(i int) (testenv.Response, error) {
				return doJSON(e, "PUT", list, e.Bot(), sets[i])
			})
			shared := map[string]bool{}
			for i, r := range res {
				wantStatus(t, r, 200)
				l := decodeList(t, r)
				if got, want := keysOf(l), keysOf(sets[i]); !reflect.DeepEqual(got, want) {
					t.Fatalf("response %d: %v, want %v", i, got, want)
				}
				shared[str(byName(l)["1/shared"], "id")] = true
			}
			// "shared" is never re-created: one id throughout.
			if len(shared) != 1 {
				t.Fatalf("shared command ids %v", shared)
			}
			final := decodeList(t, mustDo(t, e, "GET", list, e.Bot(), nil, 200))
			got := keysOf(final)
			match := -1
			for i := range sets {
				if reflect.DeepEqual(got, keysOf(sets[i])) {
					match = i
				}
			}
			if match < 0 {
				t.Fatalf("final state %v is none of the sets", got)
			}
		})
	}
}

// TestConcurrentCreatesRespectCap: 110 different names at once; exactly
// 100 are created, the rest get 30032.
func TestConcurrentCreatesRespectCap(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	res := parallel(t, 110, func(i int) (testenv.Response, error) {
		return doJSON(e, "POST", p.guildCmds(), e.Bot(), chat(fmt.Sprintf("n%d", i)))
	})
	created, refused := 0, 0
	for _, r := range res {
		switch r.Status {
		case 201:
			created++
		case 400:
			wantError(t, r, 400, bodyMaxCommands(100))
			refused++
		default:
			t.Fatalf("status %s", describe(r))
		}
	}
	if created != 100 || refused != 10 {
		t.Fatalf("created %d refused %d", created, refused)
	}
	if l := decodeList(t, mustDo(t, e, "GET", p.guildCmds(), e.Bot(), nil, 200)); len(l) != 100 {
		t.Fatalf("%d stored", len(l))
	}
}

// TestConcurrentMixedWrites: creates, edits, deletes and permission writes
// on one guild at once never fail with anything but their documented
// errors, and leave a consistent state.
func TestConcurrentMixedWrites(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	base := decodeList(t, mustDo(t, e, "PUT", p.guildCmds(), e.Bot(), chatN("m", 10), 200))
	res := parallel(t, 40, func(i int) (testenv.Response, error) {
		c := base[i%10]
		switch i % 4 {
		case 0:
			return doJSON(e, "PATCH", p.guildCmd(str(c, "id")), e.Bot(), jsonObj{"description": fmt.Sprintf("edit %d", i)})
		case 1:
			return doJSON(e, "DELETE", p.guildCmd(str(c, "id")), e.Bot(), nil)
		case 2:
			return doJSON(e, "PUT", p.cmdPerms(str(c, "id")), e.Owner(), permsBody(entry(e.App.GuildID, 1, i%8 == 2)))
		default:
			return doJSON(e, "POST", p.guildCmds(), e.Bot(), chat(fmt.Sprintf("new%d", i)))
		}
	})
	for i, r := range res {
		switch {
		case r.Status < 300:
		case r.Status == 404 && (i%4 == 0 || i%4 == 1 || i%4 == 2):
			// The command was deleted first.
			wantError(t, r, 404, bodyUnknownCommand)
		default:
			t.Fatalf("request %d: %s", i, describe(r))
		}
	}
	// Every permission list belongs to a command that still exists.
	l := decodeList(t, mustDo(t, e, "GET", p.guildCmds(), e.Bot(), nil, 200))
	exists := map[string]bool{}
	for _, c := range l {
		exists[str(c, "id")] = true
	}
	for _, gp := range decodeList(t, mustDo(t, e, "GET", p.allPerms(), e.Bot(), nil, 200)) {
		if !exists[str(gp, "id")] {
			t.Errorf("permissions of a deleted command: %v", gp)
		}
	}
}

// keysOf renders a list of commands as sorted "type/name" keys.
func keysOf(l []jsonObj) []string {
	out := make([]string, 0, len(l))
	for _, c := range l {
		typ := c["type"]
		if typ == nil {
			typ = 1
		}
		out = append(out, fmt.Sprintf("%v/%s", typ, str(c, "name")))
	}
	sort.Strings(out)
	return out
}
