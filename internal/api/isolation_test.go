package api_test

import (
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/testenv"
)

// TestAppIsolation: app B's credentials can never read or change app A's
// commands or permissions, and B's lists never show A's commands.
func TestAppIsolation(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	a := v10(e)
	b := e.NewApp(bootstrap.AppOptions{Name: "app-b"})
	bp := pathsFor("/api/v10", b)
	// B is also installed in A's guild, so guild checks pass for B itself.
	if _, err := e.Store.Installation(t.Context(), mustID(t, e.App.GuildID), mustID(t, b.ApplicationID)); err == nil {
		t.Fatal("unexpected installation")
	}
	installIn(t, e, e.App.GuildID, b.ApplicationID)

	ag := create(t, e, a.global(), e.Bot(), with(chat("secret"), "name_localizations", jsonObj{"de": "geheim"}))
	al := create(t, e, a.guildCmds(), e.Bot(), chat("secret-local"))
	mustDo(t, e, "PUT", a.cmdPerms(str(al, "id")), e.Owner(), permsBody(entry(e.App.GuildID, 1, false)), 200)
	mustDo(t, e, "PUT", a.cmdPerms(e.App.ApplicationID), e.Owner(), permsBody(entry(e.App.GuildID, 1, true)), 200)
	snapG, snapL := snapshot(t, e, a.global()), snapshot(t, e, a.guildCmds())
	snapP := string(mustDo(t, e, "GET", a.allPerms(), e.Bot(), nil, 200).Body)

	bBot := "Bot " + b.BotToken
	bOwner := "Bearer " + b.OwnerBearerToken
	bClient := clientCredentials(t, e, b, "applications.commands.update identify")
	for name, tok := range map[string]string{"bot": bBot, "owner bearer": bOwner, "client credentials": bClient} {
		t.Run(name, func(t *testing.T) {
			for _, ep := range endpointsOf(a, str(ag, "id"), str(al, "id")) {
				r := mustDo(t, e, ep.method, ep.path, tok, ep.body, -1)
				switch {
				case ep.batchPut():
					wantError(t, r, 405, bodyMethod)
				case ep.permsPut() && tok == bBot:
					wantError(t, r, 403, bodyBotsCannotUse) // refused before anything else
				case ep.permsPut() && tok == bClient:
					wantError(t, r, 401, bodyMissingScope)
				default:
					wantError(t, r, 403, bodyNotYourApp)
				}
			}
			// Same through the other prefixes.
			for _, prefix := range []string{"/api/v9", "/api"} {
				q := pathsFor(prefix, e.App)
				wantError(t, mustDo(t, e, "GET", q.global(), tok, nil, 403), 403, bodyNotYourApp)
				wantError(t, mustDo(t, e, "GET", q.guildCmd(str(al, "id")), tok, nil, 403), 403, bodyNotYourApp)
			}
		})
	}

	// A's ids through B's own paths are unknown to B.
	for _, path := range []string{bp.globalCmd(str(ag, "id")), bp.withGuild(e.App.GuildID).guildCmd(str(al, "id"))} {
		wantError(t, mustDo(t, e, "GET", path, bBot, nil, 404), 404, bodyUnknownCommand)
		wantError(t, mustDo(t, e, "PATCH", path, bBot, jsonObj{"name": "stolen"}, 404), 404, bodyUnknownCommand)
		wantError(t, mustDo(t, e, "DELETE", path, bBot, nil, 404), 404, bodyUnknownCommand)
	}
	bInA := bp.withGuild(e.App.GuildID)
	wantError(t, mustDo(t, e, "GET", bInA.cmdPerms(str(al, "id")), bBot, nil, 404), 404, bodyUnknownPerms)
	wantError(t, mustDo(t, e, "PUT", bInA.cmdPerms(str(al, "id")), "Bearer "+e.App.OwnerBearerToken, permsBody(), 403), 403, bodyNotYourApp)

	// B's lists show none of A's commands or permissions, even with the
	// same names and in the same guild.
	for _, path := range []string{bp.global(), bInA.guildCmds(), bInA.allPerms()} {
		if r := mustDo(t, e, "GET", path, bBot, nil, 200); string(r.Body) != "[]" {
			t.Errorf("%s: %s", path, r.Body)
		}
	}
	mustDo(t, e, "POST", bp.global(), bBot, chat("secret"), 201)
	mustDo(t, e, "PUT", bInA.guildCmds(), bBot, []jsonObj{chat("secret-local")}, 200)
	for _, path := range []string{bp.global(), bInA.guildCmds()} {
		for _, c := range decodeList(t, mustDo(t, e, "GET", path+"?with_localizations=true", bBot, nil, 200)) {
			if c["application_id"] != b.ApplicationID || c["id"] == ag["id"] || c["id"] == al["id"] {
				t.Errorf("%s shows %v", path, c)
			}
		}
	}

	// A is exactly as it was.
	wantUnchanged(t, e, a.global(), snapG)
	wantUnchanged(t, e, a.guildCmds(), snapL)
	wantJSON(t, mustDo(t, e, "GET", a.allPerms(), e.Bot(), nil, 200).Body, snapP)
}

func installIn(t testing.TB, e *testenv.Env, guild, app string) {
	t.Helper()
	if err := e.API.Store().Install(t.Context(), storeInstallation(t, guild, app)); err != nil {
		t.Fatal(err)
	}
}
