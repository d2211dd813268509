package adminapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlite"
)

// The admin API's HTTP behaviour as a whole (every route) is tested
// through the server that mounts it, in internal/api's admin_*_test.go.
// These tests cover the wrapper on its own: the package mounted on a
// bare mux with plain plumbing.

func TestStoreError(t *testing.T) {
	apiErr := apierr.New(http.StatusBadRequest, 123, "mine")
	other := errors.New("disk on fire")
	for _, tc := range []struct {
		name string
		gone error
		err  error
		want error
	}{
		{"API error as itself", errUnknownRole, apiErr, apiErr},
		{"conflict", nil, fmt.Errorf("update: %w", store.ErrConflict), errConflict},
		{"vanished: the path's last thing", errUnknownRole, fmt.Errorf("update: %w", store.ErrNotFound), errUnknownRole},
		{"not found before any lookup", nil, store.ErrNotFound, errNotFound},
		{"anything else passes", errUnknownRole, other, other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := &Request{gone: tc.gone}
			if got := req.storeError(tc.err); got != tc.want {
				t.Fatalf("storeError(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// mounted is the admin API on a mux of its own, over a fresh store, with
// an admin token; authFailures counts WriteAuthError's calls.
type mounted struct {
	url, token   string
	authFailures int
	st           store.Store
}

func mount(t *testing.T) *mounted {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.OpenFromTemplate(ctx, filepath.Join(t.TempDir(), "slashd.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	m := &mounted{st: st}
	writeJSON := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	writeError := func(w http.ResponseWriter, _ *http.Request, err error) {
		ae, ok := apierr.As(err)
		if !ok {
			t.Errorf("not an API error: %v", err)
			writeJSON(w, http.StatusInternalServerError, nil)
			return
		}
		writeJSON(w, ae.Status, ae)
	}
	ids := snowflake.NewGenerator(0, nil)
	d := Deps{Store: st, IDs: ids, Now: time.Now, Rand: rand.Reader,
		RefuseFailingAddress: func(http.ResponseWriter, *http.Request) bool { return false },
		ReadBody: func(_ http.ResponseWriter, r *http.Request) (any, error) {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				return nil, err
			}
			return form.DecodeJSON(b)
		},
		WriteJSON:  writeJSON,
		WriteError: writeError,
		WriteAuthError: func(w http.ResponseWriter, r *http.Request, err error) {
			m.authFailures++
			writeError(w, r, err)
		},
	}
	mux := http.NewServeMux()
	New(d).Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	m.url = srv.URL + Prefix
	if m.token, err = bootstrap.CreateAdminToken(ctx, bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now}); err != nil {
		t.Fatalf("admin token: %v", err)
	}
	return m
}

// do sends a request, returning the status, the Content-Type and the
// body decoded (nil when empty).
func (m *mounted) do(t *testing.T, auth, method, path, body string) (int, string, map[string]any) {
	t.Helper()
	var rd io.Reader = http.NoBody
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, m.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: body %q: %v", method, path, raw, err)
		}
	}
	return res.StatusCode, res.Header.Get("Content-Type"), out
}

func TestWrapper(t *testing.T) {
	m := mount(t)
	admin := "Admin " + m.token
	_, _, user := m.do(t, admin, "POST", "/users", `{"username":"ann"}`)
	userID, _ := user["id"].(string)
	_, _, g := m.do(t, admin, "POST", "/guilds", `{"name":"gg","owner_id":"`+userID+`"}`)
	guildID, _ := g["id"].(string)
	if userID == "" || guildID == "" {
		t.Fatalf("no world made: %v %v", user, g)
	}
	for _, tc := range []struct {
		name, auth, method, path, body string
		status                         int
		code                           float64
		// errorsAt is where the form error is ("" for none).
		errorsAt string
	}{
		{name: "no token", method: "GET", path: "/users", status: 401},
		{name: "a bot token is no admin token", auth: "Bot " + m.token, method: "GET", path: "/users", status: 401},
		{name: "unknown admin token", auth: "Admin nope", method: "GET", path: "/users", status: 401},
		{name: "scheme in any case", auth: "admin " + m.token, method: "GET", path: "/users/" + userID, status: 200},
		{name: "malformed path id", auth: admin, method: "GET", path: "/users/abc", status: 400, code: 50035, errorsAt: "user_id"},
		{name: "unknown user", auth: admin, method: "GET", path: "/users/42", status: 404, code: 10013},
		{name: "unknown guild is looked up before the member", auth: admin, method: "GET", path: "/guilds/42/members/43", status: 404, code: 10004},
		{name: "path before body", auth: admin, method: "PUT", path: "/guilds/42/members/" + userID, body: `[]`, status: 404, code: 10004},
		{name: "body not an object", auth: admin, method: "PATCH", path: "/users/" + userID, body: `[]`, status: 400, code: 50035},
		{name: "form errors", auth: admin, method: "POST", path: "/guilds", body: `{}`, status: 400, code: 50035, errorsAt: "owner_id"},
		{name: "optional body left out", auth: admin, method: "PUT", path: "/guilds/" + guildID + "/members/" + userID, status: 200},
		{name: "unknown member", auth: admin, method: "GET", path: "/guilds/" + guildID + "/members/42", status: 404, code: 10007},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := m.do(t, tc.auth, tc.method, tc.path, tc.body)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %v", status, tc.status, body)
			}
			if code, _ := body["code"].(float64); tc.code != 0 && code != tc.code {
				t.Fatalf("code %v, want %v: %v", body["code"], tc.code, body)
			}
			if tc.errorsAt != "" {
				errs, _ := body["errors"].(map[string]any)
				if _, ok := errs[tc.errorsAt]; !ok {
					t.Fatalf("no error at %s: %v", tc.errorsAt, body)
				}
			}
		})
	}
	if m.authFailures != 3 {
		t.Errorf("%d 401s went through WriteAuthError, want 3", m.authFailures)
	}
	t.Run("204 has no body and no Content-Type", func(t *testing.T) {
		status, ct, body := m.do(t, admin, "DELETE", "/guilds/"+guildID, "")
		if status != http.StatusNoContent || ct != "" || body != nil {
			t.Fatalf("DELETE: %d %q %v", status, ct, body)
		}
		status, ct, body = m.do(t, admin, "DELETE", "/users/"+userID, "")
		if status != http.StatusNoContent || ct != "" || body != nil {
			t.Fatalf("DELETE: %d %q %v", status, ct, body)
		}
		if status, _, _ := m.do(t, admin, "GET", "/users/"+userID, ""); status != http.StatusNotFound {
			t.Fatalf("deleted user: %d", status)
		}
	})
}
