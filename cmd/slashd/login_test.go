package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/snowflake"
)

// TestUserCreatePassword: `user create --password` gives the new user a
// consent-page login named after --name.
func TestUserCreatePassword(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	alice := runJSON(t, dir, "user", "create", "--init", "--name", "alice", "--password", "correct horse")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"user", "create", "--data", dir, "--name", "bob", "--password", "battery staple"},
		envMap(nil), &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `with the login "bob"`) {
		t.Errorf("human output %q", out.String())
	}

	for name, args := range map[string][]string{
		"short password": {"user", "create", "--name", "carol", "--password", "short"},
		"taken login":    {"user", "create", "--name", "alice", "--password", "another one"},
	} {
		if err := run(context.Background(), append(args, "--data", dir), envMap(nil), &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}

	st, err := openStore(context.Background(), "", dir, secrets.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := st.LoginByName(context.Background(), "alice")
	if err != nil || l.UserID.String() != strOf(alice, "id") || !oauth.CheckPassword(l.PasswordHash, "correct horse") {
		t.Fatalf("alice's login %+v, %v", l, err)
	}
	// The refused runs created no user.
	users, err := st.Users(context.Background())
	if err != nil || len(users) != 2 {
		t.Errorf("users after refused runs: %d, %v", len(users), err)
	}
	// Without --password there is no login.
	plain := runJSON(t, dir, "user", "create", "--name", "dave")
	if _, err := st.LoginOfUser(context.Background(), mustParse(t, strOf(plain, "id"))); err == nil {
		t.Error("a login without --password")
	}
}

func mustParse(t *testing.T, s string) snowflake.ID {
	t.Helper()
	id, err := snowflake.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
