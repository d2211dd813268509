package oauth_test

import (
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/internal/testtool/wwwauth"
)

const (
	userinfoPath = "/api/v10/oauth2/userinfo"
	mePath       = "/api/v10/oauth2/@me"
	formType     = "application/x-www-form-urlencoded"
)

// bearerRequest is a request to a Bearer-protected endpoint: its
// Authorization value and, for a POST, its body and Content-Type.
type bearerRequest struct {
	method, path string
	authz        string
	contentType  string
	body         string
}

// send makes req as a client would, with no help from the test kit.
func (h *harness) send(t *testing.T, req bearerRequest) testenv.Response {
	t.Helper()
	var body io.Reader
	if req.method == "POST" {
		body = strings.NewReader(req.body)
	}
	hr, err := http.NewRequest(req.method, h.e.URL+req.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if req.authz != "" {
		hr.Header.Set("Authorization", req.authz)
	}
	if req.contentType != "" {
		hr.Header.Set("Content-Type", req.contentType)
	}
	resp, err := h.e.Server.Client().Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", req.method, req.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return testenv.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// bearerChallenge reads an answer's WWW-Authenticate as an RFC 7235
// client does: exactly one Bearer challenge, realm slashd. It returns
// the challenge's parameters, or nil when there is no header.
func bearerChallenge(t *testing.T, r testenv.Response) map[string]string {
	t.Helper()
	values := r.Header.Values("WWW-Authenticate")
	if len(values) == 0 {
		return nil
	}
	if len(values) > 1 {
		t.Fatalf("WWW-Authenticate %d times: %q", len(values), values)
	}
	cs, err := wwwauth.Parse(values[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || !strings.EqualFold(cs[0].Scheme, "Bearer") || cs[0].Params["realm"] != "slashd" {
		t.Fatalf("WWW-Authenticate %q: want one Bearer challenge with realm slashd", values[0])
	}
	return cs[0].Params
}

// wantChallenge checks the challenge's error and scope ("" for none);
// an error always comes with a description.
func wantChallenge(t *testing.T, r testenv.Response, wantError, wantScope string) {
	t.Helper()
	params := bearerChallenge(t, r)
	if params == nil {
		t.Fatalf("%d without WWW-Authenticate (%s)", r.Status, r.Body)
	}
	if params["error"] != wantError || params["scope"] != wantScope {
		t.Errorf("challenge %v: want error %q, scope %q", params, wantError, wantScope)
	}
	if _, ok := params["error"]; ok != (params["error_description"] != "") {
		t.Errorf("challenge %v: an error comes with a description, and only an error", params)
	}
	if len(params) > 4 {
		t.Errorf("challenge %v: unexpected parameters", params)
	}
}

// TestUserinfoAndMeBearer: GET and POST userinfo and GET @me, with the
// token in each place RFC 6750 allows, and each refusal with its
// status, the API's envelope and §3's challenge.
func TestUserinfoAndMeBearer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	issue := func(scopes string) string {
		t.Helper()
		code := h.approve(t, h.conf.id, h.alice.ID, scopes, confRedirect, "", "")
		return h.exchange(t, codeForm(code, confRedirect, ""), h.conf.id.String(), h.conf.secret).AccessToken
	}
	openid, identify, guilds := issue("openid"), issue("identify"), issue("guilds")
	revoked := issue("openid identify")
	if r := h.post("/api/v10/oauth2/token/revoke", url.Values{"token": {revoked}}, h.conf.id.String(), h.conf.secret); r.Status != 200 {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	inForm := func(tok string) string { return url.Values{"access_token": {tok}}.Encode() }

	const (
		unauthorized = `{"message":"401: Unauthorized","code":0}`
		forbidden    = `{"message":"403: Forbidden","code":0}`
		badRequest   = `{"message":"400: Bad Request","code":0}`
	)
	for _, c := range []struct {
		name      string
		req       bearerRequest
		status    int
		body      string // the whole body of a refusal
		wantError string // the challenge's error; "-" for no challenge at all
		wantScope string
	}{
		// userinfo by GET.
		{name: "GET header openid", req: bearerRequest{method: "GET", path: userinfoPath, authz: "Bearer " + openid}, status: 200},
		{name: "GET header identify", req: bearerRequest{method: "GET", path: userinfoPath, authz: "Bearer " + identify}, status: 200},
		{name: "GET lowercase scheme", req: bearerRequest{method: "GET", path: userinfoPath, authz: "bearer " + openid}, status: 200},
		{name: "GET no credential", req: bearerRequest{method: "GET", path: userinfoPath},
			status: 401, body: unauthorized},
		{name: "GET unknown token", req: bearerRequest{method: "GET", path: userinfoPath, authz: "Bearer nope"},
			status: 401, body: unauthorized, wantError: "invalid_token"},
		{name: "GET revoked token", req: bearerRequest{method: "GET", path: userinfoPath, authz: "Bearer " + revoked},
			status: 401, body: unauthorized, wantError: "invalid_token"},
		{name: "GET Bearer without token", req: bearerRequest{method: "GET", path: userinfoPath, authz: "Bearer"},
			status: 401, body: unauthorized, wantError: "invalid_token"},
		{name: "GET bot token", req: bearerRequest{method: "GET", path: userinfoPath, authz: h.e.Bot()},
			status: 401, body: unauthorized},
		{name: "GET bare token", req: bearerRequest{method: "GET", path: userinfoPath, authz: openid},
			status: 401, body: unauthorized},
		{name: "GET without openid or identify", req: bearerRequest{method: "GET", path: userinfoPath, authz: "Bearer " + guilds},
			status: 403, body: forbidden, wantError: "insufficient_scope", wantScope: "openid"},
		{name: "GET query token is no credential", req: bearerRequest{method: "GET", path: userinfoPath + "?access_token=" + openid},
			status: 401, body: unauthorized},

		// userinfo by POST.
		{name: "POST header", req: bearerRequest{method: "POST", path: userinfoPath, authz: "Bearer " + openid}, status: 200},
		{name: "POST header, empty form", req: bearerRequest{method: "POST", path: userinfoPath, authz: "Bearer " + openid,
			contentType: formType}, status: 200},
		{name: "POST form body", req: bearerRequest{method: "POST", path: userinfoPath, contentType: formType,
			body: inForm(openid)}, status: 200},
		{name: "POST form body with charset", req: bearerRequest{method: "POST", path: userinfoPath,
			contentType: formType + "; charset=UTF-8", body: inForm(identify)}, status: 200},
		{name: "POST both header and body", req: bearerRequest{method: "POST", path: userinfoPath, authz: "Bearer " + openid,
			contentType: formType, body: inForm(openid)},
			status: 400, body: badRequest, wantError: "invalid_request"},
		{name: "POST token twice in the body", req: bearerRequest{method: "POST", path: userinfoPath, contentType: formType,
			body: inForm(openid) + "&" + inForm(openid)},
			status: 400, body: badRequest, wantError: "invalid_request"},
		{name: "POST no credential", req: bearerRequest{method: "POST", path: userinfoPath},
			status: 401, body: unauthorized},
		{name: "POST empty form", req: bearerRequest{method: "POST", path: userinfoPath, contentType: formType},
			status: 401, body: unauthorized},
		{name: "POST unknown token in the body", req: bearerRequest{method: "POST", path: userinfoPath, contentType: formType,
			body: inForm("nope")}, status: 401, body: unauthorized, wantError: "invalid_token"},
		{name: "POST empty token in the body", req: bearerRequest{method: "POST", path: userinfoPath, contentType: formType,
			body: "access_token="}, status: 401, body: unauthorized, wantError: "invalid_token"},
		{name: "POST revoked token in the header", req: bearerRequest{method: "POST", path: userinfoPath, authz: "Bearer " + revoked},
			status: 401, body: unauthorized, wantError: "invalid_token"},
		{name: "POST without openid or identify, in the body", req: bearerRequest{method: "POST", path: userinfoPath,
			contentType: formType, body: inForm(guilds)},
			status: 403, body: forbidden, wantError: "insufficient_scope", wantScope: "openid"},
		{name: "POST JSON body is no credential", req: bearerRequest{method: "POST", path: userinfoPath,
			contentType: "application/json", body: `{"access_token":"` + openid + `"}`},
			status: 401, body: unauthorized},

		// @me takes any Bearer token, by GET, in the header.
		{name: "@me", req: bearerRequest{method: "GET", path: mePath, authz: "Bearer " + guilds}, status: 200},
		{name: "@me no credential", req: bearerRequest{method: "GET", path: mePath},
			status: 401, body: unauthorized},
		{name: "@me unknown token", req: bearerRequest{method: "GET", path: mePath, authz: "Bearer nope"},
			status: 401, body: unauthorized, wantError: "invalid_token"},
		{name: "@me revoked token", req: bearerRequest{method: "GET", path: mePath, authz: "Bearer " + revoked},
			status: 401, body: unauthorized, wantError: "invalid_token"},
		{name: "@me bot token", req: bearerRequest{method: "GET", path: mePath, authz: h.e.Bot()},
			status: 401, body: unauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.send(t, c.req)
			if r.Status != c.status {
				t.Fatalf("status %d, want %d (%s)", r.Status, c.status, r.Body)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if c.req.path == userinfoPath && r.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("userinfo's Cache-Control %q, want no-store", r.Header.Get("Cache-Control"))
			}
			if c.status == 200 {
				if params := bearerChallenge(t, r); params != nil {
					t.Errorf("a 200 with a challenge %v", params)
				}
				var m map[string]any
				r.JSON(t, &m)
				if c.req.path == userinfoPath && m["sub"] != h.alice.ID.String() {
					t.Errorf("userinfo %v", m)
				}
				return
			}
			if string(r.Body) != c.body {
				t.Errorf("body %s, want %s", r.Body, c.body)
			}
			wantChallenge(t, r, c.wantError, c.wantScope)
		})
	}
}

// TestUserinfoPostAnswersAsGet: the POST form's answer is the GET's.
func TestUserinfoPostAnswersAsGet(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code := h.approve(t, h.conf.id, h.alice.ID, "openid identify", confRedirect, "", "")
	tok := h.exchange(t, codeForm(code, confRedirect, ""), h.conf.id.String(), h.conf.secret).AccessToken
	get := h.send(t, bearerRequest{method: "GET", path: userinfoPath, authz: "Bearer " + tok})
	post := h.send(t, bearerRequest{method: "POST", path: userinfoPath, contentType: formType,
		body: url.Values{"access_token": {tok}}.Encode()})
	var g, p map[string]any
	get.JSON(t, &g)
	post.JSON(t, &p)
	if get.Status != 200 || post.Status != 200 || !reflect.DeepEqual(g, p) {
		t.Errorf("GET %d %v\nPOST %d %v", get.Status, g, post.Status, p)
	}
}
