package api_test

// A small builder of guild worlds through the admin API, shared by the
// permissions-v2 tests (perm2_*_test.go): who may edit command
// permissions, the access decision as the admin explain endpoint gives
// it, and the command picker.

import (
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// Permission bits as decimal strings.
const (
	permAdministrator = "8"
	permManageGuild   = "32"
	permManageRoles   = "268435456"
	permManageBoth    = "268435488" // MANAGE_GUILD | MANAGE_ROLES
	permViewChannel   = "1024"
)

// world is one guild built through the admin API, owned by a fresh user,
// with the environment's first app installed (applications.commands and
// bot).
type world struct {
	t     testing.TB
	e     *testenv.Env
	guild string
	owner string
	app   string // e.App
	paths apiPaths
}

func newWorld(t testing.TB, e *testenv.Env) *world {
	t.Helper()
	owner := adminNewUser(t, e, "owner")
	g := adminNewGuild(t, e, "perm2 world", owner)
	w := &world{t: t, e: e, guild: g, owner: owner, app: e.App.ApplicationID, paths: v10(e).withGuild(g)}
	w.install(w.app)
	return w
}

func (w *world) install(app string) {
	w.t.Helper()
	adminDo(w.t, w.e, "PUT", "/guilds/"+w.guild+"/installations/"+app,
		jsonObj{"scopes": []string{"applications.commands", "bot"}}, -1)
}

func (w *world) uninstall(app string) {
	w.t.Helper()
	adminDo(w.t, w.e, "DELETE", "/guilds/"+w.guild+"/installations/"+app, nil, 204)
}

// role creates a role with the given permissions and position.
func (w *world) role(name, perms string, position int) string {
	w.t.Helper()
	return str(adminObj(w.t, w.e, "POST", "/guilds/"+w.guild+"/roles",
		jsonObj{"name": name, "permissions": perms, "position": position}, 201), "id")
}

// user creates a user (extra fields: locale, adult) who is not a member.
func (w *world) user(name string, extra ...any) string {
	w.t.Helper()
	return str(adminObj(w.t, w.e, "POST", "/users", with(jsonObj{"username": name}, extra...), 201), "id")
}

// member makes user a member with the roles.
func (w *world) member(user string, roles ...string) {
	w.t.Helper()
	if roles == nil {
		roles = []string{}
	}
	adminDo(w.t, w.e, "PUT", "/guilds/"+w.guild+"/members/"+user, jsonObj{"roles": roles}, -1)
}

// memberNamed is user then member.
func (w *world) memberNamed(name string, roles ...string) string {
	w.t.Helper()
	u := w.user(name)
	w.member(u, roles...)
	return u
}

// channel creates a channel (body: name, type, parent_id, nsfw,
// permission_overwrites).
func (w *world) channel(body jsonObj) string {
	w.t.Helper()
	return str(adminObj(w.t, w.e, "POST", "/guilds/"+w.guild+"/channels", body, 201), "id")
}

// bearer mints a Bearer token the user granted app; it returns the whole
// Authorization value.
func (w *world) bearer(user, app, scopes string) string {
	w.t.Helper()
	r := adminObj(w.t, w.e, "POST", "/users/"+user+"/tokens",
		jsonObj{"type": "bearer", "application_id": app, "scopes": scopes}, 201)
	return "Bearer " + str(r, "access_token")
}

// editor is a Bearer token with applications.commands.permissions.update
// for the environment's first app.
func (w *world) editor(user string) string {
	w.t.Helper()
	return w.bearer(user, w.app, "identify applications.commands.permissions.update")
}

// client mints the user's client token (sent bare).
func (w *world) client(user string) string {
	w.t.Helper()
	return str(adminObj(w.t, w.e, "POST", "/users/"+user+"/tokens", jsonObj{"type": "client"}, 201), "token")
}

// allChannels is the all-channels constant of the world's guild.
func (w *world) allChannels() string { return allChannels(w.t, w.guild) }
