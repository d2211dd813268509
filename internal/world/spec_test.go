package world

import (
	"crypto/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

// issueExample is issue 24's example, which must work as written.
const issueExample = `{"name": "ban-tests",
 "users": {"alice": {}, "bob": {"locale": "fr"}},
 "apps": {"modbot": {"commands": [{"name": "ban", "description": "Ban someone",
           "options": [{"type": 6, "name": "user", "description": "Who", "required": true},
                       {"type": 3, "name": "reason", "description": "Why"}]}]}},
 "guilds": {"club": {"owner": "alice",
   "roles": {"mods": {"permissions": ["BAN_MEMBERS"]}},
   "channels": {"general": {}, "staff": {"overwrites": {"@everyone": {"deny": ["VIEW_CHANNEL"]},
                                                        "mods": {"allow": ["VIEW_CHANNEL"]}}}},
   "members": {"alice": {"roles": ["mods"]}, "bob": {}},
   "install": {"modbot": {"scopes": ["bot", "applications.commands"]}}}}}`

// issueExampleYAML is the same world in YAML.
const issueExampleYAML = `
name: ban-tests
users:
  alice: {}
  bob: {locale: fr}
apps:
  modbot:
    commands:
      - name: ban
        description: Ban someone
        options:
          - {type: 6, name: user, description: Who, required: true}
          - {type: 3, name: reason, description: Why}
guilds:
  club:
    owner: alice
    roles:
      mods: {permissions: [BAN_MEMBERS]}
    channels:
      general: {}
      staff:
        overwrites:
          "@everyone": {deny: [VIEW_CHANNEL]}
          mods: {allow: [VIEW_CHANNEL]}
    members:
      alice: {roles: [mods]}
      bob: {}
    install:
      modbot: {scopes: [bot, applications.commands]}
`

func decodeJSON(t testing.TB, s string) (Spec, error) {
	t.Helper()
	v, err := form.DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return Decode(v)
}

func counterIDs() func() snowflake.ID {
	n := snowflake.ID(1000)
	return func() snowflake.ID { n++; return n }
}

func TestIssueExample(t *testing.T) {
	spec, err := decodeJSON(t, issueExample)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	fromYAML, err := FromYAML([]byte(issueExampleYAML))
	if err != nil {
		t.Fatal(err)
	}
	yspec, err := Decode(fromYAML)
	if err != nil {
		t.Fatalf("Decode YAML: %v", err)
	}
	if !reflect.DeepEqual(spec, yspec) {
		t.Fatalf("YAML spec differs:\n%+v\n%+v", yspec, spec)
	}
	club := spec.Guilds[0]
	if club.Roles[0].Permissions != guild.BanMembers {
		t.Errorf("mods = %+v", club.Roles[0])
	}
	staff := club.Channels[1]
	if staff.Handle != "staff" || len(staff.Overwrites) != 2 || staff.Overwrites[0] != (Overwrite{Target: Everyone, Deny: guild.ViewChannel}) {
		t.Errorf("staff = %+v", staff)
	}
	plan, st, err := Plan(spec, 1, State{}, Sources{IDs: counterIDs(), Rand: rand.Reader, Now: time.Unix(1e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Users) != 2 || len(plan.Apps) != 1 || len(plan.Guilds) != 1 || len(plan.Roles) != 3 ||
		len(plan.Channels) != 2 || len(plan.Members) != 3 || len(plan.Installations) != 1 || len(plan.Commands) != 1 {
		t.Fatalf("plan = %+v", plan)
	}
	// The staff channel's overwrites name @everyone (the guild's id) and mods.
	gid := st.IDs["guilds.club"]
	ch := plan.Channels[1]
	want := []guild.Overwrite{{ID: gid, Type: guild.OverwriteRole, Deny: guild.ViewChannel},
		{ID: st.IDs["guilds.club.roles.mods"], Type: guild.OverwriteRole, Allow: guild.ViewChannel}}
	if !reflect.DeepEqual(ch.Overwrites, want) {
		t.Errorf("staff overwrites = %+v, want %+v", ch.Overwrites, want)
	}
	v := ViewOf(spec, st)
	if v.Apps["modbot"].BotToken == "" || v.Apps["modbot"].PublicKey == "" || v.Apps["modbot"].Commands["ban"] == 0 ||
		v.Guilds["club"].Channels["general"] == 0 || v.Users["bob"].ClientToken == "" {
		t.Errorf("view = %+v", v)
	}

	// Planned again with its state: the same ids and secrets.
	again, st2, err := Plan(spec, 1, st, Sources{IDs: counterIDs(), Rand: rand.Reader, Now: time.Unix(2e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.IDs, st2.IDs) || !reflect.DeepEqual(st.Secrets, st2.Secrets) {
		t.Errorf("replanned state differs")
	}
	if !reflect.DeepEqual(again.Tokens[0].Hash, plan.Tokens[0].Hash) || again.Apps[0].App.PublicKey != plan.Apps[0].App.PublicKey {
		t.Errorf("replanned credentials differ")
	}
}

// errorAt is the codes of err's leaves at a dotted path.
func errorAt(err error, path string) []string {
	e, ok := apierr.As(err)
	if !ok || e.Fields == nil {
		return nil
	}
	node := e.Fields
	for _, k := range strings.Split(path, ".") {
		if node = node.Child(k); node == nil {
			return nil
		}
	}
	var codes []string
	for _, l := range node.Leaves() {
		codes = append(codes, l.Code)
	}
	return codes
}

// withPatch is the issue's example with one JSON replacement applied.
func withPatch(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(issueExample, old) {
		t.Fatalf("%q is not in the example", old)
	}
	return strings.Replace(issueExample, old, new, 1)
}

func TestDecodeErrors(t *testing.T) {
	// The API's own code for a command name with a space, at the
	// command's path.
	_, cmdErrs := command.Parse(map[string]any{"name": "bad name", "description": "x"},
		command.Target{App: command.App{IntegrationTypes: []int{0, 1}}, Scope: command.Scope{ApplicationID: 1}, Mode: command.ModeBulk})
	nameCode := cmdErrs.Child("name").Leaves()[0].Code

	for _, tc := range []struct {
		name, old, new, path, code string
	}{
		{"name required", `"name": "ban-tests",`, ``, "name", form.CodeRequired},
		{"name pattern", `"ban-tests"`, `"Ban Tests"`, "name", CodeNameInvalid},
		{"name all digits", `"ban-tests"`, `"12345"`, "name", CodeNameInvalid},
		{"name not a string", `"ban-tests"`, `5`, "name", form.CodeStringConvert},
		{"unknown top-level field", `"name": "ban-tests",`, `"name": "ban-tests", "colour": 1,`, "colour", CodeUnknownKey},
		{"unknown user field", `"bob": {"locale": "fr"}`, `"bob": {"locale": "fr", "age": 3}`, "users.bob.age", CodeUnknownKey},
		{"bad locale", `"locale": "fr"`, `"locale": "xx"`, "users.bob.locale", form.CodeChoices},
		{"bad handle", `"bob": {"locale": "fr"}`, `"bob smith": {}`, "users.bob smith", CodeHandleInvalid},
		{"owner unknown", `"owner": "alice"`, `"owner": "carol"`, "guilds.club.owner", "UNKNOWN_USER"},
		{"owner required", `"owner": "alice",`, ``, "guilds.club.owner", form.CodeRequired},
		{"permission name", `"allow": ["VIEW_CHANNEL"]`, `"allow": ["VIEW_CHANNELS"]`,
			"guilds.club.channels.staff.overwrites.mods.allow.0", CodePermission},
		{"permission bits", `"permissions": ["BAN_MEMBERS"]`, `"permissions": "ban"`,
			"guilds.club.roles.mods.permissions", form.CodeCoerce},
		{"overwrite target", `"mods": {"allow"`, `"admins": {"allow"`, "guilds.club.channels.staff.overwrites.admins", CodeUnknownHandle},
		{"member role", `"roles": ["mods"]`, `"roles": ["admins"]`, "guilds.club.members.alice.roles.0", "UNKNOWN_ROLE"},
		{"member unknown", `"bob": {}}`, `"carol": {}}`, "guilds.club.members.carol", "UNKNOWN_USER"},
		{"install unknown", `"install": {"modbot"`, `"install": {"nobot"`, "guilds.club.install.nobot", "UNKNOWN_APPLICATION"},
		{"install scope", `"scopes": ["bot", "applications.commands"]`, `"scopes": ["bot", "identify"]`,
			"guilds.club.install.modbot.scopes.1", form.CodeChoices},
		{"channel type", `"general": {}`, `"general": {"type": 1}`, "guilds.club.channels.general.type", form.CodeChoices},
		{"channel parent", `"general": {}`, `"general": {"parent": "staff"}`, "guilds.club.channels.general.parent", "CHANNEL_PARENT_INVALID"},
		{"command rule", `"name": "ban"`, `"name": "bad name"`, "apps.modbot.commands.0.name", nameCode},
		{"command option", `{"type": 3, "name": "reason", "description": "Why"}`, `{"type": 42, "name": "reason", "description": "Why"}`,
			"apps.modbot.commands.0.options.1", "UNION_TYPE_CHOICES"},
		{"commands list rule", `"description": "Ban someone",`, `"description": "Ban someone"}, {"name": "ban", "description": "Again",`,
			"apps.modbot.commands", CodeCommands},
		{"app owner unknown", `"modbot": {"commands"`, `"modbot": {"owner": "carol", "commands"`, "apps.modbot.owner", "UNKNOWN_USER"},
		{"app owner not a string", `"modbot": {"commands"`, `"modbot": {"owner": 1, "commands"`, "apps.modbot.owner", form.CodeStringConvert},
		{"app name length", `"modbot": {"commands"`, `"modbot": {"name": "", "commands"`, "apps.modbot.name", form.CodeBadLength},
		{"spec not an object", `"users": {"alice": {}, "bob": {"locale": "fr"}}`, `"users": []`, "users", form.CodeDictConvert},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeJSON(t, withPatch(t, tc.old, tc.new))
			if err == nil {
				t.Fatal("accepted")
			}
			if e, ok := apierr.As(err); !ok || e.Code != apierr.CodeInvalidFormBody || e.Status != 400 {
				t.Fatalf("error %v, want a 400 50035", err)
			}
			codes := errorAt(err, tc.path)
			found := false
			for _, c := range codes {
				found = found || c == tc.code
			}
			if !found {
				body, _ := err.(*apierr.Error).Fields.MarshalJSON()
				t.Fatalf("no %s at %s: %s", tc.code, tc.path, body)
			}
		})
	}
}

// wideSpec uses every part of the format.
const wideSpec = `{"name": "wide", "users": {"alice": {"adult": true, "global_name": "Alice",
	    "installs": ["modbot"], "grants": {"modbot": "identify applications.commands.permissions.update"}}, "bob": null},
	  "apps": {"modbot": {"name": "Mod Bot", "flags": 0, "interactions_endpoint_url": "https://example.com/i",
	    "integration_types_config": {"0": null, "1": {}}, "guild_commands": {"club": [{"name": "Report", "type": 2}]}}},
	  "guilds": {"club": {"name": "The Club", "owner": "alice", "roles": {"@everyone": {"permissions": "0"},
	    "mods": {"permissions": ["KICK_MEMBERS", 4], "position": 5}},
	    "channels": {"cat": {"type": 4}, "general": {"parent": "cat", "nsfw": true, "overwrites": {"bob": {"deny": "2048"}}}},
	    "members": {"bob": {"nick": "Bobby", "roles": ["mods"]}},
	    "install": {"modbot": {"scopes": ["applications.commands"]}}}},
	  "dms": {"a-b": {"between": ["alice", "modbot"]}},
	  "group_dms": {"pair": {"recipients": ["alice", "bob"], "owner": "bob"}}}`

func TestDecodeWider(t *testing.T) {
	spec := wideSpec
	s, err := decodeJSON(t, spec)
	if err != nil {
		body, _ := err.(*apierr.Error).Fields.MarshalJSON()
		t.Fatalf("Decode: %s", body)
	}
	plan, st, err := Plan(s, 7, State{}, Sources{IDs: counterIDs(), Rand: rand.Reader, Now: time.Unix(1e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.UserInstalls) != 1 || len(plan.Private) != 2 || len(plan.Tokens) != 2 || plan.Tokens[1].Kind != "bearer" ||
		len(plan.Tokens[1].Scopes) != 2 || len(plan.Commands) != 1 || plan.Commands[0].Scope.GuildID != st.IDs["guilds.club"] {
		t.Fatalf("plan = %+v", plan)
	}
	// Installed without bot: no bot member, no managed role.
	if len(plan.Members) != 2 || len(plan.Roles) != 2 || plan.Roles[0].Permissions != 0 ||
		plan.Roles[1].Permissions != guild.KickMembers|guild.BanMembers || plan.Roles[1].Position != 5 {
		t.Fatalf("members %+v roles %+v", plan.Members, plan.Roles)
	}
	if plan.Apps[0].App.InteractionsEndpointURL != "https://example.com/i" || plan.Apps[0].App.Name != "Mod Bot" ||
		!reflect.DeepEqual(plan.Apps[0].App.IntegrationTypes, []int{0, 1}) {
		t.Fatalf("app = %+v", plan.Apps[0].App)
	}
	// The category comes first, and its child names it.
	if plan.Channels[0].Type != guild.ChannelCategory || plan.Channels[1].ParentID != plan.Channels[0].ID ||
		plan.Channels[1].Overwrites[0].Type != guild.OverwriteMember {
		t.Fatalf("channels = %+v", plan.Channels)
	}
	if gd := plan.Private[1]; gd.OwnerID != st.IDs["users.bob"] || len(gd.Recipients) != 2 {
		t.Fatalf("group DM = %+v", gd)
	}
	v := ViewOf(s, st)
	if v.BearerTokens["alice:modbot"].AccessToken == "" || v.Apps["modbot"].GuildCommands["club"]["Report#2"] == 0 {
		t.Fatalf("view = %+v", v)
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{"ban-tests": true, "a": true, "0day": true, "v1.2_x": true,
		"": false, "123": false, "Ban": false, "-x": false, strings.Repeat("a", 65): false, strings.Repeat("a", 64): true} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestFromYAMLRefusesWhatJSONCannotHold(t *testing.T) {
	for _, doc := range []string{"{1: a}", "a: .inf", "a: [", "a: &x [*x]"} {
		if _, err := FromYAML([]byte(doc)); err == nil {
			t.Errorf("FromYAML(%q) accepted", doc)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(issueExample))
	f.Add([]byte(exportedSpec))
	f.Add([]byte(`{"name":"x","users":{"a":{}},"guilds":{"g":{"owner":"a","channels":{"c":{"messages":[{"author":"a","content":"hi","components":[{"type":1,"components":[{"type":2,"style":1,"label":"ok","custom_id":"ok"}]}]}]}}}}}`))
	f.Add([]byte(`{"name":"x","users":{"a":{"grants":{"b":["identify"]}}},"apps":{"b":{}},"dms":{"d":{"between":["a","b"]}}}`))
	f.Add([]byte(`{"name":"x","guilds":{"g":{"owner":"a","channels":{"c":{"parent":"c","type":4}}}},"users":{"a":null}}`))
	f.Add([]byte(`{"name":"demo","users":{"owner":{}},"apps":{"demo":{"owner":"owner"}},"guilds":{"demo":{"owner":"owner"}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := form.DecodeJSON(body)
		if err != nil {
			return
		}
		spec, err := Decode(v)
		if err != nil {
			if e, ok := apierr.As(err); !ok || e.Code != apierr.CodeInvalidFormBody {
				t.Fatalf("not a 50035: %v", err)
			}
			return
		}
		// An accepted spec always plans.
		if _, _, err := Plan(spec, 1, State{}, Sources{IDs: counterIDs(), Rand: rand.Reader, Now: time.Unix(1e9, 0)}); err != nil {
			t.Fatalf("accepted spec does not plan: %v", err)
		}
	})
}

func FuzzFromYAML(f *testing.F) {
	f.Add([]byte(issueExampleYAML))
	f.Add([]byte("a: [1, 2.5, true, null, {b: c}]"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		v, err := FromYAML(doc)
		if err != nil {
			return
		}
		_, _ = Decode(v) // never panics
	})
}

func TestOneDMPerPair(t *testing.T) {
	_, err := decodeJSON(t, withPatch(t, `"name": "ban-tests",`, `"name": "ban-tests",
	  "dms": {"a": {"between": ["alice", "bob"]}, "b": {"between": ["bob", "alice"]}},`))
	if codes := errorAt(err, "dms.b.between"); len(codes) != 1 || codes[0] != CodeDuplicate {
		t.Fatalf("second DM of a pair: %v", err)
	}
}

func TestInstallsNeedTheirContext(t *testing.T) {
	_, err := decodeJSON(t, withPatch(t, `"modbot": {"commands"`, `"modbot": {"integration_types_config": {"1": {}}, "commands"`))
	if codes := errorAt(err, "guilds.club.install.modbot"); len(codes) != 1 || codes[0] != CodeContext {
		t.Fatalf("a guild install of a user-install-only app: %v", err)
	}
	_, err = decodeJSON(t, withPatch(t, `"bob": {"locale": "fr"}`, `"bob": {"installs": ["modbot"]}`))
	if err != nil {
		t.Fatalf("a user install of an app that supports it: %v", err)
	}
}

// TestAppOwner: an app's owner is the user its spec names, else its own
// bot user.
func TestAppOwner(t *testing.T) {
	for _, tc := range []struct {
		name, patch, owner string
	}{
		{"own bot user", `"modbot": {"commands"`, "apps.modbot"},
		{"a user of the world", `"modbot": {"owner": "bob", "commands"`, "users.bob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := decodeJSON(t, withPatch(t, `"modbot": {"commands"`, tc.patch))
			if err != nil {
				t.Fatal(err)
			}
			var next snowflake.ID
			ids := func() snowflake.ID { next++; return next }
			plan, st, err := Plan(spec, 99, State{}, Sources{IDs: ids, Rand: rand.Reader, Now: time.Unix(1, 0)})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := plan.Apps[0].App.OwnerID, st.IDs[tc.owner]; got != want || want == 0 {
				t.Fatalf("owner = %d, want %d (%s)", got, want, tc.owner)
			}
		})
	}
}
