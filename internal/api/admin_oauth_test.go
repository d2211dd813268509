package api_test

import (
	"context"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/testenv"
)

func TestAdminLogin(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	ctx := context.Background()
	alice := adminNewUser(t, e, "alice")
	bob := adminNewUser(t, e, "bob")

	// Created (201), then replaced (200); only the name comes back.
	m := adminObj(t, e, "PUT", "/users/"+alice+"/login", jsonObj{"name": "alice", "password": "correct horse"}, 201)
	wantJSON(t, mustMarshal(m), `{"user_id":"`+alice+`","name":"alice"}`)
	l, err := e.Store.LoginByName(ctx, "alice")
	if err != nil || l.UserID.String() != alice || !oauth.CheckPassword(l.PasswordHash, "correct horse") ||
		!strings.HasPrefix(string(l.PasswordHash), "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("stored login %+v, %v", l, err)
	}
	adminObj(t, e, "PUT", "/users/"+alice+"/login", jsonObj{"name": "alice2", "password": "battery staple"}, 200)
	l, err = e.Store.LoginOfUser(ctx, l.UserID)
	if err != nil || l.Name != "alice2" || !oauth.CheckPassword(l.PasswordHash, "battery staple") || oauth.CheckPassword(l.PasswordHash, "correct horse") {
		t.Fatalf("replaced login %+v, %v", l, err)
	}

	cases := []struct {
		name   string
		user   string
		body   any
		status int
		want   string
	}{
		{"name taken", bob, jsonObj{"name": "alice2", "password": "password1"}, 400,
			formError(leaf{"name", "LOGIN_NAME_TAKEN", "This login name belongs to another user"})},
		{"short password", bob, jsonObj{"name": "bob", "password": "1234567"}, 400,
			formError(leaf{"password", "BASE_TYPE_BAD_LENGTH", "Must be between 8 and 128 in length."})},
		{"long password", bob, jsonObj{"name": "bob", "password": strings.Repeat("p", 129)}, 400,
			formError(leaf{"password", "BASE_TYPE_BAD_LENGTH", "Must be between 8 and 128 in length."})},
		{"missing fields", bob, jsonObj{}, 400,
			formError(leaf{"name", "BASE_TYPE_REQUIRED", msgRequired}, leaf{"password", "BASE_TYPE_REQUIRED", msgRequired})},
		{"long name", bob, jsonObj{"name": strings.Repeat("n", 33), "password": "password1"}, 400,
			formError(leaf{"name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length."})},
		{"bot user", e.App.ApplicationID, jsonObj{"name": "bot", "password": "password1"}, 400,
			apiError(0, "Bot users cannot log in: they act through their application's bot token")},
		{"unknown user", "1234567890123456789", jsonObj{"name": "x", "password": "password1"}, 404,
			apiError(10013, "Unknown User")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, adminDo(t, e, "PUT", "/users/"+c.user+"/login", c.body, c.status), c.status, c.want)
		})
	}
	if _, err := e.Store.LoginOfUser(ctx, mustID(t, bob)); err == nil {
		t.Error("a refused PUT gave bob a login")
	}
}

func TestAdminOAuthSettings(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app := e.App.ApplicationID
	path := "/applications/" + app + "/oauth"
	wantJSON(t, adminDo(t, e, "GET", path, nil, 200).Body,
		`{"application_id":"`+app+`","redirect_uris":[],"public_client":false}`)

	set := jsonObj{"redirect_uris": []string{"http://127.0.0.1/callback", "mygame:/authorize/callback",
		"https://game.example/cb", "http://127.0.0.1/callback"}, "public_client": true}
	want := `{"application_id":"` + app + `","redirect_uris":["http://127.0.0.1/callback","mygame:/authorize/callback","https://game.example/cb"],"public_client":true}`
	wantJSON(t, adminDo(t, e, "PUT", path, set, 200).Body, want)
	wantJSON(t, adminDo(t, e, "GET", path, nil, 200).Body, want)
	st, err := e.Store.OAuthSettings(context.Background(), mustID(t, app))
	if err != nil || !st.PublicClient || len(st.RedirectURIs) != 3 {
		t.Fatalf("stored %+v, %v", st, err)
	}
	// An empty PUT resets to the defaults.
	wantJSON(t, adminDo(t, e, "PUT", path, nil, 200).Body,
		`{"application_id":"`+app+`","redirect_uris":[],"public_client":false}`)

	tooMany := make([]string, 11)
	for i := range tooMany {
		tooMany[i] = "https://game.example/" + string(rune('a'+i))
	}
	cases := []struct {
		name   string
		path   string
		body   any
		status int
		want   string
	}{
		{"relative URI", path, jsonObj{"redirect_uris": []string{"https://ok.example/cb", "/cb"}}, 400,
			formError(leaf{"redirect_uris.1", "REDIRECT_URI_INVALID", "Invalid redirect URI: a redirect URI must be absolute (with a scheme)"})},
		{"fragment", path, jsonObj{"redirect_uris": []string{"https://ok.example/cb#x"}}, 400,
			formError(leaf{"redirect_uris.0", "REDIRECT_URI_INVALID", "Invalid redirect URI: a redirect URI must not have a fragment"})},
		{"javascript", path, jsonObj{"redirect_uris": []string{"javascript:alert(1)"}}, 400,
			formError(leaf{"redirect_uris.0", "REDIRECT_URI_INVALID", "Invalid redirect URI: the javascript scheme cannot receive an authorization"})},
		{"not a string", path, jsonObj{"redirect_uris": []any{1}}, 400,
			formError(leaf{"redirect_uris.0", "STRING_TYPE_CONVERT", `Could not interpret "1" as string.`})},
		{"not a list", path, jsonObj{"redirect_uris": "https://ok.example/cb"}, 400,
			formError(leaf{"redirect_uris", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType."})},
		{"too many", path, jsonObj{"redirect_uris": tooMany}, 400,
			formError(leaf{"redirect_uris", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length."})},
		{"public_client not a boolean", path, jsonObj{"public_client": "yes"}, 400,
			formError(leaf{"public_client", "BOOLEAN_TYPE_CONVERT", "Must be either true or false."})},
		{"unknown app", "/applications/1234567890123456789/oauth", jsonObj{}, 404, bodyUnknownApp},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, adminDo(t, e, "PUT", c.path, c.body, c.status), c.status, c.want)
		})
	}
	wantError(t, adminDo(t, e, "GET", "/applications/1234567890123456789/oauth", nil, 404), 404, bodyUnknownApp)
}
