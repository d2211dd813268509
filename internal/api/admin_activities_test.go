package api_test

import (
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// Enabling Activities (the EMBEDDED flag) through the admin API creates
// the global Launch entry point with handler 2 once (spec §2.3); turning
// them off keeps it but hides it from the picker.
func TestAdminEnableActivitiesCreatesLaunch(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	appPath := "/applications/" + e.App.ApplicationID
	entryPoints := func() []jsonObj {
		var out []jsonObj
		for _, c := range decodeList(t, mustDo(t, e, "GET", p.global(), e.Bot(), nil, 200)) {
			if c["type"] == float64(4) {
				out = append(out, c)
			}
		}
		return out
	}
	if l := entryPoints(); len(l) != 0 {
		t.Fatalf("before: %v", l)
	}
	const embedded = 1 << 17
	for i := 0; i < 2; i++ { // the second PATCH changes nothing
		app := adminObj(t, e, "PATCH", appPath, jsonObj{"flags": embedded}, 200)
		if app["flags"] != float64(embedded) {
			t.Fatalf("flags: %v", app)
		}
		l := entryPoints()
		if len(l) != 1 || l[0]["name"] != "Launch" || l[0]["handler"] != float64(2) {
			t.Fatalf("after enabling (%d): %v", i, l)
		}
	}
	w := newWorld(t, e)
	ch := w.channel(jsonObj{"name": "general", "type": 0})
	member := w.client(w.memberNamed("bob"))
	shown := func() bool {
		for _, c := range getIndex(t, e, ch, member).Commands {
			if c["type"] == float64(4) {
				return true
			}
		}
		return false
	}
	if !shown() {
		t.Fatal("the Launch command is not in the picker of an app with Activities")
	}
	adminDo(t, e, "PATCH", appPath, jsonObj{"flags": 0}, 200)
	if len(entryPoints()) != 1 || shown() {
		t.Fatal("disabling Activities must keep the command and hide it")
	}
	wantError(t, e.Do("PATCH", "/admin/v1"+appPath, e.AdminAuth(), jsonObj{"flags": -1}), 400,
		formError(leaf{"flags", "NUMBER_TYPE_MIN", "int value should be greater than or equal to 0."}))
	wantError(t, e.Do("PATCH", "/admin/v1/applications/1234", e.AdminAuth(), jsonObj{"flags": 0}), 404,
		`{"message":"Unknown Application","code":10002}`)
}
