package interactions

import (
	"reflect"
	"testing"
	"time"
)

// A chat-input interaction shaped as the service delivers it: /admin
// config set with an option of every value type.
const chatInputBody = `{
  "id": "1100000000000000001", "application_id": "1100000000000000002", "type": 2,
  "token": "aW50ZXJhY3Rpb246dG9rZW4", "version": 1,
  "guild_id": "1100000000000000003", "channel_id": "1100000000000000004",
  "channel": {"id": "1100000000000000004", "type": 0, "name": "general", "guild_id": "1100000000000000003"},
  "member": {
    "user": {"id": "1100000000000000005", "username": "alice", "discriminator": "0", "global_name": "Alice", "avatar": null},
    "roles": ["1100000000000000006"], "nick": "ally", "avatar": null,
    "joined_at": "2025-01-02T03:04:05.678000+00:00", "premium_since": null,
    "permissions": "2147483648", "pending": false, "deaf": false, "mute": false, "flags": 0
  },
  "locale": "en-US", "guild_locale": "de", "app_permissions": "3072", "context": 0,
  "authorizing_integration_owners": {"0": "1100000000000000003"},
  "entitlements": [], "attachment_size_limit": 10485760,
  "data": {
    "id": "1100000000000000007", "name": "admin", "type": 1, "guild_id": "1100000000000000003",
    "options": [{"name": "config", "type": 2, "options": [{"name": "set", "type": 1, "options": [
      {"name": "key", "type": 3, "value": "greeting"},
      {"name": "count", "type": 4, "value": -9007199254740991},
      {"name": "enabled", "type": 5, "value": true},
      {"name": "who", "type": 6, "value": "1100000000000000008"},
      {"name": "where", "type": 7, "value": "1100000000000000009"},
      {"name": "role", "type": 8, "value": "1100000000000000006"},
      {"name": "anyone", "type": 9, "value": "1100000000000000008"},
      {"name": "ratio", "type": 10, "value": 0.25},
      {"name": "file", "type": 11, "value": "1100000000000000010"}
    ]}]}],
    "resolved": {
      "users": {"1100000000000000008": {"id": "1100000000000000008", "username": "bob", "discriminator": "0", "global_name": null, "avatar": null, "public_flags": 0}},
      "members": {"1100000000000000008": {"roles": [], "nick": null, "avatar": null, "joined_at": "2025-02-03T00:00:00+00:00", "premium_since": null, "permissions": "1024", "pending": false, "flags": 0}},
      "roles": {"1100000000000000006": {"id": "1100000000000000006", "name": "mods", "color": 0, "hoist": false, "position": 1, "permissions": "268435488", "managed": false, "mentionable": false, "flags": 0, "icon": null}},
      "channels": {"1100000000000000009": {"id": "1100000000000000009", "type": 0, "name": "offtopic", "permissions": "3072", "parent_id": null, "guild_id": "1100000000000000003", "nsfw": false, "position": 2, "flags": 0, "topic": null, "rate_limit_per_user": 0, "last_message_id": null}},
      "attachments": {"1100000000000000010": {"id": "1100000000000000010", "filename": "a.png", "size": 1234, "url": "https://cdn.example/a.png", "proxy_url": "https://media.example/a.png", "content_type": "image/png", "width": 10, "height": 20, "ephemeral": true}}
    }
  }
}`

func mustDecode(t *testing.T, body string) *Interaction {
	t.Helper()
	i, err := Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func opt(t *testing.T, d *CommandData, name string) Option {
	t.Helper()
	o, ok := d.Option(name)
	if !ok {
		t.Fatalf("option %q not found", name)
	}
	return o
}

func TestDecodeChatInput(t *testing.T) {
	i := mustDecode(t, chatInputBody)
	if i.ID != "1100000000000000001" || i.ApplicationID != "1100000000000000002" || i.Type != InteractionApplicationCommand ||
		i.Token != "aW50ZXJhY3Rpb246dG9rZW4" || i.Version != 1 || i.GuildID != "1100000000000000003" ||
		i.ChannelID != "1100000000000000004" || i.Locale != "en-US" || i.GuildLocale != "de" || i.AppPermissions != "3072" {
		t.Fatalf("interaction = %+v", i)
	}
	if i.Context == nil || *i.Context != ContextGuild {
		t.Fatalf("context = %v", i.Context)
	}
	if i.Channel == nil || i.Channel.Name != "general" {
		t.Fatalf("channel = %+v", i.Channel)
	}
	if i.AuthorizingIntegrationOwners["0"] != "1100000000000000003" {
		t.Fatalf("owners = %v", i.AuthorizingIntegrationOwners)
	}
	m := i.Member
	if m == nil || m.User == nil || m.User.Username != "alice" || m.User.GlobalName != "Alice" || m.Nick != "ally" ||
		m.Permissions != "2147483648" || !reflect.DeepEqual(m.Roles, []string{"1100000000000000006"}) ||
		!m.JoinedAt.Equal(time.Date(2025, 1, 2, 3, 4, 5, 678000000, time.UTC)) || m.PremiumSince != nil {
		t.Fatalf("member = %+v", m)
	}
	if u := i.InvokingUser(); u == nil || u.ID != "1100000000000000005" {
		t.Fatalf("InvokingUser = %+v", u)
	}
	if len(i.Raw) == 0 {
		t.Fatal("Raw not set")
	}

	d := i.Data
	if d.Name != "admin" || d.Type != CommandChatInput || d.GuildID != "1100000000000000003" || d.ID != "1100000000000000007" {
		t.Fatalf("data = %+v", d)
	}
	if got := d.SubcommandPath(); !reflect.DeepEqual(got, []string{"config", "set"}) {
		t.Fatalf("SubcommandPath = %v", got)
	}
	if len(d.Values()) != 9 {
		t.Fatalf("Values = %d", len(d.Values()))
	}
	if s, ok := opt(t, d, "key").String(); !ok || s != "greeting" {
		t.Errorf("key = %q %v", s, ok)
	}
	if n, ok := opt(t, d, "count").Int(); !ok || n != -9007199254740991 {
		t.Errorf("count = %d %v", n, ok)
	}
	if b, ok := opt(t, d, "enabled").Bool(); !ok || !b {
		t.Errorf("enabled = %v %v", b, ok)
	}
	if f, ok := opt(t, d, "ratio").Float(); !ok || f != 0.25 {
		t.Errorf("ratio = %v %v", f, ok)
	}
	if _, ok := opt(t, d, "ratio").Int(); ok {
		t.Error("Int of 0.25 accepted")
	}
	if f, ok := opt(t, d, "count").Float(); !ok || f != -9007199254740991 {
		t.Errorf("Float of count = %v %v", f, ok)
	}
	who, ok := opt(t, d, "who").Snowflake()
	if !ok || who != "1100000000000000008" {
		t.Fatalf("who = %q %v", who, ok)
	}
	if u := d.Resolved.Users[who]; u.Username != "bob" {
		t.Errorf("resolved user = %+v", u)
	}
	if m := d.Resolved.Members[who]; m.Permissions != "1024" || m.User != nil || m.Nick != "" {
		t.Errorf("resolved member = %+v", m)
	}
	where, _ := opt(t, d, "where").Snowflake()
	if c := d.Resolved.Channels[where]; c.Name != "offtopic" || c.Permissions != "3072" || c.Position != 2 {
		t.Errorf("resolved channel = %+v", c)
	}
	role, _ := opt(t, d, "role").Snowflake()
	if r := d.Resolved.Roles[role]; r.Name != "mods" || r.Permissions != "268435488" {
		t.Errorf("resolved role = %+v", r)
	}
	if id, ok := opt(t, d, "anyone").Snowflake(); !ok || d.Resolved.Users[id].ID != id {
		t.Errorf("mentionable = %q %v", id, ok)
	}
	file, _ := opt(t, d, "file").Snowflake()
	if a := d.Resolved.Attachments[file]; a.Filename != "a.png" || a.Size != 1234 || a.Width == nil || *a.Width != 10 || !a.Ephemeral {
		t.Errorf("resolved attachment = %+v", a)
	}

	// Type mismatches say no.
	if _, ok := opt(t, d, "key").Int(); ok {
		t.Error(`Int of "greeting" accepted`)
	}
	if _, ok := opt(t, d, "count").String(); ok {
		t.Error("String of a number accepted")
	}
	if _, ok := opt(t, d, "key").Bool(); ok {
		t.Error("Bool of a string accepted")
	}
	if _, ok := opt(t, d, "key").Snowflake(); ok {
		t.Error("Snowflake of greeting accepted")
	}
	if _, ok := d.Option("missing"); ok {
		t.Error("missing option found")
	}
	if _, ok := d.Option("config"); ok {
		t.Error("the group is not an option value")
	}
	if _, ok := d.Focused(); ok {
		t.Error("Focused outside autocomplete")
	}
}

func TestSubcommandPathShapes(t *testing.T) {
	var nilData *CommandData
	if nilData.SubcommandPath() != nil || nilData.Values() != nil {
		t.Fatal("nil data")
	}
	if _, ok := nilData.Option("x"); ok {
		t.Fatal("nil data option")
	}
	plain := &CommandData{Options: []Option{{Name: "text", Type: OptionString, Value: []byte(`"hi"`)}}}
	if plain.SubcommandPath() != nil {
		t.Fatalf("plain path = %v", plain.SubcommandPath())
	}
	sub := &CommandData{Options: []Option{{Name: "add", Type: OptionSubcommand}}}
	if got := sub.SubcommandPath(); !reflect.DeepEqual(got, []string{"add"}) || len(sub.Values()) != 0 {
		t.Fatalf("sub path = %v, values %v", got, sub.Values())
	}
}

const autocompleteBody = `{
  "id": "1", "application_id": "2", "type": 4, "token": "t", "version": 1,
  "channel_id": "4", "user": {"id": "5", "username": "alice", "discriminator": "0"},
  "locale": "fr", "app_permissions": "0", "context": 1,
  "data": {"id": "7", "name": "buy", "type": 1, "options": [
    {"name": "fruit", "type": 3, "value": "ap", "focused": true},
    {"name": "amount", "type": 4, "value": "12"},
    {"name": "price", "type": 10, "value": "1.5"},
    {"name": "partial", "type": 4, "value": "-"}
  ]}
}`

func TestDecodeAutocomplete(t *testing.T) {
	i := mustDecode(t, autocompleteBody)
	if i.Type != InteractionAutocomplete || i.Member != nil || i.Context == nil || *i.Context != ContextBotDM {
		t.Fatalf("interaction = %+v", i)
	}
	if u := i.InvokingUser(); u == nil || u.Username != "alice" {
		t.Fatalf("InvokingUser = %+v", u)
	}
	f, ok := i.Data.Focused()
	if !ok || f.Name != "fruit" || !f.Focused {
		t.Fatalf("Focused = %+v %v", f, ok)
	}
	if s, _ := f.String(); s != "ap" {
		t.Fatalf("focused value = %q", s)
	}
	amount := opt(t, i.Data, "amount")
	if amount.Focused {
		t.Fatal("amount focused")
	}
	if n, ok := amount.Int(); !ok || n != 12 {
		t.Fatalf("Int of autocomplete integer = %d %v", n, ok)
	}
	if s, ok := amount.String(); !ok || s != "12" {
		t.Fatalf("String of autocomplete integer = %q %v", s, ok)
	}
	if v, ok := opt(t, i.Data, "price").Float(); !ok || v != 1.5 {
		t.Fatalf("Float of autocomplete number = %v %v", v, ok)
	}
	if _, ok := opt(t, i.Data, "partial").Int(); ok {
		t.Fatal(`Int of "-" accepted`)
	}
	for _, v := range []string{`"NaN"`, `"Inf"`, `""`, `null`} {
		if _, ok := (Option{Value: []byte(v)}).Float(); ok {
			t.Errorf("Float of %s accepted", v)
		}
	}
}

const userCommandBody = `{
  "id": "1", "application_id": "2", "type": 2, "token": "t", "version": 1,
  "guild_id": "3", "channel_id": "4",
  "member": {"user": {"id": "5", "username": "alice"}, "roles": [], "joined_at": "2025-01-01T00:00:00+00:00", "permissions": "3072"},
  "data": {"id": "7", "name": "High Five", "type": 2, "target_id": "8",
    "resolved": {
      "users": {"8": {"id": "8", "username": "bob", "global_name": "Bobby", "bot": false}},
      "members": {"8": {"roles": ["9"], "nick": "bobby", "joined_at": "2025-02-01T00:00:00+00:00", "permissions": "1024"}}
    }}
}`

func TestDecodeUserCommand(t *testing.T) {
	d := mustDecode(t, userCommandBody).Data
	if d.Type != CommandUser || d.TargetID != "8" || d.Options != nil {
		t.Fatalf("data = %+v", d)
	}
	u, ok := d.TargetUser()
	if !ok || u.Username != "bob" || u.GlobalName != "Bobby" {
		t.Fatalf("TargetUser = %+v %v", u, ok)
	}
	m, ok := d.TargetMember()
	if !ok || m.Nick != "bobby" || !reflect.DeepEqual(m.Roles, []string{"9"}) || m.Permissions != "1024" {
		t.Fatalf("TargetMember = %+v %v", m, ok)
	}
	if _, ok := d.TargetMessage(); ok {
		t.Fatal("TargetMessage of a user command")
	}
}

const messageCommandBody = `{
  "id": "1", "application_id": "2", "type": 2, "token": "t", "version": 1,
  "guild_id": "3", "channel_id": "4",
  "member": {"user": {"id": "5", "username": "alice"}, "roles": [], "joined_at": "2025-01-01T00:00:00+00:00", "permissions": "3072"},
  "data": {"id": "7", "name": "Bookmark", "type": 3, "target_id": "10",
    "resolved": {"messages": {"10": {
      "id": "10", "channel_id": "4", "type": 0, "content": "hello world",
      "author": {"id": "8", "username": "bob"}, "timestamp": "2025-03-04T05:06:07.000000+00:00",
      "edited_timestamp": null, "tts": false, "pinned": false, "flags": 0,
      "mentions": [], "mention_roles": [], "embeds": [], "components": [],
      "attachments": [{"id": "11", "filename": "b.txt", "size": 3, "url": "https://cdn.example/b.txt"}]
    }}}}
}`

func TestDecodeMessageCommand(t *testing.T) {
	d := mustDecode(t, messageCommandBody).Data
	if d.Type != CommandMessage || d.TargetID != "10" {
		t.Fatalf("data = %+v", d)
	}
	m, ok := d.TargetMessage()
	if !ok || m.Content != "hello world" || m.Author == nil || m.Author.Username != "bob" || m.ChannelID != "4" ||
		!m.Timestamp.Equal(time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)) || m.EditedTimestamp != nil ||
		len(m.Attachments) != 1 || m.Attachments[0].Filename != "b.txt" {
		t.Fatalf("TargetMessage = %+v %v", m, ok)
	}
	if _, ok := d.TargetUser(); ok {
		t.Fatal("TargetUser of a message command")
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, body := range []string{``, `[]`, `{}`, `{"type":"x"}`, `not json`} {
		if _, err := Decode([]byte(body)); err == nil {
			t.Errorf("Decode(%q) succeeded", body)
		}
	}
}
