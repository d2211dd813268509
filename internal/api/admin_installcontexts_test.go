package api_test

// HTTP tests of an app's installation contexts (integration_types_config),
// its discovery flag and the apps installed to users' accounts, through
// the admin API and the commands API.

import (
	"fmt"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/testenv"
)

const (
	msgIntegrationType = "Integration type is not supported by the application"
	codeIntegration    = "APPLICATION_COMMAND_INTEGRATION_TYPE_INVALID"
	codeNSFW           = "APPLICATION_COMMAND_NSFW_INVALID"
	msgNSFW            = "Applications with discovery enabled cannot have age-restricted commands"
)

// appConfig reads what each app object slashd serves says about the
// bootstrapped app's installation contexts: the admin API's, and the
// bot's /applications/@me and /oauth2/applications/@me.
func appConfig(t *testing.T, e *testenv.Env) (admin jsonObj, bot []jsonObj) {
	t.Helper()
	admin = adminObj(t, e, "GET", "/applications/"+e.App.ApplicationID, nil, 200)
	for _, path := range []string{"/api/v10/applications/@me", "/api/v10/oauth2/applications/@me"} {
		bot = append(bot, decodeObj(t, mustDo(t, e, "GET", path, e.Bot(), nil, 200)))
	}
	return admin, bot
}

func TestAdminIntegrationTypesConfig(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	appPath := "/applications/" + e.App.ApplicationID
	wantConfig := func(when, config, types string) {
		t.Helper()
		admin, bot := appConfig(t, e)
		if got := mustMarshal(admin["integration_types_config"]); canon(t, got) != canon(t, []byte(config)) {
			t.Errorf("%s: admin integration_types_config %s, want %s", when, got, config)
		}
		if got := string(mustMarshal(admin["integration_types"])); got != types {
			t.Errorf("%s: admin integration_types %s, want %s", when, got, types)
		}
		for i, b := range bot {
			if got := mustMarshal(b["integration_types_config"]); canon(t, got) != canon(t, []byte(config)) {
				t.Errorf("%s: bot's application object %d: integration_types_config %s, want %s", when, i, got, config)
			}
		}
	}
	wantConfig("bootstrapped", `{"0":{},"1":{}}`, "[0,1]")

	// The real application object's shape, install params included.
	full := jsonObj{
		"0": jsonObj{"oauth2_install_params": jsonObj{"scopes": []string{"applications.commands", "bot"}, "permissions": "2048"}},
		"1": jsonObj{"oauth2_install_params": jsonObj{"scopes": []string{"applications.commands"}, "permissions": 0}},
	}
	got := adminObj(t, e, "PATCH", appPath, jsonObj{"integration_types_config": full}, 200)
	fullJSON := `{"0":{"oauth2_install_params":{"scopes":["applications.commands","bot"],"permissions":"2048"}},
		"1":{"oauth2_install_params":{"scopes":["applications.commands"],"permissions":"0"}}}`
	wantJSON(t, mustMarshal(got["integration_types_config"]), fullJSON)
	wantConfig("both with params", fullJSON, "[0,1]")

	// User install only; a null entry has no params.
	adminDo(t, e, "PATCH", appPath, jsonObj{"integration_types_config": jsonObj{"1": nil}}, 200)
	wantConfig("user install only", `{"1":{}}`, "[1]")
	adminDo(t, e, "PATCH", appPath, jsonObj{"integration_types_config": jsonObj{"0": jsonObj{}}}, 200)
	wantConfig("guild install only", `{"0":{}}`, "[0]")

	// Invalid bodies change nothing (flags in the same body included).
	before := adminDo(t, e, "GET", appPath, nil, 200).Body
	cases := []struct {
		name   string
		config any
		leaves []leaf
	}{
		{"not an object", "both", []leaf{{"integration_types_config", "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType."}}},
		{"empty", jsonObj{}, []leaf{{"integration_types_config", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 2 in length."}}},
		{"unknown type", jsonObj{"2": nil}, []leaf{{"integration_types_config.2", "BASE_TYPE_CHOICES", "Value must be one of (0, 1)."}}},
		{"type not a number", jsonObj{"guild": nil}, []leaf{{"integration_types_config.guild", "BASE_TYPE_CHOICES", "Value must be one of (0, 1)."}}},
		{"entry not an object", jsonObj{"0": 5}, []leaf{{"integration_types_config.0", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."}}},
		{"params without scopes", jsonObj{"0": jsonObj{"oauth2_install_params": jsonObj{"permissions": "8"}}},
			[]leaf{{"integration_types_config.0.oauth2_install_params.scopes", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"bot for a user install", jsonObj{"1": jsonObj{"oauth2_install_params": jsonObj{"scopes": []string{"applications.commands", "bot"}}}},
			[]leaf{{"integration_types_config.1.oauth2_install_params.scopes.1", "BASE_TYPE_CHOICES", "Value must be one of ('applications.commands',)."}}},
		{"unknown scope", jsonObj{"0": jsonObj{"oauth2_install_params": jsonObj{"scopes": []string{"identify"}}}},
			[]leaf{{"integration_types_config.0.oauth2_install_params.scopes.0", "BASE_TYPE_CHOICES", "Value must be one of ('applications.commands', 'bot')."}}},
		{"no scopes", jsonObj{"0": jsonObj{"oauth2_install_params": jsonObj{"scopes": []string{}}}},
			[]leaf{{"integration_types_config.0.oauth2_install_params.scopes", "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length."}}},
		{"permissions without bot", jsonObj{"0": jsonObj{"oauth2_install_params": jsonObj{"scopes": []string{"applications.commands"}, "permissions": "8"}}},
			[]leaf{{"integration_types_config.0.oauth2_install_params.permissions", "INSTALLATION_PERMISSIONS_INVALID", "Permissions are only granted with the bot scope"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("PATCH", "/admin/v1"+appPath, e.AdminAuth(), jsonObj{"integration_types_config": c.config, "flags": 1 << 17})
			wantError(t, r, 400, formError(c.leaves...))
			wantJSON(t, adminDo(t, e, "GET", appPath, nil, 200).Body, string(before))
		})
	}
	wantError(t, e.Do("PATCH", "/admin/v1/applications/"+unknownID, e.AdminAuth(),
		jsonObj{"integration_types_config": jsonObj{"0": nil}}), 404, bodyUnknownApp)
}

// Commands may name only the installation contexts the app supports: the
// check follows the config through create, PATCH and bulk overwrite.
// Commands that already name a context the app drops keep it.
func TestCommandIntegrationTypesFollowTheAppConfig(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	appPath := "/applications/" + e.App.ApplicationID
	both := create(t, e, p.global(), e.Bot(), with(chat("both"), "integration_types", []int{0, 1}))
	adminDo(t, e, "PATCH", appPath, jsonObj{"integration_types_config": jsonObj{"0": nil}}, 200)

	before := snapshot(t, e, p.global())
	wantError(t, mustDo(t, e, "POST", p.global(), e.Bot(), with(chat("user"), "integration_types", []int{1}), 400), 400,
		formError(leaf{"integration_types.0", codeIntegration, msgIntegrationType}))
	wantError(t, mustDo(t, e, "PATCH", p.globalCmd(str(both, "id")), e.Bot(), jsonObj{"integration_types": []int{1}}, 400), 400,
		formError(leaf{"integration_types.0", codeIntegration, msgIntegrationType}))
	wantError(t, mustDo(t, e, "PUT", p.global(), e.Bot(),
		[]jsonObj{chat("ok"), with(chat("user"), "integration_types", []int{0, 1})}, 400), 400,
		formError(leaf{"1.integration_types.1", codeIntegration, msgIntegrationType}))
	wantUnchanged(t, e, p.global(), before)

	// The kept command still edits, with its types, when they are left
	// alone; a new command defaults to what the app supports now.
	edited := decodeObj(t, mustDo(t, e, "PATCH", p.globalCmd(str(both, "id")), e.Bot(), jsonObj{"description": "Edited"}, 200))
	if fmt.Sprint(edited["integration_types"]) != "[0 1]" || str(edited, "description") != "Edited" {
		t.Fatalf("edit of a command with a dropped type: %v", edited)
	}
	guildOnly := create(t, e, p.global(), e.Bot(), chat("guildonly"))
	if fmt.Sprint(guildOnly["integration_types"]) != "[0]" {
		t.Fatalf("default integration_types of a guild-install app: %v", guildOnly["integration_types"])
	}
	// A user-install-only app: guild commands keep their [0].
	adminDo(t, e, "PATCH", appPath, jsonObj{"integration_types_config": jsonObj{"1": nil}}, 200)
	wantError(t, mustDo(t, e, "POST", p.global(), e.Bot(), with(chat("guild"), "integration_types", []int{0}), 400), 400,
		formError(leaf{"integration_types.0", codeIntegration, msgIntegrationType}))
	if c := create(t, e, p.global(), e.Bot(), chat("useronly")); fmt.Sprint(c["integration_types"]) != "[1]" {
		t.Fatalf("default integration_types of a user-install app: %v", c["integration_types"])
	}
	if c := create(t, e, p.guildCmds(), e.Bot(), chat("inguild")); fmt.Sprint(c["integration_types"]) != "[0]" {
		t.Fatalf("guild command of a user-install app: %v", c["integration_types"])
	}

	// Installing it in another guild through the admin API is refused
	// like an OAuth2 guild install; the bootstrapped installation stays.
	owner := adminNewUser(t, e, "owner")
	g := adminNewGuild(t, e, "Second", owner)
	wantError(t, adminDo(t, e, "PUT", "/guilds/"+g+"/installations/"+e.App.ApplicationID,
		jsonObj{"scopes": []string{"applications.commands"}}, 400), 400,
		apiError(0, `The application does not support guild installs: its integration_types_config has no "0" (GUILD_INSTALL)`))
	if l := adminList(t, e, "/guilds/"+e.App.GuildID+"/installations"); len(l) != 1 {
		t.Fatalf("the bootstrapped installation after GUILD_INSTALL went: %v", l)
	}

	// Supported again: the same requests pass.
	adminDo(t, e, "PATCH", appPath, jsonObj{"integration_types_config": jsonObj{"0": nil, "1": nil}}, 200)
	create(t, e, p.global(), e.Bot(), with(chat("user"), "integration_types", []int{1}))
	mustDo(t, e, "PUT", p.global(), e.Bot(), []jsonObj{with(chat("both"), "integration_types", []int{0, 1})}, 200)
	adminDo(t, e, "PUT", "/guilds/"+g+"/installations/"+e.App.ApplicationID, jsonObj{"scopes": []string{"applications.commands"}}, 201)
}

// An app with discovery enabled cannot create, edit or overwrite
// age-restricted commands, global or guild; enabling discovery is refused
// while it has one.
func TestDiscoverableAppsHaveNoAgeRestrictedCommands(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	appPath := "/applications/" + e.App.ApplicationID
	nsfw := func(name string) jsonObj { return with(chat(name), "nsfw", true) }
	safe := create(t, e, p.global(), e.Bot(), chat("safe"))
	guildSafe := create(t, e, p.guildCmds(), e.Bot(), chat("guildsafe"))

	app := adminObj(t, e, "PATCH", appPath, jsonObj{"discoverable": true}, 200)
	if app["discoverable"] != true {
		t.Fatalf("PATCH discoverable: %v", app)
	}
	if admin, _ := appConfig(t, e); admin["discoverable"] != true {
		t.Fatalf("GET after PATCH discoverable: %v", admin)
	}
	nsfwErr := func(prefix string) string { return formError(leaf{prefix + "nsfw", codeNSFW, msgNSFW}) }
	for _, scope := range []struct {
		name     string
		list     string
		existing jsonObj
	}{
		{"global", p.global(), safe},
		{"guild", p.guildCmds(), guildSafe},
	} {
		t.Run(scope.name, func(t *testing.T) {
			before := snapshot(t, e, scope.list)
			wantError(t, mustDo(t, e, "POST", scope.list, e.Bot(), nsfw("spicy"), 400), 400, nsfwErr(""))
			wantError(t, mustDo(t, e, "PATCH", scope.list+"/"+str(scope.existing, "id"), e.Bot(), jsonObj{"nsfw": true}, 400),
				400, nsfwErr(""))
			wantError(t, mustDo(t, e, "PUT", scope.list, e.Bot(), []jsonObj{chat("safe"), nsfw("spicy")}, 400), 400,
				nsfwErr("1."))
			wantUnchanged(t, e, scope.list, before)
			// nsfw false is fine.
			create(t, e, scope.list, e.Bot(), with(chat("tame"), "nsfw", false))
		})
	}

	// Discovery off: nsfw commands may be made; turning it on again is
	// refused while one exists, and changes nothing.
	adminDo(t, e, "PATCH", appPath, jsonObj{"discoverable": false}, 200)
	spicy := create(t, e, p.guildCmds(), e.Bot(), nsfw("spicy"))
	wantError(t, e.Do("PATCH", "/admin/v1"+appPath, e.AdminAuth(), jsonObj{"discoverable": true,
		"integration_types_config": jsonObj{"0": nil}}), 400,
		formError(leaf{"discoverable", "APPLICATION_DISCOVERABLE_INVALID",
			"An application with age-restricted commands cannot enable discovery"}))
	if admin, _ := appConfig(t, e); admin["discoverable"] != false || fmt.Sprint(admin["integration_types"]) != "[0 1]" {
		t.Fatalf("a refused PATCH changed the app: %v", admin)
	}
	mustDo(t, e, "PATCH", p.guildCmd(str(spicy, "id")), e.Bot(), jsonObj{"nsfw": false}, 200)
	adminDo(t, e, "PATCH", appPath, jsonObj{"discoverable": true}, 200)
	wantError(t, e.Do("PATCH", "/admin/v1"+appPath, e.AdminAuth(), jsonObj{"discoverable": "yes"}), 400,
		formError(leaf{"discoverable", "BOOLEAN_TYPE_CONVERT", "Must be either true or false."}))
}

func TestAdminUserInstallations(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	alice := adminNewUser(t, e, "alice")
	app := e.App.ApplicationID
	path := "/users/" + alice + "/installations"
	if l := adminList(t, e, path); len(l) != 0 {
		t.Fatalf("a new user's installations: %v", l)
	}
	want := fmt.Sprintf(`{"user_id":%q,"application_id":%q,"scopes":["applications.commands"]}`, alice, app)
	wantJSON(t, adminDo(t, e, "PUT", path+"/"+app, nil, 201).Body, want)
	wantJSON(t, adminDo(t, e, "PUT", path+"/"+app, jsonObj{"scopes": []string{"applications.commands"}}, 200).Body, want)
	wantJSON(t, adminDo(t, e, "GET", path+"/"+app, nil, 200).Body, want)
	wantJSON(t, adminDo(t, e, "GET", path, nil, 200).Body, "["+want+"]")
	counts := decodeObj(t, mustDo(t, e, "GET", "/api/v10/applications/@me", e.Bot(), nil, 200))
	if counts["approximate_user_install_count"] != float64(1) {
		t.Fatalf("approximate_user_install_count: %v", counts["approximate_user_install_count"])
	}

	// A second app, listed after the first (by id).
	other := e.NewApp(bootstrap.AppOptions{Name: "other"})
	adminDo(t, e, "PUT", path+"/"+other.ApplicationID, nil, 201)
	if l := ids(adminList(t, e, path), "application_id"); len(l) != 2 || l[0] != app || l[1] != other.ApplicationID {
		t.Fatalf("installations: %v", l)
	}

	adminDo(t, e, "DELETE", path+"/"+app, nil, 204)
	wantError(t, adminDo(t, e, "DELETE", path+"/"+app, nil, 404), 404, bodyUnknownIntegration)
	wantError(t, adminDo(t, e, "GET", path+"/"+app, nil, 404), 404, bodyUnknownIntegration)
	if l := ids(adminList(t, e, path), "application_id"); len(l) != 1 || l[0] != other.ApplicationID {
		t.Fatalf("installations after DELETE: %v", l)
	}

	// Refusals.
	wantError(t, adminDo(t, e, "PUT", "/users/"+unknownID+"/installations/"+app, nil, 404), 404, bodyUnknownUser)
	wantError(t, adminDo(t, e, "GET", "/users/"+unknownID+"/installations", nil, 404), 404, bodyUnknownUser)
	wantError(t, adminDo(t, e, "PUT", path+"/"+unknownID, nil, 404), 404, bodyUnknownApp)
	wantError(t, adminDo(t, e, "DELETE", path+"/"+unknownID, nil, 404), 404, bodyUnknownApp)
	wantError(t, adminDo(t, e, "PUT", path+"/"+app, jsonObj{"scopes": []string{"bot"}}, 400), 400,
		formError(leaf{"scopes.0", "BASE_TYPE_CHOICES", "Value must be one of ('applications.commands',)."}))
	wantError(t, adminDo(t, e, "PUT", path+"/"+app, jsonObj{"scopes": []string{}}, 400), 400,
		formError(leaf{"scopes", "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length."}))
	wantError(t, adminDo(t, e, "PUT", "/users/"+app+"/installations/"+other.ApplicationID, nil, 400), 400,
		apiError(0, "A bot user cannot install applications"))
	adminDo(t, e, "PATCH", "/applications/"+app, jsonObj{"integration_types_config": jsonObj{"0": nil}}, 200)
	wantError(t, adminDo(t, e, "PUT", path+"/"+app, nil, 400), 400,
		apiError(0, `The application does not support user installs: its integration_types_config has no "1" (USER_INSTALL)`))
	if l := adminList(t, e, path); len(l) != 1 {
		t.Fatalf("installations after refusals: %v", l)
	}

	// Deleting the user deletes their installations.
	adminDo(t, e, "DELETE", "/users/"+alice, nil, 204)
	counts = decodeObj(t, mustDo(t, e, "GET", "/api/v10/applications/@me", e.Bot(), nil, 200))
	if counts["approximate_user_install_count"] != float64(0) {
		t.Fatalf("approximate_user_install_count after deleting the user: %v", counts["approximate_user_install_count"])
	}
}
