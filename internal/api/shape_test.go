package api_test

// The response-shape test: every request the test makes goes through a
// recording transport that finds the route the server matched (from the
// server's own list of registered routes), checks the answer against the
// route's schema (shape_schema_test.go) for its status, and counts it as
// a success (< 400) or an error answer of that route. The walk drives
// every route to at least one of each; a route registered without both
// fails the test, unless it is listed in shapeExempt with the reason.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/metrics"
	"github.com/slashd/slashd/internal/metrics/metricstest"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// answers is what one route answers: a shape per success status, and the
// shape of its error answers (nil: the API's error envelope). A 429 is
// always the rate-limit body.
type answers struct {
	ok   map[int]shape
	errs shape
}

// Non-JSON answers, checked on the raw response.
type (
	// htmlPage is a page of the consent flow.
	htmlPage struct{}
	// redirect sends the browser on, with a Location.
	redirect struct{}
	// upgrade is the websocket's 101.
	upgrade struct{}
	// foreignBody is an answer another library writes (the websocket
	// library's refusal of a request that is no upgrade).
	foreignBody struct{}
	// metricsText is the Prometheus text exposition.
	metricsText struct{}
	// servedFile is an uploaded file: its own content type, never
	// sniffed.
	servedFile struct{}
	// cdnGone is the CDN's plain-text 404.
	cdnGone struct{}
)

func (htmlPage) check(string, any, *[]string)    {}
func (redirect) check(string, any, *[]string)    {}
func (upgrade) check(string, any, *[]string)     {}
func (foreignBody) check(string, any, *[]string) {}
func (metricsText) check(string, any, *[]string) {}
func (servedFile) check(string, any, *[]string)  {}
func (cdnGone) check(string, any, *[]string)     {}

func one(status int, s shape) map[int]shape { return map[int]shape{status: s} }

const cmds = "/applications/{application_id}/commands"
const guildCmds = "/applications/{application_id}/guilds/{guild_id}/commands"
const hookPath = "/webhooks/{application_id}/{interaction_token}"

var consentPage = answers{ok: map[int]shape{200: htmlPage{}, 302: redirect{}, 303: redirect{}}, errs: htmlPage{}}

// shapeOperations maps each route (its mux pattern with the API prefix
// written {api}) to its answers.
var shapeOperations = map[string]answers{
	"GET {api}" + cmds:                                                               {ok: one(200, arrayOf{sCommand})},
	"POST {api}" + cmds:                                                              {ok: map[int]shape{200: sCommand, 201: sCommand}},
	"PUT {api}" + cmds:                                                               {ok: one(200, arrayOf{sCommand})},
	"GET {api}" + cmds + "/{command_id}":                                             {ok: one(200, sCommand)},
	"PATCH {api}" + cmds + "/{command_id}":                                           {ok: one(200, sCommand)},
	"DELETE {api}" + cmds + "/{command_id}":                                          {ok: one(204, sNoBody)},
	"GET {api}" + guildCmds:                                                          {ok: one(200, arrayOf{sCommand})},
	"POST {api}" + guildCmds:                                                         {ok: map[int]shape{200: sCommand, 201: sCommand}},
	"PUT {api}" + guildCmds:                                                          {ok: one(200, arrayOf{sCommand})},
	"GET {api}" + guildCmds + "/{command_id}":                                        {ok: one(200, sCommand)},
	"PATCH {api}" + guildCmds + "/{command_id}":                                      {ok: one(200, sCommand)},
	"DELETE {api}" + guildCmds + "/{command_id}":                                     {ok: one(204, sNoBody)},
	"GET {api}" + guildCmds + "/permissions":                                         {ok: one(200, arrayOf{sCommandPermissions})},
	"PUT {api}" + guildCmds + "/permissions":                                         {},
	"GET {api}" + guildCmds + "/{command_id}/permissions":                            {ok: one(200, sCommandPermissions)},
	"PUT {api}" + guildCmds + "/{command_id}/permissions":                            {ok: one(200, sCommandPermissions)},
	"GET {api}/applications/{application_id}/command/{command_id}":                   {ok: one(200, sCommand)},
	"GET {api}/applications/{application_id}/guilds/{guild_id}/command/{command_id}": {ok: one(200, sCommand)},
	"GET {api}/channels/{channel_id}/application-command-index":                      {ok: one(200, sCommandIndex)},
	"POST {api}/interactions":                                                        {ok: one(200, sCallbackResponse)},
	"POST {api}/interactions/{interaction_id}/{interaction_token}/callback": {
		ok: map[int]shape{200: sCallbackResponse, 204: sNoBody}},
	"POST {api}" + hookPath:                                    {ok: one(200, sMessage)},
	"GET {api}" + hookPath + "/messages/{message_id}":          {ok: one(200, sMessage)},
	"PATCH {api}" + hookPath + "/messages/{message_id}":        {ok: one(200, sMessage)},
	"DELETE {api}" + hookPath + "/messages/{message_id}":       {ok: one(204, sNoBody)},
	"GET {api}/channels/{channel_id}/messages":                 {ok: one(200, arrayOf{sMessage})},
	"POST {api}/channels/{channel_id}/messages":                {ok: one(200, sMessage)},
	"GET {api}/channels/{channel_id}/messages/{message_id}":    {ok: one(200, sMessage)},
	"PATCH {api}/channels/{channel_id}/messages/{message_id}":  {ok: one(200, sMessage)},
	"DELETE {api}/channels/{channel_id}/messages/{message_id}": {ok: one(204, sNoBody)},
	"GET {api}/gateway":                                        {ok: one(200, sGateway)},
	"GET {api}/gateway/bot":                                    {ok: one(200, sGatewayBot)},
	"GET {api}/users/@me":                                      {ok: one(200, sUserPII)},
	"GET {api}/users/{user_id}":                                {ok: one(200, sUser)},
	"GET {api}/applications/@me":                               {ok: one(200, sPrivateApplication)},
	"GET {api}/oauth2/applications/@me":                        {ok: one(200, sPrivateApplication)},

	"POST {api}/oauth2/token":               {ok: one(200, sToken), errs: sOAuthError},
	"POST {api}/oauth2/token/revoke":        {ok: one(200, obj()), errs: sOAuthError},
	"GET {api}/oauth2/@me":                  {ok: one(200, sAuthorization)},
	"GET {api}/oauth2/userinfo":             {ok: one(200, sUserinfo)},
	"POST {api}/oauth2/userinfo":            {ok: one(200, sUserinfo)},
	"GET {api}/oauth2/keys":                 {ok: one(200, sKeys)},
	"GET {api}/oauth2/authorize":            consentPage,
	"POST {api}/oauth2/authorize":           consentPage,
	"POST {api}/oauth2/authorize/login":     consentPage,
	"GET /oauth2/authorize":                 consentPage,
	"POST /oauth2/authorize":                consentPage,
	"POST /oauth2/authorize/login":          consentPage,
	"GET /.well-known/openid-configuration": {ok: one(200, sDiscovery)},

	"GET /gateway":     {ok: one(101, upgrade{}), errs: foreignBody{}},
	"GET /gateway/{$}": {ok: one(101, upgrade{}), errs: foreignBody{}},
	"GET /healthz":     {ok: one(200, obj(req("status", tString)))},
	"GET /metrics":     {ok: one(200, metricsText{})},
	"GET /attachments/{channel_id}/{attachment_id}/{filename}": {ok: one(200, servedFile{}), errs: cdnGone{}},
	"/": {},
}

// adminAnswers are the admin API's (slashd's own): any JSON on success,
// the API's error envelope on errors.
var adminAnswers = answers{ok: map[int]shape{200: tAny, 201: tAny, 204: sNoBody}}

// shapeExempt lists routes that cannot answer one of the two kinds, and
// why.
var shapeExempt = map[string]struct{ noSuccess, noError string }{
	"PUT {api}" + guildCmds + "/permissions": {noSuccess: "disabled: always 405, as the real service (discord-api-docs#4687)"},
	"/":                                      {noSuccess: "the catch-all answers only 404 and 405"},
	"GET /healthz":                           {noError: "public, takes no input and is not rate limited"},
	"GET /metrics":                           {noError: "public, takes no input and is not rate limited"},
}

// routeKey writes a mux pattern's API prefix as {api}.
func routeKey(pattern string) string {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		return pattern
	}
	for _, p := range apiPrefixes { // longest first
		if strings.HasPrefix(path, p+"/") {
			return method + " {api}" + strings.TrimPrefix(path, p)
		}
	}
	return pattern
}

func isAdmin(key string) bool { return strings.Contains(key, " /admin/v1/") }

func answersOf(key string) (answers, bool) {
	if isAdmin(key) {
		return adminAnswers, true
	}
	a, ok := shapeOperations[key]
	return a, ok
}

// shapeCoverage counts, per route, the success and error answers seen,
// across the environments of the test.
type shapeCoverage struct {
	t    *testing.T
	mu   sync.Mutex
	ok   map[string]int
	errs map[string]int
}

// recorder is an environment's recording transport.
type recorder struct {
	cov   *shapeCoverage
	inner http.RoundTripper
	mux   *http.ServeMux // the server's patterns, to name the route a request took
}

// record puts a recorder in front of e's client.
func (c *shapeCoverage) record(e *testenv.Env) *recorder {
	mux := http.NewServeMux()
	for _, p := range e.API.Routes() {
		mux.Handle(p, http.NotFoundHandler())
	}
	client := e.Server.Client()
	r := &recorder{cov: c, inner: client.Transport, mux: mux}
	client.Transport = r
	return r
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.inner.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	var body []byte
	if resp.StatusCode != http.StatusSwitchingProtocols { // its body is the connection
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	_, pattern := r.mux.Handler(req)
	r.cov.check(req, routeKey(pattern), resp, body)
	return resp, nil
}

// check validates one answer against its route's schema and counts it.
func (c *shapeCoverage) check(req *http.Request, key string, resp *http.Response, body []byte) {
	what := fmt.Sprintf("%s %.80s → %d (route %s)", req.Method, req.URL.RequestURI(), resp.StatusCode, key)
	a, known := answersOf(key)
	if !known {
		c.t.Errorf("%s: no schema for this route", what)
		return
	}
	success := resp.StatusCode < 400
	var s shape
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		s = sRatelimited
	case success:
		var listed bool
		if s, listed = a.ok[resp.StatusCode]; !listed {
			c.t.Errorf("%s: a status its schema does not list; body %.200s", what, body)
			return
		}
	case a.errs != nil:
		s = a.errs
	default:
		s = sError
	}
	if errs := checkAnswer(s, resp, body); len(errs) > 0 {
		c.t.Errorf("%s:\n\t%s\n\tbody: %.400s", what, strings.Join(errs, "\n\t"), body)
	}
	if strings.HasPrefix(req.URL.Path, "/api/") && resp.Header.Get("Via") != "1.1 google" {
		c.t.Errorf("%s: Via %q, want 1.1 google (every /api answer)", what, resp.Header.Get("Via"))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if success {
		c.ok[key]++
	} else {
		c.errs[key]++
	}
}

// checkAnswer checks the headers and body of an answer against s.
func checkAnswer(s shape, resp *http.Response, body []byte) []string {
	ct := resp.Header.Get("Content-Type")
	media, _, _ := mime.ParseMediaType(ct)
	switch s.(type) {
	case upgrade, foreignBody:
		return nil
	case noBodyShape:
		if ct != "" || len(body) != 0 {
			return []string{fmt.Sprintf("want no body and no Content-Type, got %q %q", ct, body)}
		}
		return nil
	case htmlPage:
		if media != "text/html" {
			return []string{fmt.Sprintf("want an HTML page, got Content-Type %q", ct)}
		}
		return nil
	case redirect:
		if resp.Header.Get("Location") == "" {
			return []string{"a redirect without Location"}
		}
		return nil
	case servedFile, cdnGone:
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || ct == "" {
			return []string{fmt.Sprintf("want a Content-Type and nosniff, got %q %q", ct, resp.Header.Get("X-Content-Type-Options"))}
		}
		if _, gone := s.(cdnGone); gone && (resp.StatusCode != http.StatusNotFound || media != "text/plain") {
			return []string{fmt.Sprintf("want the CDN's plain-text 404, got %d %q", resp.StatusCode, ct)}
		}
		return nil
	case metricsText:
		if ct != metrics.ContentType {
			return []string{fmt.Sprintf("want %q, got Content-Type %q", metrics.ContentType, ct)}
		}
		if _, err := metricstest.Parse(string(body)); err != nil {
			return []string{err.Error()}
		}
		return nil
	}
	if media != "application/json" {
		return []string{fmt.Sprintf("want application/json, got Content-Type %q (body %.100s)", ct, body)}
	}
	return conform(s, body)
}

// conform checks a JSON document against s.
func conform(s shape, body []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []string{fmt.Sprintf("not JSON: %v: %.100s", err, body)}
	}
	var errs []string
	s.check("$", v, &errs)
	return errs
}

// verify fails for every registered route without a success and an
// error answer (admin routes: an error answer), unless exempt.
func (c *shapeCoverage) verify(routes []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	var missing []string
	for _, p := range routes {
		key := routeKey(p)
		if seen[key] {
			continue
		}
		seen[key] = true
		if _, known := answersOf(key); !known {
			missing = append(missing, key+": no schema")
			continue
		}
		ex := shapeExempt[key]
		if c.ok[key] == 0 && ex.noSuccess == "" && !isAdmin(key) {
			missing = append(missing, key+": no success answer")
		}
		if c.errs[key] == 0 && ex.noError == "" {
			missing = append(missing, key+": no error answer")
		}
	}
	for key := range shapeOperations {
		if !seen[key] {
			missing = append(missing, key+": in the schema table but not registered")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		c.t.Error(m)
	}
}

// shapeWalk drives one environment: p rotates the API prefix so that
// every root is exercised.
type shapeWalk struct {
	*gatewayWorld
	t *testing.T
	n int
}

func (w *shapeWalk) api(path string) string {
	w.n++
	return apiPrefixes[w.n%len(apiPrefixes)] + path
}

// do sends a JSON request through the next prefix and checks the status.
func (w *shapeWalk) do(method, path, auth string, body any, status int) jsonObj {
	w.t.Helper()
	r := mustDo(w.t, w.e, method, w.api(path), auth, body, status)
	if len(r.Body) == 0 || r.Body[0] != '{' {
		return nil
	}
	return decodeObj(w.t, r)
}

func TestResponseShapes(t *testing.T) {
	t.Parallel()
	cov := &shapeCoverage{t: t, ok: map[string]int{}, errs: map[string]int{}}
	e := testenv.New(t)
	cov.record(e)
	w := &shapeWalk{gatewayWorld: newGatewayWorld(t, e), t: t}

	t.Run("commands", func(t *testing.T) { w.t = t; w.commands() })
	t.Run("permissions", func(t *testing.T) { w.t = t; w.permissions() })
	t.Run("messages and interactions", func(t *testing.T) { w.t = t; w.interactions() })
	t.Run("identity and gateway", func(t *testing.T) { w.t = t; w.identity() })
	t.Run("private channels", func(t *testing.T) { w.t = t; w.privateChannels() })
	t.Run("guilds", func(t *testing.T) { w.t = t; w.guilds() })
	t.Run("OAuth2", func(t *testing.T) { w.t = t; w.oauth() })
	t.Run("admin", func(t *testing.T) { w.t = t; w.admin() })

	// Routes whose only error is a 429, in an environment with tiny
	// route limits.
	t.Run("rate limits", func(t *testing.T) {
		limited := testenv.New(t, testenv.WithRateLimit(func(c *api.Config) {
			c.ReadLimit.Count, c.ReadLimit.Window = 1, time.Hour
			c.WriteLimit.Count, c.WriteLimit.Window = 1, time.Hour
		}))
		cov.record(limited)
		for _, path := range []string{"/api/v10/gateway", "/api/v10/oauth2/keys", "/.well-known/openid-configuration",
			"/api/v10/gateway/bot"} {
			mustDo(t, limited, "GET", path, limited.Bot(), nil, http.StatusOK)
			r := mustDo(t, limited, "GET", path, limited.Bot(), nil, http.StatusTooManyRequests)
			if r.Header.Get("Retry-After") == "" {
				t.Errorf("%s: 429 without Retry-After", path)
			}
		}
	})
	cov.verify(e.API.Routes())
}

// ---- the walk ----

// richCommand has an option of every kind with choices, bounds,
// localizations and nesting.
func richCommand(name string) jsonObj {
	return jsonObj{"name": name, "description": "Everything", "name_localizations": jsonObj{"fr": name + "-fr"},
		"default_member_permissions": "8", "nsfw": false,
		"options": []jsonObj{
			{"type": 2, "name": "group", "description": "A group", "options": []jsonObj{
				{"type": 1, "name": "sub", "description": "A subcommand", "options": []jsonObj{
					{"type": 3, "name": "s", "description": "A string", "required": true, "min_length": 1, "max_length": 10,
						"choices": []jsonObj{{"name": "One", "value": "one", "name_localizations": jsonObj{"fr": "Un"}}}},
					{"type": 4, "name": "i", "description": "An integer", "min_value": 1, "max_value": 9},
					{"type": 10, "name": "n", "description": "A number", "choices": []jsonObj{{"name": "Pi", "value": 3.14}}},
					{"type": 7, "name": "c", "description": "A channel", "channel_types": []int{0}},
					{"type": 3, "name": "q", "description": "Autocompleted", "autocomplete": true},
					{"type": 5, "name": "b", "description": "A boolean"},
					{"type": 6, "name": "u", "description": "A user"},
					{"type": 8, "name": "r", "description": "A role"},
					{"type": 9, "name": "m", "description": "A mentionable"},
					{"type": 11, "name": "a", "description": "An attachment"},
				}},
			}},
		}}
}

func (w *shapeWalk) commands() {
	bot := w.e.Bot()
	for _, base := range []string{"/applications/" + w.app, "/applications/" + w.app + "/guilds/" + w.guild} {
		list := base + "/commands"
		c := w.do("POST", list, bot, richCommand("rich"), 201)
		id := str(c, "id")
		w.do("POST", list, bot, richCommand("rich"), 200)
		w.do("POST", list, bot, userCmd("Inspect"), 201)
		w.do("POST", list, bot, jsonObj{"name": ""}, 400)
		w.do("GET", list, bot, nil, 200)
		w.do("GET", list+"?with_localizations=true", bot, nil, 200)
		w.do("GET", list, "", nil, 401)
		w.do("GET", list+"/"+id, bot, nil, 200)
		w.do("GET", list+"/1", bot, nil, 404)
		singular := strings.TrimSuffix(list, "commands") + "command/"
		w.do("GET", singular+id, bot, nil, 200)
		w.do("GET", singular+"1", bot, nil, 404)
		w.do("PATCH", list+"/"+id, bot, jsonObj{"description": "Changed"}, 200)
		w.do("PATCH", list+"/"+id, bot, jsonObj{"description": 5}, 400)
		// The overwrite keeps the world's "go" command as it is.
		goCmd := jsonObj{"name": "go", "description": "Go", "options": []jsonObj{
			{"type": 3, "name": "q", "description": "Query", "autocomplete": true}}}
		w.do("PUT", list, bot, []jsonObj{richCommand("rich"), msgCmd("Quote"), chat("plain"), goCmd}, 200)
		w.do("PUT", list, bot, []jsonObj{{"name": "x y"}}, 400)
		plain := w.do("POST", list, bot, chat("doomed"), 201)
		w.do("DELETE", list+"/"+str(plain, "id"), bot, nil, 204)
		w.do("DELETE", list+"/"+str(plain, "id"), bot, nil, 404)
	}
}

func (w *shapeWalk) permissions() {
	editor := w.editor(w.owner)
	cmdID := str(w.cmd, "id")
	perms := w.guildCmds() + "/" + cmdID + "/permissions"
	w.do("GET", perms, w.e.Bot(), nil, 404) // none yet: 10066
	w.do("PUT", perms, editor, jsonObj{"permissions": []jsonObj{{"id": w.alice, "type": 2, "permission": true}}}, 200)
	w.do("PUT", perms, w.e.Bot(), jsonObj{"permissions": []jsonObj{}}, 403)
	w.do("GET", perms, w.e.Bot(), nil, 200)
	w.do("GET", w.guildCmds()+"/permissions", w.e.Bot(), nil, 200)
	w.do("GET", w.guildCmds()+"/permissions", "", nil, 401)
	w.do("PUT", w.guildCmds()+"/permissions", editor, []jsonObj{}, 405)
	// The picker.
	w.do("GET", "/channels/"+w.channel+"/application-command-index", w.aliceTok, nil, 200)
	w.do("GET", "/channels/1/application-command-index", w.aliceTok, nil, 404)
}

func (w *shapeWalk) guildCmds() string {
	return "/applications/" + w.app + "/guilds/" + w.guild + "/commands"
}

// panel is a message with an embed, buttons and a string select.
var panel = jsonObj{"content": "panel", "embeds": []jsonObj{{"title": "Status", "description": "All good",
	"fields": []jsonObj{{"name": "Load", "value": "low"}}, "footer": jsonObj{"text": "slashd"}}},
	"components": []jsonObj{
		{"type": 1, "components": []jsonObj{
			{"type": 2, "style": 1, "label": "Go", "custom_id": "go"},
			{"type": 2, "style": 5, "label": "Docs", "url": "https://example.com/docs"}}},
		{"type": 1, "components": []jsonObj{
			{"type": 3, "custom_id": "pick", "options": []jsonObj{{"label": "A", "value": "a"}, {"label": "B", "value": "b"}}}}},
	}}

// callback answers a pending interaction through the next prefix.
func (w *shapeWalk) callback(p *pending, query string, body any, status int) jsonObj {
	w.t.Helper()
	return w.do("POST", "/interactions/"+p.id+"/"+p.token+"/callback"+query, "", body, status)
}

func (w *shapeWalk) interactions() {
	t := w.t
	// A user's message, and its errors.
	posted := w.do("POST", "/channels/"+w.channel+"/messages", w.bobTok, jsonObj{"content": "hello"}, 200)
	w.do("POST", "/channels/"+w.channel+"/messages", w.bobTok, jsonObj{}, 400)
	w.do("POST", "/channels/"+w.channel+"/messages", w.e.Bot(), jsonObj{"content": "from the bot"}, 200)
	w.do("GET", "/channels/"+w.channel+"/messages", w.aliceTok, nil, 200)
	w.do("GET", "/channels/"+w.channel+"/messages", "", nil, 401)
	// One message: read, edited and deleted by the bot.
	own := w.do("POST", "/channels/"+w.channel+"/messages", w.e.Bot(), jsonObj{"content": "to edit"}, 200)
	one := "/channels/" + w.channel + "/messages/" + str(own, "id")
	w.do("GET", one, w.e.Bot(), nil, 200)
	w.do("GET", "/channels/"+w.channel+"/messages/1", w.e.Bot(), nil, 404)
	w.do("PATCH", one, w.e.Bot(), jsonObj{"content": "edited", "flags": 4}, 200)
	w.do("PATCH", "/channels/"+w.channel+"/messages/"+str(posted, "id"), w.e.Bot(), jsonObj{"content": "x"}, 403)
	w.do("DELETE", "/channels/"+w.channel+"/messages/"+str(posted, "id"), w.e.Bot(), nil, 403)
	w.do("DELETE", one, w.e.Bot(), nil, 204)

	// A command answered with the panel, with_response.
	p := w.start(t, w.invocation(2))
	answer := w.callback(p, "?with_response=true", jsonObj{"type": 4, "data": panel}, 200)
	wantStatus(t, p.wait(t), 200)
	w.callback(p, "", jsonObj{"type": 4, "data": jsonObj{"content": "again"}}, 400)
	msg, _ := answer["resource"].(jsonObj)["message"].(jsonObj)
	msgID := str(msg, "id")

	// Follow-ups and the original.
	hook := "/webhooks/" + w.app + "/" + p.token
	f := w.do("POST", hook, "", jsonObj{"content": "follow-up", "embeds": []jsonObj{{"description": "more"}}}, 200)
	w.do("POST", hook, "", jsonObj{}, 400)
	// A file, which becomes an attachment, served where its link says
	// (and a link whose signature does not check, 404 as the CDN's).
	withFile := decodeObj(t, sendMultipart(t, w.e, "POST", w.api(hook), `{"content":"a file"}`))
	link := str(withFile["attachments"].([]any)[0].(jsonObj), "url")
	fetchFile(t, w.e, link, 200)
	fetchFile(t, w.e, strings.Replace(link, "hm=", "hm=00", 1), 404)
	// Layout components (IS_COMPONENTS_V2) and a poll.
	w.do("POST", hook, "", jsonObj{"flags": 1 << 15, "components": []jsonObj{
		{"type": 17, "components": []jsonObj{
			{"type": 10, "content": "# Report"},
			{"type": 14},
			{"type": 9, "components": []jsonObj{{"type": 10, "content": "Details"}},
				"accessory": jsonObj{"type": 2, "style": 2, "label": "Open", "custom_id": "open", "id": 2}},
		}},
		{"type": 1, "components": []jsonObj{{"type": 5, "custom_id": "who"}}},
	}}, 200)
	w.do("POST", hook, "", jsonObj{"poll": jsonObj{"question": jsonObj{"text": "Lunch?"}, "duration": 2,
		"answers": []jsonObj{{"poll_media": jsonObj{"text": "Pizza"}}, {"poll_media": jsonObj{"text": "Soup"}}}}}, 200)
	w.do("GET", hook+"/messages/@original", "", nil, 200)
	w.do("GET", hook+"/messages/"+str(f, "id"), "", nil, 200)
	w.do("GET", hook+"/messages/1", "", nil, 404)
	w.do("PATCH", hook+"/messages/@original", "", jsonObj{"content": "edited"}, 200)
	w.do("PATCH", hook+"/messages/@original", "", jsonObj{"content": 5}, 400)
	w.do("DELETE", hook+"/messages/"+str(f, "id"), "", nil, 204)
	w.do("DELETE", hook+"/messages/"+str(f, "id"), "", nil, 404)

	// The button: a component interaction, answered with UPDATE_MESSAGE.
	click := w.start(t, jsonObj{"type": 3, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
		"message_id": msgID, "data": jsonObj{"custom_id": "go", "component_type": 2}})
	w.callback(click, "?with_response=true", jsonObj{"type": 7, "data": jsonObj{"content": "went"}}, 200)
	wantStatus(t, click.wait(t), 200)
	w.do("POST", "/webhooks/"+w.app+"/"+click.token, "", jsonObj{"content": "after the click"}, 200)

	// Deferred, then edited; autocomplete; a modal; a plain 204.
	deferred := w.start(t, w.invocation(2))
	w.callback(deferred, "?with_response=true", jsonObj{"type": 5, "data": jsonObj{"flags": 64}}, 200)
	wantStatus(t, deferred.wait(t), 200)
	w.do("PATCH", "/webhooks/"+w.app+"/"+deferred.token+"/messages/@original", "", jsonObj{"content": "done"}, 200)
	auto := w.start(t, w.invocation(4))
	w.callback(auto, "?with_response=true", jsonObj{"type": 8, "data": jsonObj{"choices": []jsonObj{
		{"name": "Apple", "value": "apple"}}}}, 200)
	wantStatus(t, auto.wait(t), 200)
	modal := w.start(t, w.invocation(2))
	w.callback(modal, "?with_response=true", jsonObj{"type": 9, "data": jsonObj{"custom_id": "form", "title": "A form",
		"components": []jsonObj{{"type": 1, "components": []jsonObj{
			{"type": 4, "custom_id": "name", "label": "Name", "style": 1}}}}}}, 200)
	wantStatus(t, modal.wait(t), 200)
	submit := w.start(t, jsonObj{"type": 5, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
		"data": jsonObj{"id": modal.id, "custom_id": "form", "components": []jsonObj{{"type": 1, "components": []jsonObj{
			{"type": 4, "custom_id": "name", "value": "Ada"}}}}}})
	w.callback(submit, "?with_response=true", jsonObj{"type": 4, "data": jsonObj{"content": "thanks"}}, 200)
	wantStatus(t, submit.wait(t), 200)
	w.do("POST", "/webhooks/"+w.app+"/"+submit.token, "", jsonObj{"content": "after the form"}, 200)
	plain := w.start(t, w.invocation(2))
	w.callback(plain, "", jsonObj{"type": 4, "data": jsonObj{"content": "hi"}}, 204)
	wantStatus(t, plain.wait(t), 200)

	// A MESSAGE command on bob's message and a USER command on bob: their
	// answers carry target_message_id and target_user.
	for _, target := range []struct {
		cmd    jsonObj
		target string
	}{{msgCmd("Quote"), str(posted, "id")}, {userCmd("Inspect"), w.bob}} {
		c := decodeObj(t, mustDo(t, w.e, "POST", "/api/v10"+w.guildCmds(), w.e.Bot(), target.cmd, -1))
		p := w.start(t, jsonObj{"type": 2, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
			"data": jsonObj{"id": c["id"], "name": c["name"], "type": c["type"], "version": c["version"],
				"target_id": target.target}})
		w.callback(p, "?with_response=true", jsonObj{"type": 4, "data": jsonObj{"content": "seen"}}, 200)
		wantStatus(t, p.wait(t), 200)
	}

	// An Activity launched (the app gets the EMBEDDED flag, 1 << 17).
	if err := w.e.API.Store().SetApplicationFlags(context.Background(), mustID(t, w.app), 1<<17); err != nil {
		t.Fatal(err)
	}
	launch := w.start(t, w.invocation(2))
	w.callback(launch, "?with_response=true", jsonObj{"type": 12}, 200)
	wantStatus(t, launch.wait(t), 200)

	// Every message of the channel, as a member lists them.
	w.do("GET", "/channels/"+w.channel+"/messages", w.aliceTok, nil, 200)

	// The invocation's own errors, and an unknown interaction's callback.
	w.do("POST", "/interactions", w.aliceTok, jsonObj{"type": 2}, 400)
	w.do("POST", "/interactions", "", w.invocation(2), 401)
	w.do("POST", "/interactions/1/nope/callback", "", jsonObj{"type": 4, "data": jsonObj{"content": "x"}}, 404)
	w.do("POST", "/webhooks/"+w.app+"/nope", "", jsonObj{"content": "x"}, 404)
}

func (w *shapeWalk) identity() {
	bot := w.e.Bot()
	w.do("GET", "/users/@me", bot, nil, 200)
	w.do("GET", "/users/@me", w.bearer(w.alice, w.app, "identify email"), nil, 200)
	w.do("GET", "/users/@me", "", nil, 401)
	w.do("GET", "/users/"+w.alice, bot, nil, 200)
	w.do("GET", "/users/1234567890123456789", bot, nil, 404)
	w.do("GET", "/applications/@me", bot, nil, 200)
	w.do("GET", "/applications/@me", w.e.Owner(), nil, 401)
	w.do("GET", "/oauth2/applications/@me", bot, nil, 200)
	w.do("GET", "/oauth2/applications/@me", "", nil, 401)
	w.do("GET", "/gateway", "", nil, 200)
	w.do("GET", "/gateway/bot", bot, nil, 200)
	w.do("GET", "/gateway/bot", w.e.Owner(), nil, 401)
	mustDo(w.t, w.e, "GET", "/healthz", "", nil, 200)
	mustDo(w.t, w.e, "GET", "/metrics", "", nil, 200)

	// The websocket: an upgrade, and a plain GET it refuses.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, path := range []string{"/gateway", "/gateway/"} {
		ws, _, err := websocket.Dial(ctx, strings.Replace(w.e.URL, "http", "ws", 1)+path+"?v=10&encoding=json",
			&websocket.DialOptions{HTTPClient: w.e.Server.Client()})
		if err != nil {
			w.t.Fatalf("dial %s: %v", path, err)
		}
		ws.CloseNow()
		if r := mustDo(w.t, w.e, "GET", path, "", nil, -1); r.Status < 400 {
			w.t.Errorf("GET %s without an upgrade: %s", path, describe(r))
		}
	}

	// Unknown routes and methods.
	w.do("GET", "/nothing/here", bot, nil, 404)
	w.do("DELETE", "/users/@me", bot, nil, 405)
}

func (w *shapeWalk) oauth() {
	t, e := w.t, w.e
	appID := mustID(t, w.app)
	const cb = "https://app.example/callback"
	e.SetOAuth(appID, false, cb)
	ctx := context.Background()
	alice, err := e.Store.User(ctx, mustID(t, w.alice))
	if err != nil {
		t.Fatal(err)
	}
	code, err := e.OAuth.IssueCode(ctx, store.Grant{ApplicationID: appID, UserID: alice.ID,
		Scopes: []string{"identify", "openid"}}, cb, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	form := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	token := func(f url.Values, user, pass string, status int) jsonObj {
		t.Helper()
		r := postForm(t, e, w.api("/oauth2/token"), f, user, pass)
		wantStatus(t, r, status)
		return decodeObj(t, r)
	}
	granted := token(form("grant_type", "authorization_code", "code", code, "redirect_uri", cb), w.app, w.e.App.ClientSecret, 200)
	refreshed := token(form("grant_type", "refresh_token", "refresh_token", str(granted, "refresh_token")), w.app,
		w.e.App.ClientSecret, 200)
	token(form("grant_type", "client_credentials", "scope", "identify"), w.app, w.e.App.ClientSecret, 200)
	token(form("grant_type", "client_credentials", "scope", "identify"), w.app, "wrong", 401)
	token(form("grant_type", "password"), w.app, w.e.App.ClientSecret, 400)
	bearer := "Bearer " + str(refreshed, "access_token")
	w.do("GET", "/oauth2/@me", bearer, nil, 200)
	w.do("GET", "/oauth2/@me", w.e.Owner(), nil, 200) // never expires: expires null
	w.do("GET", "/oauth2/@me", "", nil, 401)
	w.do("GET", "/oauth2/userinfo", bearer, nil, 200)
	w.do("GET", "/oauth2/userinfo", "", nil, 401)
	// POST, the token in a form body (RFC 6750 §2.2) or in the header.
	wantStatus(t, postForm(t, e, w.api("/oauth2/userinfo"), form("access_token", str(refreshed, "access_token")), "", ""), 200)
	wantStatus(t, postForm(t, e, w.api("/oauth2/userinfo"), form(), "", ""), 401)
	w.do("POST", "/oauth2/userinfo", bearer, nil, 200)
	w.do("GET", "/oauth2/keys", "", nil, 200)
	mustDo(t, e, "GET", "/.well-known/openid-configuration", "", nil, 200)
	revoke := func(f url.Values, status int) {
		t.Helper()
		wantStatus(t, postForm(t, e, w.api("/oauth2/token/revoke"), f, w.app, w.e.App.ClientSecret), status)
	}
	revoke(form("token", str(refreshed, "access_token")), 200)
	revoke(form(), 400)

	// The consent flow in a browser, under a prefix and without one.
	adminDo(t, e, "PUT", "/users/"+w.alice+"/login", jsonObj{"name": "alice", "password": "correct horse battery"}, 201)
	for _, base := range []string{w.api("/oauth2/authorize"), "/oauth2/authorize"} {
		w.consent(base, cb)
	}
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// consent logs alice in and approves, as a browser does, with the error
// pages on the way.
func (w *shapeWalk) consent(base, cb string) {
	t := w.t
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Transport: w.e.Server.Client().Transport, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(method, path string, f url.Values, status int) map[string]string {
		t.Helper()
		var body io.Reader
		if f != nil {
			body = strings.NewReader(f.Encode())
		}
		req, err := http.NewRequest(method, w.e.URL+path, body)
		if err != nil {
			t.Fatal(err)
		}
		if f != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		page, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != status {
			t.Fatalf("%s %s: %d, want %d: %.300s", method, path, resp.StatusCode, status, page)
		}
		fields := map[string]string{}
		for _, m := range hiddenInput.FindAllStringSubmatch(string(page), -1) {
			fields[m[1]] = html.UnescapeString(m[2])
		}
		return fields
	}
	query := url.Values{"client_id": {w.app}, "response_type": {"code"}, "scope": {"identify"},
		"redirect_uri": {cb}}.Encode()
	send("GET", base+"?client_id=1&response_type=code", nil, 400)
	login := send("GET", base+"?"+query, nil, 200)
	send("POST", base+"/login", url.Values{"csrf": {"forged"}, "continue": {login["continue"]}}, 403)
	send("POST", base+"/login", url.Values{"csrf": {login["csrf"]}, "continue": {login["continue"]},
		"name": {"alice"}, "password": {"correct horse battery"}}, 303)
	consent := send("GET", base+"?"+query, nil, 200)
	decision := url.Values{"action": {"approve"}}
	for k, v := range consent {
		decision.Set(k, v)
	}
	forged := url.Values{}
	for k, v := range decision {
		forged[k] = v
	}
	forged.Set("csrf", "forged")
	send("POST", base, forged, 403)
	send("POST", base, decision, 302)
	if len(consent) == 0 {
		t.Fatal("the consent page has no form fields")
	}
}

func (w *shapeWalk) admin() {
	for _, p := range w.e.API.Routes() {
		method, path, ok := strings.Cut(p, " ")
		if !ok || !strings.HasPrefix(path, "/admin/v1/") {
			continue
		}
		path = strings.NewReplacer("{user_id}", "1", "{guild_id}", "1", "{application_id}", "1", "{role_id}", "1",
			"{channel_id}", "1", "{command_id}", "1").Replace(path)
		mustDo(w.t, w.e, method, path, "", nil, http.StatusUnauthorized)
	}
}
