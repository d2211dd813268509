package command_test

import (
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
)

// fuzzTarget picks a target from the fuzzer's selector byte: bit 0 guild
// scope, bit 1 EMBEDDED flag, bit 2 bulk mode, bits 3-4 the app's
// integration types ([0,1], [0], [1] or none).
func fuzzTarget(sel uint8) command.Target {
	app := command.App{ID: testAppID}
	if sel&2 != 0 {
		app.Flags |= command.ApplicationFlagEmbedded
	}
	switch sel >> 3 & 3 {
	case 0:
		app.IntegrationTypes = []int{0, 1}
	case 1:
		app.IntegrationTypes = []int{0}
	case 2:
		app.IntegrationTypes = []int{1}
	}
	tg := command.Target{App: app, Scope: command.Scope{ApplicationID: testAppID}, Mode: command.ModeCreate}
	if sel&1 != 0 {
		tg.Scope.GuildID = testGuildID
	}
	if sel&4 != 0 {
		tg.Mode = command.ModeBulk
	}
	return tg
}

var fuzzSeeds = []string{
	`{"name":"ping","description":"Ping"}`,
	`{"name":"ping","description":"Ping","options":null}`,
	`{"type":2,"name":"Show Profile","name_localizations":{"de":"Profil"}}`,
	`{"type":3,"name":"Quote","description":""}`,
	`{"type":4,"name":"Launch","handler":2}`,
	`{"name":"hello","description":"Say hello","name_localizations":{"de":"hallo","fr":null},` +
		`"description_localizations":{"fr":"Dis bonjour"},"default_member_permissions":8,"dm_permission":false,` +
		`"integration_types":[0,1],"contexts":[0,1,2],"nsfw":true}`,
	`{"name":"tags","description":"Tags","options":[{"type":2,"name":"admin","description":"Admin","options":[` +
		`{"type":1,"name":"purge","description":"Purge","options":[{"type":7,"name":"ch","description":"c",` +
		`"channel_types":[0,5],"required":true},{"type":10,"name":"n","description":"n","min_value":-1.5,"max_value":1e3}]}]},` +
		`{"type":1,"name":"get","description":"Get","channel_types":null,"required":false,"options":[{"type":3,` +
		`"name":"name","description":"n","min_length":1,"max_length":32,"autocomplete":true}],"autocomplete":false,"choices":null}]}`,
	`{"name":"pick","description":"Pick","options":[{"type":4,"name":"i","description":"i","choices":[` +
		`{"name":"one","value":1,"name_localizations":{"de":"eins"}},{"name":"max","value":9007199254740991}]},` +
		`{"type":3,"name":"s","description":"s","choices":[{"name":"a","value":"a"}]}]}`,
	`{"name":"Bad","description":""}`,
	`{"name":"x","description":"d","options":[{"type":1,"name":"s","description":"d","options":[{"type":1,"name":"t","description":"d"}]}]}`,
	`{"name":"x","description":"d","options":[{"type":3,"name":"a","description":"d"},{"type":3,"name":"b","description":"d","required":true}]}`,
	`{"name":"x","description":"d","options":[{"type":3,"name":"a","description":"d","name_localizations":{"de":"b"}},{"type":3,"name":"b","description":"d"}]}`,
	`{"id":"123","name":"x","description":"d","type":"1","integration_types":["0",0],"contexts":[]}`,
	`{"name":"नमस्ते","description":"d","name_localizations":{"hi":"สวัสดี","pt_BR":"x"}}`,
	`[]`,
	`{"name":"x","description":"d","options":[{"type":10,"name":"n","description":"d","choices":[{"name":"tiny","value":1e-300}]}]}`,
}

// FuzzParse: decoding and parsing never panic; a body that parses is
// normalized to a fixed point: its JSON form parses again to the same
// definition, as does its edit shape, and it fits the size limit.
func FuzzParse(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(i))
	}
	f.Add([]byte(bigCommand(22, "")), uint8(0))
	f.Fuzz(func(t *testing.T, body []byte, sel uint8) {
		v, err := form.DecodeJSON(body)
		if err != nil {
			return
		}
		tg := fuzzTarget(sel)
		p, errs := command.Parse(v, tg)
		rendered, err := json.Marshal(errs)
		if err != nil {
			t.Fatalf("errors do not render: %v", err)
		}
		if !errs.Empty() {
			return
		}
		c := &p.Command
		if n := command.TotalLength(c); n > command.MaxTotalLength {
			t.Fatalf("valid command of size %d", n)
		}
		if string(rendered) != "{}" {
			t.Fatalf("empty errors render as %s", rendered)
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		v2, err := form.DecodeJSON(b)
		if err != nil {
			t.Fatalf("own JSON does not decode: %v\n%s", err, b)
		}
		p2, errs2 := command.Parse(v2, tg)
		if !errs2.Empty() {
			e, _ := json.Marshal(errs2)
			t.Fatalf("own JSON does not parse: %s\nbody %q\njson %s", e, body, b)
		}
		if !command.SameDefinition(c, &p2.Command) {
			b2, _ := json.Marshal(&p2.Command)
			t.Fatalf("round trip changed the command\nbody   %q\nfirst  %s\nsecond %s", body, b, b2)
		}
		etg := tg
		etg.Mode = command.ModeEdit
		p3, errs3 := command.Parse(command.EditShape(c), etg)
		if !errs3.Empty() {
			e, _ := json.Marshal(errs3)
			t.Fatalf("edit shape does not parse: %s\njson %s", e, b)
		}
		if !command.SameDefinition(c, &p3.Command) {
			b3, _ := json.Marshal(&p3.Command)
			t.Fatalf("edit shape changed the command\nfirst  %s\nsecond %s", b, b3)
		}
		_ = command.Localized(c, "de")
	})
}

// FuzzParsePermissions: the permissions body parser never panics, and
// what it accepts is within the limits.
func FuzzParsePermissions(f *testing.F) {
	for _, s := range []string{
		`{"permissions":[{"id":"10","type":1,"permission":true}]}`,
		`{"permissions":[{"id":"10","type":1,"permission":true},{"id":"10","type":1,"permission":false}]}`,
		`{"permissions":[]}`,
		`{"permissions":["*"]}`,
		`{"permissions":[null,{"id":5,"type":"2","permission":"x"}]}`,
		`{"permissions":{}}`,
		`{}`,
		`[]`,
		`null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := form.DecodeJSON(body)
		if err != nil {
			return
		}
		perms, errs := command.ParsePermissions(v)
		if _, err := json.Marshal(errs); err != nil {
			t.Fatalf("errors do not render: %v", err)
		}
		if !errs.Empty() {
			return
		}
		if len(perms) > command.MaxPermissions {
			t.Fatalf("%d permissions accepted", len(perms))
		}
		for _, p := range perms {
			if p.Type < command.PermissionRole || p.Type > command.PermissionChannel {
				t.Fatalf("permission type %d accepted", p.Type)
			}
		}
	})
}
