package main

// The data directory's modes and the secrets at rest, through serve, its
// HTTP interface and the CLI: private keys sealed once a key is set (the
// bytes in the database say so), still signing interactions and
// id_tokens that verify, a wrong or missing key refused at start, the
// key rotated.

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html"
	"io"
	"io/fs"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/store/postgres/pgtest"
)

func TestServeEncryptsSecretsAtRest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	db := filepath.Join(dataDir, "slashd.db")
	key1 := writeFile(t, dir, "key1", "first secret key: 32 bytes or more, from a file\n")
	key2 := writeFile(t, dir, "key2", "second secret key, rotated in, also long enough\n")
	withKeys := func(keys secrets.Config) serveConfig {
		return serveConfig{addr: "127.0.0.1:0", dataDir: dataDir, logLevel: slog.LevelInfo, secrets: keys}
	}

	// A first start without a key keeps the demo app's key in clear; an
	// Ed25519 private key ends with its public key.
	startServe(t, dataDir).stop(t)
	creds := readCreds(t, dataDir)
	pub, err := hex.DecodeString(creds.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	if k := rawAppKey(t, db, creds.ApplicationID); secrets.IsSealed(k) || !bytes.HasSuffix(k, pub) {
		t.Fatalf("without a key the private key is stored as %x, want it in clear", k)
	}
	// An older slashd, or an operator, left the directory open to all.
	loosen(t, dataDir)

	s := startServeConfig(t, withKeys(secrets.Config{KeyFile: key1}))
	t.Run("the data directory is made private", func(t *testing.T) {
		// The demo app's private key, and the demo world's credentials.
		for _, want := range []string{"made a data directory entry private", "private keys are stored encrypted",
			"encrypted_now=2"} {
			if !strings.Contains(s.out.String(), want) {
				t.Errorf("the log does not say %q:\n%s", want, s.out.String())
			}
		}
		wantPrivate(t, dataDir)
	})
	t.Run("the private key is sealed in the database", func(t *testing.T) {
		if k := rawAppKey(t, db, creds.ApplicationID); !secrets.IsSealed(k) || bytes.Contains(k, pub) {
			t.Errorf("the private key is stored as %x, want it sealed", k)
		}
	})
	w := &httpWorld{t: t, base: s.base, creds: creds}
	t.Run("interactions are signed with it", func(t *testing.T) { w.signedInteraction(pub) })
	t.Run("id_tokens are signed with the sealed RSA key", func(t *testing.T) {
		w.idToken()
		if k := rawSigningKey(t, db); !secrets.IsSealed(k) {
			t.Errorf("the id_token signing key is stored as %q, want it sealed", k[:min(len(k), 16)])
		}
	})
	t.Run("the CLI shares the data directory with the key", func(t *testing.T) {
		var out bytes.Buffer
		if err := run(t.Context(), []string{"app", "create", "--data", dataDir, "--name", "second", "--json",
			"--secret-key-file", key1}, envMap(nil), &out, io.Discard); err != nil {
			t.Fatalf("app create with the key: %v", err)
		}
		var second bootstrap.Credentials
		if err := json.Unmarshal(out.Bytes(), &second); err != nil {
			t.Fatal(err)
		}
		if k := rawAppKey(t, db, second.ApplicationID); !secrets.IsSealed(k) {
			t.Errorf("the CLI stored the new app's key as %x", k)
		}
		err := run(t.Context(), []string{"guild", "create", "--data", dataDir, "--name", "no key"}, envMap(nil), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "SLASHD_SECRET_KEY") {
			t.Errorf("the CLI without the key: %v, want a refusal naming SLASHD_SECRET_KEY", err)
		}
	})
	s.stop(t)

	t.Run("a wrong key or none stops the start", func(t *testing.T) {
		for name, tt := range map[string]struct {
			keys secrets.Config
			want string
		}{
			"wrong key": {secrets.Config{KeyFile: key2}, "encrypted with another secret key"},
			"no key":    {secrets.Config{}, "SLASHD_SECRET_KEY"},
			"short key": {secrets.Config{Key: "hunter2"}, "at least 32"},
		} {
			err := serve(t.Context(), withKeys(tt.keys), io.Discard, func(string) { t.Errorf("%s: serve listened", name) })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: serve = %v, want an error saying %q", name, err, tt.want)
			}
		}
	})

	t.Run("rotation encrypts again with the new key", func(t *testing.T) {
		s := startServeConfig(t, withKeys(secrets.Config{KeyFile: key2, OldKeyFile: key1}))
		// Two apps, one signing key, the demo world's credentials.
		if !strings.Contains(s.out.String(), "encrypted_again=4") {
			t.Errorf("the log does not say 4 were encrypted again:\n%s", s.out.String())
		}
		s.stop(t)
		k2, err := secrets.Load(secrets.Config{KeyFile: key2})
		if err != nil {
			t.Fatal(err)
		}
		for what, k := range map[string][]byte{"the app's key": rawAppKey(t, db, creds.ApplicationID),
			"the signing key": rawSigningKey(t, db)} {
			if !secrets.IsSealed(k) || len(k) < len(secrets.Prefix)+8 {
				t.Fatalf("%s is stored as %x, want it sealed", what, k)
			}
			if id := hex.EncodeToString(k[len(secrets.Prefix):][:8]); id != k2.ID() {
				t.Errorf("%s is sealed with key %s, want the new key %s", what, id, k2.ID())
			}
		}
		// The new key alone now serves, and signs.
		s = startServeConfig(t, withKeys(secrets.Config{Key: strings.TrimSpace(readFile(t, key2))}))
		(&httpWorld{t: t, base: s.base, creds: creds}).signedInteraction(pub)
		wantPrivate(t, dataDir)
		s.stop(t)
	})
}

// On PostgreSQL, serve's janitor deletes the rate-limit windows that have
// ended, and keeps the others.
func TestServeForgetsEndedRateLimitWindowsOnPostgres(t *testing.T) {
	t.Parallel()
	dsn, dataDir := pgtest.DSN(t), t.TempDir()
	s := startServeConfig(t, serveConfig{addr: "127.0.0.1:0", dataDir: dataDir, store: dsn, rateLimit: true,
		logLevel: slog.LevelWarn, sweep: 20 * time.Millisecond})
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	creds := readCreds(t, dataDir)
	// A request counts in a window (global and per route) in the store.
	if status, body := call(t, "GET", s.base+"/api/v10/applications/"+creds.ApplicationID+"/commands",
		"Bot "+creds.BotToken, ""); status != http.StatusOK {
		t.Fatalf("list commands: %d %s", status, body)
	}
	now := time.Now().UnixMilli()
	if _, err := db.ExecContext(t.Context(), `INSERT INTO rate_limits (key, count, reset_at) VALUES
		('ended an hour ago', 3, $1), ('ends in an hour', 3, $2)`, now-3_600_000, now+3_600_000); err != nil {
		t.Fatal(err)
	}
	count := func(where string, args ...any) int {
		var n int
		if err := db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM rate_limits WHERE `+where, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The request's windows last a second: all but the live one go.
	for deadline := time.Now().Add(30 * time.Second); count(`key <> 'ends in an hour'`) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("ended windows still stored 30 s on: %d", count(`key <> 'ends in an hour'`))
		}
	}
	if n := count(`key = 'ends in an hour'`); n != 1 {
		t.Errorf("the live window was deleted")
	}
	if got := (serveConfig{}).windowSweep(); got > 30*time.Second {
		t.Errorf("serve sweeps ended windows every %v, want at most 30 s", got)
	}
}

// ---- helpers ----

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readCreds(t *testing.T, dataDir string) bootstrap.Credentials {
	t.Helper()
	var c bootstrap.Credentials
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dataDir, bootstrap.FileName))), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// raw reads one secret column's bytes straight from the SQLite file.
func raw(t *testing.T, dbPath, query string, args ...any) []byte {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b []byte
	if err := db.QueryRowContext(t.Context(), query, args...).Scan(&b); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return b
}

func rawAppKey(t *testing.T, dbPath, appID string) []byte {
	return raw(t, dbPath, `SELECT private_key FROM applications WHERE id = $1`, appID)
}

func rawSigningKey(t *testing.T, dbPath string) []byte {
	return raw(t, dbPath, `SELECT private_key FROM signing_keys ORDER BY created_at DESC LIMIT 1`)
}

// slashdFiles are the files slashd keeps in its data directory.
var slashdFiles = []string{"slashd.db", "slashd.db-wal", "slashd.db-shm", bootstrap.FileName}

// loosen opens the data directory and its files to everyone.
func loosen(t *testing.T, dataDir string) {
	t.Helper()
	if err := os.Chmod(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range slashdFiles {
		if err := os.Chmod(filepath.Join(dataDir, name), 0o644); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// wantPrivate checks the data directory is 0700 and its files 0600.
func wantPrivate(t *testing.T, dataDir string) {
	t.Helper()
	mode := func(p string) fs.FileMode {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	if m := mode(dataDir); m != 0o700 {
		t.Errorf("data directory mode %#o, want 0700", m)
	}
	seen := 0
	for _, name := range slashdFiles {
		p := filepath.Join(dataDir, name)
		if _, err := os.Stat(p); os.IsNotExist(err) {
			continue
		}
		seen++
		if m := mode(p); m != 0o600 {
			t.Errorf("%s mode %#o, want 0600", name, m)
		}
	}
	if seen < 2 {
		t.Errorf("only %d of %v found", seen, slashdFiles)
	}
}

// httpWorld drives a running server over HTTP as a developer and a
// user would.
type httpWorld struct {
	t     *testing.T
	base  string
	creds bootstrap.Credentials
}

// do calls the server and decodes the object answered; want 0 accepts
// any 2xx.
func (w *httpWorld) do(method, path, auth string, body any, want int) map[string]any {
	w.t.Helper()
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	status, resp := call(w.t, method, w.base+path, auth, string(b))
	if status != want && (want != 0 || status/100 != 2) {
		w.t.Fatalf("%s %s: %d %s", method, path, status, resp)
	}
	var out map[string]any
	_ = json.Unmarshal(resp, &out)
	return out
}

func (w *httpWorld) admin(method, path string, body any, want int) map[string]any {
	w.t.Helper()
	return w.do(method, "/admin/v1"+path, "Admin "+w.creds.AdminToken, body, want)
}

// signedInteraction makes an endpoint that checks every request's
// Ed25519 signature against pub the app's Interactions Endpoint URL
// (slashd checks it with a signed PING), has a member use a command and
// checks the endpoint got it, signed.
func (w *httpWorld) signedInteraction(pub ed25519.PublicKey) {
	w.t.Helper()
	got := make(chan int, 8) // the types of verified interactions
	endpoint := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sig, err := hex.DecodeString(r.Header.Get("X-Signature-Ed25519"))
		if err != nil || !ed25519.Verify(pub, append([]byte(r.Header.Get("X-Signature-Timestamp")), body...), sig) {
			http.Error(rw, "invalid request signature", http.StatusUnauthorized)
			return
		}
		var in struct{ Type int }
		_ = json.Unmarshal(body, &in)
		got <- in.Type
		rw.Header().Set("Content-Type", "application/json")
		if in.Type == 1 {
			io.WriteString(rw, `{"type":1}`)
			return
		}
		io.WriteString(rw, `{"type":4,"data":{"content":"signed"}}`)
	}))
	defer endpoint.Close()
	app, guild := w.creds.ApplicationID, w.creds.GuildID
	w.admin("PUT", "/applications/"+app+"/interactions-endpoint", map[string]any{"interactions_endpoint_url": endpoint.URL}, 200)
	if typ := <-got; typ != 1 {
		w.t.Fatalf("the endpoint check sent type %d, want a PING", typ)
	}
	channel := w.admin("POST", "/guilds/"+guild+"/channels", map[string]any{"name": "general", "type": 0}, 201)["id"]
	user := w.admin("POST", "/users", map[string]any{"username": "member"}, 201)["id"].(string)
	w.admin("PUT", "/guilds/"+guild+"/members/"+user, map[string]any{"roles": []string{}}, 0)
	token := w.admin("POST", "/users/"+user+"/tokens", map[string]any{"type": "client"}, 201)["token"].(string)
	cmd := w.do("POST", "/api/v10/applications/"+app+"/guilds/"+guild+"/commands", "Bot "+w.creds.BotToken,
		map[string]any{"name": "ping", "description": "Ping"}, 0)
	w.do("POST", "/api/v10/interactions", token, map[string]any{"type": 2, "application_id": app, "guild_id": guild,
		"channel_id": channel, "data": map[string]any{"id": cmd["id"], "name": "ping", "type": 1, "version": cmd["version"]}}, 200)
	if typ := <-got; typ != 2 {
		w.t.Fatalf("the endpoint got type %d, want the command", typ)
	}
}

var (
	formAction = regexp.MustCompile(`<form method="post" action="([^"]*)">`)
	hiddenRE   = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)
)

// idToken has a user log in on the consent page and approve openid for
// the app, exchanges the code and checks the id_token's RS256 signature
// against the published keys.
func (w *httpWorld) idToken() {
	w.t.Helper()
	const redirect = "https://game.example/callback"
	app := w.creds.ApplicationID
	w.admin("PUT", "/applications/"+app+"/oauth", map[string]any{"redirect_uris": []string{redirect}}, 200)
	user := w.admin("POST", "/users", map[string]any{"username": "alice"}, 201)["id"].(string)
	w.admin("PUT", "/users/"+user+"/login", map[string]any{"name": "alice", "password": "correct horse battery"}, 201)

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page := func(method, target string, form url.Values) (int, http.Header, string) {
		w.t.Helper()
		if !strings.HasPrefix(target, "http") {
			target = w.base + target
		}
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, target, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := browser.Do(req)
		if err != nil {
			w.t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	submit := func(body string, set ...string) (int, http.Header, string) {
		w.t.Helper()
		m := formAction.FindStringSubmatch(body)
		if m == nil {
			w.t.Fatalf("no form in:\n%s", body)
		}
		f := url.Values{}
		for _, h := range hiddenRE.FindAllStringSubmatch(body, -1) {
			f.Set(html.UnescapeString(h[1]), html.UnescapeString(h[2]))
		}
		for i := 0; i+1 < len(set); i += 2 {
			f.Set(set[i], set[i+1])
		}
		return page("POST", html.UnescapeString(m[1]), f)
	}
	q := url.Values{"client_id": {app}, "response_type": {"code"}, "redirect_uri": {redirect},
		"scope": {"openid identify"}, "state": {"s1"}, "nonce": {"n1"}}
	_, _, login := page("GET", "/oauth2/authorize?"+q.Encode(), nil)
	status, h, _ := submit(login, "name", "alice", "password", "correct horse battery")
	if status != http.StatusSeeOther {
		w.t.Fatalf("login: %d", status)
	}
	_, _, consent := page("GET", h.Get("Location"), nil)
	status, h, _ = submit(consent, "action", "approve")
	loc, err := url.Parse(h.Get("Location"))
	if status != http.StatusFound || err != nil || loc.Query().Get("code") == "" {
		w.t.Fatalf("approve: %d, Location %q", status, h.Get("Location"))
	}

	form := url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")}, "redirect_uri": {redirect}}
	req, _ := http.NewRequest("POST", w.base+"/api/v10/oauth2/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(w.creds.ClientID, w.creds.ClientSecret)
	resp, err := httpClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	var tok struct {
		IDToken string `json:"id_token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || err != nil || tok.IDToken == "" {
		w.t.Fatalf("token: %d, %v, id_token %q", resp.StatusCode, err, tok.IDToken)
	}
	w.verifyRS256(tok.IDToken)
}

// verifyRS256 checks a JWT's signature against the key of its kid in
// the JWKS the discovery document names.
func (w *httpWorld) verifyRS256(jwt string) {
	w.t.Helper()
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		w.t.Fatalf("id_token %q", jwt)
	}
	dec := func(s string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			w.t.Fatal(err)
		}
		return b
	}
	var header struct{ Alg, Kid string }
	if err := json.Unmarshal(dec(parts[0]), &header); err != nil || header.Alg != "RS256" {
		w.t.Fatalf("header %s: %v", dec(parts[0]), err)
	}
	jwksURI, _ := w.do("GET", "/.well-known/openid-configuration", "", nil, 200)["jwks_uri"].(string)
	status, body := call(w.t, "GET", jwksURI, "", "")
	var set struct{ Keys []struct{ Kid, N, E string } }
	if err := json.Unmarshal(body, &set); status != http.StatusOK || err != nil {
		w.t.Fatalf("JWKS %s: %d %s", jwksURI, status, body)
	}
	for _, k := range set.Keys {
		if k.Kid != header.Kid {
			continue
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(dec(k.N)), E: int(new(big.Int).SetBytes(dec(k.E)).Int64())}
		digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest[:], dec(parts[2])); err != nil {
			w.t.Fatalf("id_token signature: %v", err)
		}
		return
	}
	w.t.Fatalf("no key %q in %s", header.Kid, body)
}
