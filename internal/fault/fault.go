// Package fault is what test worlds' faults are (docs/faults.md): the
// kinds, their parameters and the rules a new one is checked by (pure),
// and the Engine each node consults at its edges (the API's HTTP
// middleware, the gateway's send path, the interaction delivery), which
// keeps the live faults in memory and fires them through the store, so
// that a counted fault fires exactly its count across a cluster.
package fault

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/store"
)

// Kinds, grouped by the edge that applies them.
const (
	// REST, for requests made with the app's bot or Bearer token.
	REST429   = "rest.429"   // a 429 (scope: route, global or shared) with retry_after
	REST500   = "rest.500"   // 500 Internal Server Error, the real body
	REST502   = "rest.502"   // 502 Bad Gateway, as the edge in front of the real API answers it
	RESTDelay = "rest.delay" // the request waits delay_ms before it is handled

	// Deliveries of interactions to the app (endpoint or gateway).
	DeliveryLate     = "delivery.late"     // delivered delay_ms after the answer deadline
	DeliveryDrop     = "delivery.drop"     // never delivered
	DeliveryAnswered = "delivery.answered" // slashd answers with response; the app's answer is refused

	// Gateway sessions of the app.
	GatewayReconnect      = "gateway.reconnect"       // op 7 RECONNECT
	GatewayInvalidSession = "gateway.invalid_session" // op 9 INVALID_SESSION, d = resumable
	GatewayClose          = "gateway.close"           // the connection closed with code
	GatewayWithholdAck    = "gateway.withhold_ack"    // a heartbeat's ACK (op 11) not sent
	GatewayDelayDispatch  = "gateway.delay_dispatch"  // a dispatch of type event sent delay_ms late
)

// Kinds lists every kind, in the order docs/faults.md gives them.
var Kinds = []string{REST429, REST500, REST502, RESTDelay, DeliveryLate, DeliveryDrop, DeliveryAnswered,
	GatewayReconnect, GatewayInvalidSession, GatewayClose, GatewayWithholdAck, GatewayDelayDispatch}

// The kinds each edge asks about (read only).
var (
	RESTKinds     = []string{REST429, REST500, REST502, RESTDelay}
	DeliveryKinds = []string{DeliveryLate, DeliveryDrop, DeliveryAnswered}
	// SessionKinds act on a session when it is attached or the faults
	// change; HeartbeatKinds when a heartbeat comes in.
	SessionKinds   = []string{GatewayReconnect, GatewayInvalidSession, GatewayClose}
	HeartbeatKinds = []string{GatewayWithholdAck, GatewayReconnect, GatewayInvalidSession, GatewayClose}
	DispatchKinds  = []string{GatewayDelayDispatch}
)

// Edge is the part of slashd that applies a kind.
func Edge(kind string) string {
	edge, _, _ := strings.Cut(kind, ".")
	return edge
}

// Scopes of a rest.429, as X-RateLimit-Scope names them.
const (
	ScopeRoute  = "route" // a route bucket's limit (X-RateLimit-Scope: user)
	ScopeGlobal = "global"
	ScopeShared = "shared"
)

// Params are a fault's parameters; each kind reads its own.
type Params struct {
	RetryAfter float64         `json:"retry_after,omitempty"` // rest.429, seconds
	Scope      string          `json:"scope,omitempty"`       // rest.429
	DelayMS    int64           `json:"delay_ms,omitempty"`    // rest.delay, delivery.late, gateway.delay_dispatch
	Code       int             `json:"code,omitempty"`        // gateway.close
	Resumable  bool            `json:"resumable,omitempty"`   // gateway.invalid_session
	Event      string          `json:"event,omitempty"`       // gateway.delay_dispatch
	Response   json.RawMessage `json:"response,omitempty"`    // delivery.answered
}

// Field error codes of a fault's body.
const (
	CodeUnknownKind  = "FAULT_KIND_INVALID"
	CodeBadCode      = "FAULT_CLOSE_CODE_INVALID"
	CodeBadRoute     = "FAULT_ROUTE_INVALID"
	CodeNotForKind   = "FAULT_FIELD_INVALID"
	CodeBadEvent     = "FAULT_EVENT_INVALID"
	CodeCountOrProb  = "FAULT_COUNT_INVALID"
	CodeBadResponse  = "FAULT_RESPONSE_INVALID"
	CodeTooMany      = "FAULT_LIMIT_REACHED"
	maxCount         = 1_000_000
	maxDelayMS       = 10 * 60 * 1000
	maxRetryAfterSec = 3600
)

// DefaultMaxPerWorld is how many faults a world may have, spent ones
// included, unless the server is configured otherwise: far more than a
// test needs at once, few enough that a runaway script cannot make every
// request of the world scan an endless list (each node keeps the live
// ones in memory and matches them on every request of the world).
const DefaultMaxPerWorld = 100

// Spec is a fault as asked for, before its app is resolved and its id
// and world are given.
type Spec struct {
	Kind    string
	App     string // the app's handle or id ("": every app of the world)
	Route   string // METHOD /path, normalized (see NormalizeRoute)
	Session string
	Params  Params
	Count   int64
	Prob    float64
	Seed    int64
}

// eventName is a dispatch type as the gateway names them.
var eventName = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)

// Parse reads a fault's JSON body, recording every problem under f's
// error tree (f.Err renders them as 50035).
func Parse(f admin.Form) Spec {
	var s Spec
	if f.Require("kind") {
		if k, ok := f.Str("kind"); ok {
			if slices.Contains(Kinds, k) {
				s.Kind = k
			} else {
				f.At("kind").Add(CodeUnknownKind, "Unknown fault kind: must be one of "+strings.Join(Kinds, ", ")+".")
			}
		}
	}
	s.App, _ = f.StrLen("app", 1, 100)
	if r, ok := f.StrLen("route", 1, 300); ok {
		if n, err := NormalizeRoute(r); err != nil {
			f.At("route").Add(CodeBadRoute, err.Error())
		} else {
			s.Route = n
		}
	}
	s.Session, _ = f.StrLen("session", 1, 100)
	edge := Edge(s.Kind)
	only := func(key, edgeWanted string) {
		if f.Present(key) && s.Kind != "" && edge != edgeWanted {
			f.At(key).Add(CodeNotForKind, fmt.Sprintf("Only %s faults take %s.", edgeWanted, key))
		}
	}
	only("route", "rest")
	only("session", "gateway")

	// How often: a count, or a probability with a seed (and an optional count).
	prob, hasProb := f.Value("probability")
	if hasProb {
		p, ok := form.ToFloat(prob)
		switch {
		case !ok:
			f.At("probability").Add(form.CodeCoerce, form.MsgNotNumber(prob))
		case !(p > 0 && p <= 1):
			f.At("probability").Add(CodeCountOrProb, "Must be more than 0 and at most 1.")
		default:
			s.Prob = p
		}
		if v, ok := f.Integer("seed", math.MinInt64, math.MaxInt64); ok {
			s.Seed = v
		}
	} else if f.Present("seed") {
		f.At("seed").Add(CodeNotForKind, "A seed goes with a probability.")
	}
	if f.Present("count") {
		if v, ok := f.Integer("count", 1, maxCount); ok {
			s.Count = v
		}
	} else if !hasProb {
		s.Count = 1
	}

	p := &s.Params
	switch s.Kind {
	case REST429:
		p.RetryAfter = 1
		if v, ok := f.Value("retry_after"); ok {
			ra, isNum := form.ToFloat(v)
			if !isNum || ra < 0 || ra > maxRetryAfterSec {
				f.At("retry_after").Add(form.CodeCoerce, fmt.Sprintf("Must be a number of seconds from 0 to %d.", maxRetryAfterSec))
			} else {
				p.RetryAfter = ra
			}
		}
		p.Scope = ScopeRoute
		if v, ok := f.Str("scope"); ok {
			if !slices.Contains([]string{ScopeRoute, ScopeGlobal, ScopeShared}, v) {
				f.At("scope").Add(CodeNotForKind, "Must be one of route, global, shared.")
			} else {
				p.Scope = v
			}
		}
	case RESTDelay, DeliveryLate, GatewayDelayDispatch:
		p.DelayMS = 1000
		if v, ok := f.Integer("delay_ms", 1, maxDelayMS); ok {
			p.DelayMS = v
		}
		if s.Kind == GatewayDelayDispatch && f.Require("event") {
			if v, ok := f.Str("event"); ok {
				if eventName.MatchString(v) {
					p.Event = v
				} else {
					f.At("event").Add(CodeBadEvent, "Must be a dispatch type such as INTERACTION_CREATE.")
				}
			}
		}
	case GatewayClose:
		if f.Require("code") {
			if v, ok := f.Integer("code", 0, math.MaxInt32); ok {
				if !CloseCodeValid(int(v)) {
					f.At("code").Add(CodeBadCode, "Must be a close code a server may send: 1000–1003, 1007–1014, or 3000–4999.")
				} else {
					p.Code = int(v)
				}
			}
		}
	case GatewayInvalidSession:
		p.Resumable, _ = f.Bool("resumable")
	case DeliveryAnswered:
		p.Response = json.RawMessage(`{"type":4,"data":{"content":"Answered by slashd (a delivery.answered fault)."}}`)
		if v, ok := f.Dict("response"); ok {
			b, err := json.Marshal(v)
			t, _ := form.ToInt(v["type"])
			if err != nil || !(t == 4 || t == 5) {
				f.At("response").Add(CodeBadResponse, "Must be an interaction response of type 4 or 5.")
			} else {
				p.Response = b
			}
		}
	}
	return s
}

// CloseCodeValid reports whether a server may close a websocket with
// code (RFC 6455 7.4: not 1004–1006 nor 1015, which are never sent).
func CloseCodeValid(code int) bool {
	switch {
	case code >= 1000 && code <= 1003, code >= 1007 && code <= 1014, code >= 3000 && code <= 4999:
		return true
	}
	return false
}

// NormalizeRoute reads "METHOD /path" with or without the API's prefix
// (/api/v10, /api/v9, /api) and gives it as the API's routes are named:
// "METHOD /path" without the prefix, each {placeholder} written {}.
func NormalizeRoute(route string) (string, error) {
	method, path, ok := strings.Cut(strings.TrimSpace(route), " ")
	path = strings.TrimSpace(path)
	if !ok || !slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}, method) || !strings.HasPrefix(path, "/") {
		return "", fmt.Errorf("must be a method and a route pattern, as in POST /api/v10/interactions/{interaction_id}/{interaction_token}/callback")
	}
	if path = stripAPIPrefix(path); path == "" {
		path = "/"
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = "{}"
		}
	}
	return method + " " + strings.Join(segs, "/"), nil
}

func stripAPIPrefix(path string) string {
	rest, ok := strings.CutPrefix(path, "/api")
	if !ok || (rest != "" && rest[0] != '/') {
		return path
	}
	if v, ok := strings.CutPrefix(rest, "/v"); ok {
		end := strings.IndexByte(v, '/')
		if end < 0 {
			end = len(v)
		}
		if _, err := strconv.ParseUint(v[:end], 10, 16); err == nil {
			return v[end:]
		}
	}
	return rest
}

// DecodeParams reads a stored fault's parameters.
func DecodeParams(f store.Fault) Params {
	var p Params
	_ = json.Unmarshal(f.Params, &p) // written by Parse: valid
	return p
}

// Fires is the seeded sequence of a probable fault: whether its match
// number n (from 1) fires. It is a pure function of (seed, n), so a run
// with the same seed fires on the same matches, whichever node serves them.
func Fires(seed int64, probability float64, n int64) bool {
	return unitFloat(splitmix64(uint64(seed)^(uint64(n)*0x9e3779b97f4a7c15))) < probability
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unitFloat maps x onto [0, 1) with 53 bits.
func unitFloat(x uint64) float64 { return float64(x>>11) / (1 << 53) }

// View is a fault as the admin API shows it.
type View struct {
	ID          string          `json:"id"`
	WorldID     string          `json:"world_id"`
	Kind        string          `json:"kind"`
	AppID       string          `json:"app_id,omitempty"`
	Route       string          `json:"route,omitempty"`
	Session     string          `json:"session,omitempty"`
	Count       int64           `json:"count,omitempty"`
	Remaining   *int64          `json:"remaining,omitempty"`
	Probability float64         `json:"probability,omitempty"`
	Seed        *int64          `json:"seed,omitempty"`
	Matched     int64           `json:"matched"`
	Fired       int64           `json:"fired"`
	CreatedAt   string          `json:"created_at"`
	Params      json.RawMessage `json:"params"`
}

// Render is f as the admin API shows it.
func Render(f store.Fault) View {
	v := View{ID: f.ID.String(), WorldID: f.WorldID.String(), Kind: f.Kind, Route: f.Route, Session: f.Session,
		Count: f.Count, Probability: f.Probability, Matched: f.Matched, Fired: f.Fired,
		CreatedAt: f.CreatedAt.UTC().Format("2006-01-02T15:04:05.000000+00:00"), Params: f.Params}
	if f.AppID != 0 {
		v.AppID = f.AppID.String()
	}
	if f.Count > 0 {
		r := f.Remaining
		v.Remaining = &r
	}
	if f.Probability > 0 {
		s := f.Seed
		v.Seed = &s
	}
	return v
}
