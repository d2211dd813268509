package world

import (
	"crypto/rand"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// exportedSpec has what an export writes beyond a hand-written spec:
// command permissions, messages, explicit positions.
const exportedSpec = `{"name": "exported",
 "users": {"alice": {}, "bob": {}},
 "apps": {"modbot": {"discoverable": true,
   "commands": [{"name": "ban", "description": "Ban someone"}, {"name": "Report", "type": 3}],
   "guild_commands": {"club": [{"name": "ban", "description": "Ban here"}]}}},
 "guilds": {"club": {"owner": "alice",
   "roles": {"mods": {"position": 0}},
   "channels": {"general": {"position": 3, "messages": [{"author": "alice", "content": "hi"},
       {"author": "modbot", "embeds": [{"title": "Rules"}], "flags": 4}]}},
   "install": {"modbot": {}},
   "command_permissions": {"modbot": {
     "*": [{"role": "@everyone", "permission": false}, {"channel": "*", "permission": true}],
     "ban": [{"role": "mods", "permission": true}],
     "global:ban": [{"user": "bob", "permission": false}],
     "Report#3": [{"channel": "general", "permission": true}]}}}},
 "dms": {"ab": {"between": ["alice", "bob"], "messages": [{"author": "bob", "content": "psst"}]}}}`

func TestDecodeExportedParts(t *testing.T) {
	s, err := decodeJSON(t, exportedSpec)
	if err != nil {
		body, _ := err.(*apierr.Error).Fields.MarshalJSON()
		t.Fatalf("Decode: %s", body)
	}
	plan, st, err := Plan(s, 7, State{}, Sources{IDs: counterIDs(), Rand: rand.Reader, Now: time.Unix(1e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	gid, app := st.IDs["guilds.club"], st.IDs["apps.modbot"]
	want := map[string]command.GuildPermissions{}
	for _, gp := range plan.Permissions {
		if gp.GuildID != gid || gp.ApplicationID != app {
			t.Fatalf("list %+v is not the app's in the guild", gp)
		}
		switch gp.ID {
		case app:
			want["*"] = gp
		case st.IDs["apps.modbot.commands.club.ban"]:
			want["ban"] = gp
		case st.IDs["apps.modbot.commands.ban"]:
			want["global:ban"] = gp
		case st.IDs["apps.modbot.commands.Report#3"]:
			want["Report#3"] = gp
		}
	}
	if len(want) != 4 || want["*"].Permissions[0].ID != gid || want["*"].Permissions[1].ID != command.AllChannelsID(gid) ||
		want["ban"].Permissions[0].ID != st.IDs["guilds.club.roles.mods"] ||
		want["global:ban"].Permissions[0].ID != st.IDs["users.bob"] ||
		want["Report#3"].Permissions[0].ID != st.IDs["guilds.club.channels.general"] {
		t.Fatalf("permissions = %+v", plan.Permissions)
	}
	if len(plan.Messages) != 3 || plan.Messages[0].ChannelID != st.IDs["guilds.club.channels.general"] ||
		plan.Messages[0].GuildID != gid || plan.Messages[2].GuildID != 0 || plan.Messages[1].AuthorID != app {
		t.Fatalf("messages = %+v", plan.Messages)
	}
	var m struct {
		Content string `json:"content"`
		Flags   int    `json:"flags"`
		Author  struct {
			Bot bool `json:"bot"`
		} `json:"author"`
	}
	if err := json.Unmarshal(plan.Messages[1].Body, &m); err != nil || m.Flags != 4 || !m.Author.Bot {
		t.Fatalf("message body %s (%v)", plan.Messages[1].Body, err)
	}
	if !plan.Apps[0].App.Discoverable {
		t.Error("discoverable is lost")
	}
	for _, r := range plan.Roles {
		if r.Name == "mods" && r.Position != 0 {
			t.Errorf("an explicit position 0 became %d", r.Position)
		}
	}
	for _, c := range plan.Channels {
		if c.Position != 3 {
			t.Errorf("channel position %d, want 3", c.Position)
		}
	}
}

func TestDecodeExportedPartsErrors(t *testing.T) {
	for _, tc := range []struct{ old, new, path, code string }{
		{`"*": [{"role": "@everyone", "permission": false}`, `"*": [{"role": "nobody", "permission": false}`,
			"guilds.club.command_permissions.modbot.*.0.role", CodeUnknownHandle},
		{`"*": [{"role": "@everyone", "permission": false}`, `"*": [{"role": "mods", "user": "bob", "permission": false}`,
			"guilds.club.command_permissions.modbot.*.0", CodePermissionTarget},
		{`"*": [{"role": "@everyone", "permission": false}`, `"*": [{"role": "mods"}`,
			"guilds.club.command_permissions.modbot.*.0.permission", form.CodeRequired},
		{`"ban": [`, `"kick": [`, "guilds.club.command_permissions.modbot.kick", CodeUnknownCommand},
		{`"global:ban"`, `"global:Report"`, "guilds.club.command_permissions.modbot.global:Report", CodeUnknownCommand},
		{`{"channel": "general", "permission": true}`, `{"channel": "nowhere", "permission": true}`,
			"guilds.club.command_permissions.modbot.Report#3.0.channel", CodeUnknownHandle},
		{`"command_permissions": {"modbot"`, `"command_permissions": {"nobot"`,
			"guilds.club.command_permissions.nobot", "UNKNOWN_APPLICATION"},
		{`{"author": "alice", "content": "hi"}`, `{"author": "carol", "content": "hi"}`,
			"guilds.club.channels.general.messages.0.author", CodeUnknownHandle},
		{`{"author": "alice", "content": "hi"}`, `{"author": "alice"}`,
			"guilds.club.channels.general.messages.0", form.CodeBadLength},
		{`{"author": "alice", "content": "hi"}`, `{"author": "alice", "content": 3}`,
			"guilds.club.channels.general.messages.0.content", form.CodeStringConvert},
		{`{"author": "bob", "content": "psst"}`, `{"author": "modbot", "content": "psst"}`,
			"dms.ab.messages.0.author", CodeUnknownHandle},
		{`"install": {"modbot": {}}`, `"install": {"modbot": {"scopes": ["applications.commands"]}}, "members": {"modbot": {"nick": "m"}}`,
			"guilds.club.members.modbot", "USER_BOT_INVALID"},
		{`{"name": "ban", "description": "Ban someone"}`, `{"name": "ban", "description": "Ban someone", "nsfw": true}`,
			"apps.modbot.discoverable", "APPLICATION_DISCOVERABLE_INVALID"},
	} {
		if !strings.Contains(exportedSpec, tc.old) {
			t.Fatalf("%q is not in the spec", tc.old)
		}
		_, err := decodeJSON(t, strings.Replace(exportedSpec, tc.old, tc.new, 1))
		if err == nil {
			t.Errorf("%s: accepted", tc.new)
			continue
		}
		if !slices.Contains(errorAt(err, tc.path), tc.code) {
			body, _ := err.(*apierr.Error).Fields.MarshalJSON()
			t.Errorf("%s: no %s at %s: %s", tc.new, tc.code, tc.path, body)
		}
	}
}

func TestHandleOf(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"alice", "alice"},
		{"Carol Smith", "Carol-Smith"},
		{"Helpers!", "Helpers"},
		{"  spaced  out ", "spaced-out"},
		{"--.x", "x"},
		{"日本", "user"},
		{"", "user"},
		{"_under", "_under"},
		{strings.Repeat("a", 80), strings.Repeat("a", 64)},
	} {
		if got := HandleOf(tc.name, "user"); got != tc.want {
			t.Errorf("HandleOf(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// An object the spec did not make gets a handle of its name, unique in
// its namespace (users and apps share one), and the spec's objects keep
// theirs even when a newer object's name is one of them.
func TestExportDerivesUniqueHandles(t *testing.T) {
	s, err := decodeJSON(t, `{"name": "w", "users": {"alice": {"username": "Alice A"}}, "apps": {"bot": {}}}`)
	if err != nil {
		t.Fatal(err)
	}
	plan, st, err := Plan(s, 7, State{}, Sources{IDs: counterIDs(), Rand: rand.Reader, Now: time.Unix(1e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	rows := store.WorldPlan{Users: plan.Users, Apps: plan.Apps}
	for i, name := range []string{"alice", "Bob Smith", "Bob Smith", "bot", "???"} {
		rows.Users = append(rows.Users, store.User{ID: 5000 + snowflakeID(i), Username: name, Locale: "en-US"})
	}
	doc, err := Export("w", rows, s, st)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := jsonenc.Marshal(doc.Users)
	want := `{"Bob-Smith":{"username":"Bob Smith"},"Bob-Smith-2":{"username":"Bob Smith"},"alice":{"username":"Alice A"},` +
		`"alice-2":{"username":"alice"},"bot-2":{"username":"bot"},"user":{"username":"???"}}`
	if string(raw) != want {
		t.Fatalf("users = %s\nwant   %s", raw, want)
	}
	if _, ok := doc.Apps["bot"]; !ok {
		t.Fatalf("apps = %+v", doc.Apps)
	}
}

func snowflakeID(i int) snowflake.ID { return snowflake.ID(i) }

// HandleOf always makes a valid handle: an export's handles decode.
func FuzzHandleOf(f *testing.F) {
	for _, s := range []string{"alice", "Carol Smith", "--", "日本", strings.Repeat("é", 70)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if h := HandleOf(name, "user"); !handleRE.MatchString(h) {
			t.Fatalf("HandleOf(%q) = %q, not a handle", name, h)
		}
	})
}

func TestRewriteMentions(t *testing.T) {
	ids := map[string]string{"@1": "alice", "@&2": "mods", "#3": "general"}
	to := func(kind, ref string) (string, bool) { h, ok := ids[kind+ref]; return h, ok }
	for in, want := range map[string]string{
		"hi <@1> and <@!1>":      "hi <@alice> and <@alice>",
		"<@&2> see <#3>":         "<@&mods> see <#general>",
		"<@9> stays, <#2> too":   "<@9> stays, <#2> too",
		"no mention < @1 >, <@>": "no mention < @1 >, <@>",
		"<@1><@&2><#3>":          "<@alice><@&mods><#general>",
	} {
		if got := rewriteMentions(in, to); got != want {
			t.Errorf("rewriteMentions(%q) = %q, want %q", in, got, want)
		}
	}
}

// A role made later is never given a user's handle: an overwrite keyed by
// it would name the role.
func TestExportRoleHandlesAvoidParties(t *testing.T) {
	s, err := decodeJSON(t, `{"name": "w", "users": {"alice": {}}, "guilds": {"club": {"owner": "alice"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	plan, st, err := Plan(s, 7, State{}, Sources{IDs: counterIDs(), Rand: rand.Reader, Now: time.Unix(1e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	gid := st.IDs["guilds.club"]
	plan.Roles = append(plan.Roles, guild.Role{ID: 9000, GuildID: gid, Name: "alice", Position: 1})
	plan.Channels = append(plan.Channels, guild.Channel{ID: 9001, GuildID: gid, Name: "general",
		Overwrites: []guild.Overwrite{{ID: 9000, Type: guild.OverwriteRole, Allow: guild.ViewChannel},
			{ID: st.IDs["users.alice"], Type: guild.OverwriteMember, Deny: guild.ViewChannel}}})
	doc, err := Export("w", plan, s, st)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := jsonenc.Marshal(doc.Guilds["club"])
	want := `{"owner":"alice","roles":{"alice-2":{"name":"alice","position":1}},"channels":{"general":{"position":0,` +
		`"overwrites":{"alice":{"deny":["VIEW_CHANNEL"]},"alice-2":{"allow":["VIEW_CHANNEL"]}}}},"members":{"alice":{}}}`
	if string(raw) != want {
		t.Fatalf("club = %s\nwant   %s", raw, want)
	}
}

// An app's owner is exported when it is one of the world's users (as the
// first start's demo app is its owner's), and not when its bot owns it.
func TestExportAppOwner(t *testing.T) {
	s, err := decodeJSON(t, `{"name": "w", "users": {"alice": {}}, "apps": {"owned": {"owner": "alice"}, "plain": {}}}`)
	if err != nil {
		t.Fatal(err)
	}
	plan, st, err := Plan(s, 7, State{}, Sources{IDs: counterIDs(), Rand: rand.Reader, Now: time.Unix(1e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Export("w", plan, s, st)
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Apps["owned"].Owner; got != "alice" {
		t.Errorf("owned app's owner = %q, want alice", got)
	}
	if got := doc.Apps["plain"].Owner; got != "" {
		t.Errorf("a bot-owned app's owner = %q, want none", got)
	}
}
