package api_test

// Shared helpers of the HTTP test suite: every test drives the real API
// through testenv (a real listener on a fresh SQLite store) and compares
// statuses, headers and bodies exactly, error trees as canonical JSON.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// ---- paths ----

// apiPaths builds the paths of one app (and one of its guilds) under one
// API prefix.
type apiPaths struct {
	prefix, app, guild string
}

func v10(e *testenv.Env) apiPaths { return apiPaths{"/api/v10", e.App.ApplicationID, e.App.GuildID} }

func pathsFor(prefix string, c bootstrap.Credentials) apiPaths {
	return apiPaths{prefix, c.ApplicationID, c.GuildID}
}

func (p apiPaths) withGuild(g string) apiPaths { p.guild = g; return p }

func (p apiPaths) global() string { return p.prefix + "/applications/" + p.app + "/commands" }

func (p apiPaths) globalCmd(id string) string { return p.global() + "/" + id }

func (p apiPaths) guildCmds() string {
	return p.prefix + "/applications/" + p.app + "/guilds/" + p.guild + "/commands"
}

func (p apiPaths) guildCmd(id string) string { return p.guildCmds() + "/" + id }

func (p apiPaths) allPerms() string { return p.guildCmds() + "/permissions" }

func (p apiPaths) cmdPerms(id string) string { return p.guildCmds() + "/" + id + "/permissions" }

// ---- requests ----

// rawRequest sends a request with explicit headers; body is sent as is.
// It is safe to call from any goroutine (it reports errors, never fails
// the test itself).
func rawRequest(e *testenv.Env, method, path string, hdr map[string]string, body []byte) (testenv.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, e.URL+path, rd)
	if err != nil {
		return testenv.Response{}, err
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		return testenv.Response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return testenv.Response{}, err
	}
	return testenv.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// send is rawRequest for the test goroutine.
func send(t testing.TB, e *testenv.Env, method, path string, hdr map[string]string, body []byte) testenv.Response {
	t.Helper()
	r, err := rawRequest(e, method, path, hdr, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// doJSON sends a JSON body (marshalled unless string/[]byte) from any
// goroutine.
func doJSON(e *testenv.Env, method, path, auth string, body any) (testenv.Response, error) {
	hdr := map[string]string{}
	if auth != "" {
		hdr["Authorization"] = auth
	}
	var b []byte
	switch v := body.(type) {
	case nil:
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		enc, err := json.Marshal(v)
		if err != nil {
			return testenv.Response{}, err
		}
		b = enc
	}
	if b != nil {
		hdr["Content-Type"] = "application/json"
	}
	return rawRequest(e, method, path, hdr, b)
}

// postForm sends an application/x-www-form-urlencoded body.
func postForm(t testing.TB, e *testenv.Env, path string, form url.Values, user, pass string) testenv.Response {
	t.Helper()
	req, err := http.NewRequest("POST", e.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" || pass != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return testenv.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// ---- assertions ----

func describe(r testenv.Response) string { return fmt.Sprintf("%d %s", r.Status, r.Body) }

func wantStatus(t testing.TB, r testenv.Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status: got %s, want %d", describe(r), status)
	}
	if status == http.StatusNoContent && (r.Header.Get("Content-Type") != "" || len(r.Body) != 0) {
		// @discordjs/rest parses any body labelled JSON: a labelled empty
		// 204 makes every reply() and delete throw in a discord.js bot.
		t.Fatalf("204 must have no Content-Type and no body: Content-Type %q, body %q",
			r.Header.Get("Content-Type"), r.Body)
	}
}

// canon renders JSON canonically (sorted keys, no spaces).
func canon(t testing.TB, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %q: %v", b, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// wantJSON compares a body with the expected JSON, as canonical JSON.
func wantJSON(t testing.TB, got []byte, want string) {
	t.Helper()
	if g, w := canon(t, got), canon(t, []byte(want)); g != w {
		t.Fatalf("body:\n got  %s\n want %s", g, w)
	}
}

// wantError checks status and the whole error body.
func wantError(t testing.TB, r testenv.Response, status int, body string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status: got %s, want %d %s", describe(r), status, body)
	}
	wantJSON(t, r.Body, body)
}

// apiError is the envelope of an error without field errors.
func apiError(code int, msg string) string {
	b, _ := json.Marshal(map[string]any{"message": msg, "code": code})
	return string(b)
}

// Errors the API answers with, as bodies.
var (
	bodyUnauthorized   = apiError(0, "401: Unauthorized")
	bodyNotFound       = apiError(0, "404: Not Found")
	bodyMethod         = apiError(0, "405: Method Not Allowed")
	bodyUnknownApp     = apiError(10002, "Unknown Application")
	bodyUnknownGuild   = apiError(10004, "Unknown Guild")
	bodyUnknownCommand = apiError(10063, "Unknown application command")
	bodyUnknownPerms   = apiError(10066, "Unknown application command permissions")
	bodyBotsCannotUse  = apiError(20001, "Bots cannot use this endpoint")
	bodyNotYourApp     = apiError(20012, "You are not authorized to perform this action on this application")
	bodyMissingScope   = apiError(40001, "Unauthorized. Provide a valid token and try again")
	bodyNameExists     = apiError(40041, "An application command with that name already exists")
	bodyMissingAccess  = apiError(50001, "Missing Access")
	bodyMissingPerms   = apiError(50013, "Missing Permissions")
	bodyInvalidJSON    = apiError(50109, "The request body contains invalid JSON.")
	bodyDailyCreates   = apiError(30034, "Max number of daily application command creates has been reached (200)")
)

func bodyMaxCommands(n int) string {
	return apiError(30032, fmt.Sprintf("Maximum number of application commands reached (%d)", n))
}

// leaf is one expected field error: a dotted path ("" for the top level),
// a code and a message.
type leaf struct{ path, code, msg string }

// formError renders the 50035 envelope holding exactly these leaves.
func formError(leaves ...leaf) string {
	root := map[string]any{}
	for _, l := range leaves {
		node := root
		if l.path != "" {
			for _, k := range strings.Split(l.path, ".") {
				child, ok := node[k].(map[string]any)
				if !ok {
					child = map[string]any{}
					node[k] = child
				}
				node = child
			}
		}
		errs, _ := node["_errors"].([]any)
		node["_errors"] = append(errs, map[string]any{"code": l.code, "message": l.msg})
	}
	b, _ := json.Marshal(map[string]any{"message": "Invalid Form Body", "code": 50035, "errors": root})
	return string(b)
}

const (
	msgRequired = "This field is required"
)

func notSnowflake(v string) string { return `Value "` + v + `" is not snowflake.` }

// ---- decoding ----

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

type jsonObj = map[string]any

func decodeObj(t testing.TB, r testenv.Response) jsonObj {
	t.Helper()
	var m jsonObj
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("decode object %s: %v", r.Body, err)
	}
	return m
}

func decodeList(t testing.TB, r testenv.Response) []jsonObj {
	t.Helper()
	var l []jsonObj
	if err := json.Unmarshal(r.Body, &l); err != nil {
		t.Fatalf("decode list %s: %v", r.Body, err)
	}
	return l
}

func str(m jsonObj, k string) string {
	s, _ := m[k].(string)
	return s
}

// names returns the "name" of each element, in order.
func names(l []jsonObj) []string {
	out := make([]string, len(l))
	for i, c := range l {
		out[i] = str(c, "name")
	}
	return out
}

// byName indexes a list by (type, name).
func byName(l []jsonObj) map[string]jsonObj {
	out := map[string]jsonObj{}
	for _, c := range l {
		out[fmt.Sprintf("%v/%s", c["type"], str(c, "name"))] = c
	}
	return out
}

// ---- command bodies ----

func chat(name string) jsonObj { return jsonObj{"name": name, "description": "Does " + name} }

func userCmd(name string) jsonObj { return jsonObj{"type": 2, "name": name} }

func msgCmd(name string) jsonObj { return jsonObj{"type": 3, "name": name} }

func with(m jsonObj, kv ...any) jsonObj {
	out := jsonObj{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// chatN returns n CHAT_INPUT command bodies named prefix-0 … prefix-(n-1).
func chatN(prefix string, n int) []jsonObj {
	out := make([]jsonObj, n)
	for i := range out {
		out[i] = chat(fmt.Sprintf("%s-%d", prefix, i))
	}
	return out
}

// ---- scenario helpers ----

// mustDo sends a JSON request and checks the status (any when negative).
func mustDo(t testing.TB, e *testenv.Env, method, path, auth string, body any, status int) testenv.Response {
	t.Helper()
	r, err := doJSON(e, method, path, auth, body)
	if err != nil {
		t.Fatal(err)
	}
	if status >= 0 {
		wantStatus(t, r, status)
	}
	return r
}

// storeInstallation is an installation of app in guild with the
// applications.commands and bot scopes.
func storeInstallation(t testing.TB, guild, app string) store.Installation {
	return store.Installation{GuildID: mustID(t, guild), ApplicationID: mustID(t, app),
		Scopes: []string{"applications.commands", "bot"}, CreatedAt: time.Now()}
}

// create POSTs a command and returns it (status 201 expected).
func create(t testing.TB, e *testenv.Env, path, auth string, body any) jsonObj {
	t.Helper()
	return decodeObj(t, mustDo(t, e, "POST", path, auth, body, http.StatusCreated))
}

// snapshot is the full state of a list endpoint (dictionaries included),
// for before/after comparisons.
func snapshot(t testing.TB, e *testenv.Env, listPath string) string {
	t.Helper()
	return snapshotAs(t, e, listPath, e.Bot())
}

func snapshotAs(t testing.TB, e *testenv.Env, listPath, auth string) string {
	t.Helper()
	r := mustDo(t, e, "GET", listPath+"?with_localizations=true", auth, nil, http.StatusOK)
	return string(r.Body)
}

// wantUnchanged checks a list endpoint still returns the snapshot.
func wantUnchanged(t testing.TB, e *testenv.Env, listPath, before string) {
	t.Helper()
	wantUnchangedAs(t, e, listPath, e.Bot(), before)
}

func wantUnchangedAs(t testing.TB, e *testenv.Env, listPath, auth, before string) {
	t.Helper()
	if after := snapshotAs(t, e, listPath, auth); after != before {
		t.Fatalf("state changed:\n before %s\n after  %s", before, after)
	}
}

func mustID(t testing.TB, s string) snowflake.ID {
	t.Helper()
	id, err := snowflake.Parse(s)
	if err != nil {
		t.Fatalf("not a snowflake: %q", s)
	}
	return id
}

// newGuild creates a guild owned by owner, with app installed (0: none).
func newGuild(t testing.TB, e *testenv.Env, owner, app snowflake.ID) string {
	t.Helper()
	id, err := bootstrap.CreateGuild(context.Background(), e.Bootstrap(), "guild "+strconv.Itoa(int(time.Now().UnixNano()%1000)), owner, app)
	if err != nil {
		t.Fatal(err)
	}
	return id.String()
}

// newUser creates a plain user.
func newUser(t testing.TB, e *testenv.Env) snowflake.ID {
	t.Helper()
	u := bootstrap.NewOwner(e.IDs.Next(), time.Now())
	if err := e.Store.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// clientCredentials mints a client-credentials Bearer token for an app and
// returns the Authorization value.
func clientCredentials(t testing.TB, e *testenv.Env, c bootstrap.Credentials, scope string) string {
	t.Helper()
	r := postForm(t, e, "/api/v10/oauth2/token",
		url.Values{"grant_type": {"client_credentials"}, "scope": {scope}}, c.ClientID, c.ClientSecret)
	wantStatus(t, r, http.StatusOK)
	tok := str(decodeObj(t, r), "access_token")
	if tok == "" {
		t.Fatalf("no access_token in %s", r.Body)
	}
	return "Bearer " + tok
}

// normalizer replaces snowflakes by their order of first appearance, so
// that transcripts of two environments can be compared.
type normalizer struct{ seen map[string]string }

var snowflakeRe = regexp.MustCompile(`^[1-9][0-9]{14,19}$`)

func (n *normalizer) walk(v any) any {
	switch x := v.(type) {
	case string:
		if snowflakeRe.MatchString(x) {
			if n.seen == nil {
				n.seen = map[string]string{}
			}
			if _, ok := n.seen[x]; !ok {
				n.seen[x] = fmt.Sprintf("<id%d>", len(n.seen))
			}
			return n.seen[x]
		}
		return x
	case []any:
		for i := range x {
			x[i] = n.walk(x[i])
		}
		return x
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // first appearance must not depend on map order
		for _, k := range keys {
			x[k] = n.walk(x[k])
		}
		return x
	}
	return v
}

func (n *normalizer) body(t testing.TB, b []byte) string {
	t.Helper()
	if len(b) == 0 {
		return ""
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %q", b)
	}
	out, _ := json.Marshal(n.walk(v))
	return string(out)
}
