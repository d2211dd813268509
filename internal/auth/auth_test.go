package auth_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlite"
)

func TestBotTokenShape(t *testing.T) {
	tok, err := auth.NewBotToken(rand.Reader, 1573856744159838208)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q has %d segments", tok, len(parts))
	}
	id, err := base64.RawStdEncoding.DecodeString(parts[0])
	if err != nil || string(id) != "1573856744159838208" {
		t.Fatalf("first segment decodes to %q, %v", id, err)
	}
	other, _ := auth.NewBotToken(rand.Reader, 1573856744159838208)
	if other == tok {
		t.Fatal("two tokens are equal")
	}
}

func TestRandomnessFailure(t *testing.T) {
	if _, err := auth.NewAccessToken(bytes.NewReader(nil)); err == nil {
		t.Fatal("no error from an empty random source")
	}
}

func TestAuthenticate(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.OpenFromTemplate(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	owner := store.User{ID: 1, Username: "o", CreatedAt: now}
	if err := st.CreateUser(ctx, owner); err != nil {
		t.Fatal(err)
	}
	app := store.Application{ID: 2, Name: "a", OwnerID: 1, IntegrationTypes: []int{0}, ClientSecretHash: auth.Hash("s3cret"),
		PublicKey: "00", PrivateKey: []byte{0}, CreatedAt: now}
	if err := st.CreateApplication(ctx, app, store.User{ID: 2, Username: "a", Bot: true, CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	mint := func(secret, kind string, expires time.Time) {
		t.Helper()
		if err := st.CreateToken(ctx, store.Token{Hash: auth.Hash(secret), Kind: kind, ApplicationID: 2,
			UserID: 1, ExpiresAt: expires, CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	mint("bot-token", store.TokenBot, time.Time{})
	mint("bearer-token", store.TokenBearer, now.Add(time.Hour))
	mint("old-token", store.TokenBearer, now)

	tests := []struct {
		header string
		ok     bool
	}{
		{"Bot bot-token", true},
		{"bot bot-token", true},
		{"Bearer bearer-token", true},
		{"Bearer bot-token", false}, // a bot token is not a Bearer token
		{"Bot bearer-token", false},
		{"Bearer old-token", false}, // expired
		{"Bot nope", false},
		{"Bot", false},
		{"", false},
		{"Basic Ym90LXRva2Vu", false},
	}
	for _, tt := range tests {
		p, err := auth.Authenticate(ctx, st, tt.header, now)
		if (err == nil) != tt.ok {
			t.Errorf("Authenticate(%q) = %v", tt.header, err)
		}
		if err == nil && p.Token.ApplicationID != snowflake.ID(2) {
			t.Errorf("Authenticate(%q) app %d", tt.header, p.Token.ApplicationID)
		}
	}
	if !auth.CheckClientSecret(app, "s3cret") || auth.CheckClientSecret(app, "s3creT") {
		t.Fatal("client secret check")
	}
}
