package bootstrap_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

// TestUpgrade: a bootstrap.json without channel_id and
// owner_client_token is completed once: a text channel named general is
// taken (a voice channel of that name is not), else made; the client
// token is the owner's. Files without the need, or unreadable, or
// naming a guild the store lacks, are left as they are.
func TestUpgrade(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	ctx := context.Background()
	env := e.Bootstrap()
	dir := t.TempDir()
	path := filepath.Join(dir, bootstrap.FileName)

	if added, err := bootstrap.Upgrade(ctx, env, dir); added != nil || err != nil {
		t.Fatalf("without a file: %v, %v", added, err)
	}

	creds := e.App
	creds.AdminToken = "admin"
	gid, _ := snowflake.Parse(creds.GuildID)
	voice := guild.Channel{ID: e.IDs.Next(), GuildID: gid, Type: guild.ChannelVoice, Name: "general"}
	if err := e.Store.CreateChannel(ctx, voice); err != nil {
		t.Fatal(err)
	}
	if err := bootstrap.WriteFile(dir, creds); err != nil {
		t.Fatal(err)
	}
	added, err := bootstrap.Upgrade(ctx, env, dir)
	if err != nil || !slices.Equal(added, []string{"channel_id", "owner_client_token"}) {
		t.Fatalf("Upgrade: %v, %v", added, err)
	}
	got := readFile(t, path)
	ch, err := e.Store.Channel(ctx, mustID(t, got.ChannelID))
	if err != nil || ch.Type != guild.ChannelText || ch.Name != "general" || ch.GuildID != gid || ch.ID == voice.ID {
		t.Fatalf("channel_id %s: %+v, %v; want a new text channel #general", got.ChannelID, ch, err)
	}
	if user, err := e.Store.ClientTokenUser(ctx, auth.Hash(got.OwnerClientToken)); err != nil || user.String() != creds.OwnerUserID {
		t.Fatalf("owner_client_token belongs to %v, %v; want the owner %s", user, err, creds.OwnerUserID)
	}
	want := creds
	want.ChannelID, want.OwnerClientToken = got.ChannelID, got.OwnerClientToken
	if got != want {
		t.Errorf("after: %+v\nwant %+v", got, want)
	}

	// Complete: nothing to do.
	before, _ := os.ReadFile(path)
	if added, err := bootstrap.Upgrade(ctx, env, dir); added != nil || err != nil {
		t.Errorf("a complete file: %v, %v", added, err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("a complete file changed:\n%s", after)
	}

	// The text channel there is taken; only the token is new.
	creds.ChannelID, creds.OwnerClientToken = "", ""
	if err := bootstrap.WriteFile(dir, creds); err != nil {
		t.Fatal(err)
	}
	if added, err := bootstrap.Upgrade(ctx, env, dir); err != nil || len(added) != 2 {
		t.Fatalf("again: %v, %v", added, err)
	}
	if again := readFile(t, path); again.ChannelID != got.ChannelID || again.OwnerClientToken == got.OwnerClientToken {
		t.Errorf("again: channel %s, token %q; want channel %s and a new token", again.ChannelID, again.OwnerClientToken, got.ChannelID)
	}

	// Left as they are: a guild the store lacks, a file that is not JSON.
	for name, content := range map[string]string{
		"unknown guild": `{"guild_id":"1","owner_user_id":"` + creds.OwnerUserID + `"}`,
		"unknown owner": `{"guild_id":"` + creds.GuildID + `","channel_id":"` + got.ChannelID + `","owner_user_id":"2"}`,
		"not JSON":      `{"guild_id":`,
	} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if added, err := bootstrap.Upgrade(ctx, env, dir); err == nil {
			t.Errorf("%s: %v, no error", name, added)
		}
		if after, _ := os.ReadFile(path); string(after) != content {
			t.Errorf("%s: the file changed: %s", name, after)
		}
	}
}

func readFile(t *testing.T, path string) bootstrap.Credentials {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c bootstrap.Credentials
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func mustID(t *testing.T, s string) snowflake.ID {
	t.Helper()
	id, err := snowflake.Parse(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return id
}
