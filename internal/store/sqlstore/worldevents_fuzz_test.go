package sqlstore

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/store"
)

// FuzzDecodeObject: whatever a world_events row's object holds, decoding
// it never panics, and a decoded object is set only for its kind. The
// rows the triggers write (seeded) decode to what was written.
func FuzzDecodeObject(f *testing.F) {
	for _, seed := range []string{
		`{"id":20,"guild_id":10,"name":"mods","permissions":8,"position":2,"managed":1}`,
		`{"guild_id":10,"user_id":2,"nick":"m","roles":["20"],"joined_at":5}`,
		`{"id":30,"guild_id":10,"type":0,"name":"general","parent_id":0,"nsfw":1,"position":2,"overwrites":[{"id":"10","type":0,"allow":1024,"deny":2048}]}`,
		`{}`, `[]`, `null`, `{"roles":[1e400]}`, `{"overwrites":{}}`,
	} {
		for _, kind := range []string{store.WorldRole, store.WorldMember, store.WorldChannel, store.WorldGuild} {
			f.Add(kind, seed)
		}
	}
	f.Fuzz(func(t *testing.T, kind, object string) {
		e := store.WorldEvent{Kind: kind}
		if err := decodeObject(&e, object); err != nil {
			return
		}
		set := map[string]bool{store.WorldRole: e.Role != nil, store.WorldMember: e.Member != nil, store.WorldChannel: e.Channel != nil}
		for k, isSet := range set {
			if isSet != (k == kind) {
				t.Fatalf("kind %q, object %q: decoded %+v", kind, object, e)
			}
		}
		if e.Member != nil && e.Member.Roles == nil {
			t.Fatalf("member roles nil for %q", object)
		}
		if e.Channel != nil && e.Channel.Overwrites == nil {
			t.Fatalf("channel overwrites nil for %q", object)
		}
	})
}

// The channel row the triggers record decodes to the channel stored.
func TestDecodeObjectChannel(t *testing.T) {
	ow := []guild.Overwrite{{ID: 10, Type: guild.OverwriteRole, Allow: 1 << 10, Deny: 1 << 11}}
	want := guild.Channel{ID: 30, GuildID: 10, Name: "general", ParentID: 4, NSFW: true, Position: 2, Overwrites: ow}
	row := map[string]any{"id": 30, "guild_id": 10, "type": 0, "name": "general", "parent_id": 4, "nsfw": 1, "position": 2,
		"overwrites": json.RawMessage(encodeOverwrites(ow))}
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	e := store.WorldEvent{Kind: store.WorldChannel}
	if err := decodeObject(&e, string(b)); err != nil || e.Channel == nil || !reflect.DeepEqual(*e.Channel, want) {
		t.Fatalf("decoded %+v (%v), want %+v", e.Channel, err, want)
	}
}
