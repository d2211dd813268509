package bootstrap

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestSetBaseURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if old, err := SetBaseURL(dir, "http://127.0.0.1:1"); old != "" || err != nil {
		t.Fatalf("without a file: %q, %v; want nothing done", old, err)
	}
	creds := Credentials{BaseURL: "http://127.0.0.1:8080", ApplicationID: "1", BotToken: "b", ClientID: "1",
		ClientSecret: "s", PublicKey: "p", GuildID: "2", OwnerUserID: "3", OwnerBearerToken: "o", AdminToken: "a"}
	if err := WriteFile(dir, creds); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	if old, err := SetBaseURL(dir, "http://127.0.0.1:8080"); old != "" || err != nil {
		t.Errorf("same address: %q, %v; want nothing done", old, err)
	}
	if old, err := SetBaseURL(dir, "http://127.0.0.1:9090"); old != "http://127.0.0.1:8080" || err != nil {
		t.Fatalf("new address: %q, %v; want the old base_url", old, err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got Credentials
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := creds
	want.BaseURL = "http://127.0.0.1:9090"
	if got != want {
		t.Errorf("after: %+v, want %+v", got, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after the rewrite: %v, %v; want 600", fi, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want bootstrap.json alone", len(entries))
	}

	if err := os.WriteFile(path, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := SetBaseURL(dir, "http://127.0.0.1:1"); err == nil {
		t.Error("a corrupt file: no error")
	}
	if raw, _ := os.ReadFile(path); string(raw) != "not json" {
		t.Errorf("a corrupt file was replaced: %q", raw)
	}
}

func TestSetAdminToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if found, err := SetAdminToken(dir, "new"); found || err != nil {
		t.Fatalf("without a file: %v, %v; want nothing done", found, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("without a file: the directory holds %d entries, want none (the file is not recreated)", len(entries))
	}
	creds := Credentials{BaseURL: "http://127.0.0.1:8080", ApplicationID: "1", BotToken: "b", ClientID: "1",
		ClientSecret: "s", PublicKey: "p", GuildID: "2", ChannelID: "4", OwnerUserID: "3", OwnerBearerToken: "o",
		OwnerClientToken: "c", AdminToken: "old"}
	if err := WriteFile(dir, creds); err != nil {
		t.Fatal(err)
	}
	if found, err := SetAdminToken(dir, "new"); !found || err != nil {
		t.Fatalf("SetAdminToken: %v, %v", found, err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	var got Credentials
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := creds
	want.AdminToken = "new"
	if got != want {
		t.Errorf("after: %+v, want %+v", got, want)
	}
	if fi, err := os.Stat(filepath.Join(dir, FileName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after the rewrite: %v, %v; want 600", fi, err)
	}
}
