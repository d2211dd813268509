package fault

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

// parse runs Parse on a JSON body and returns the spec and the field
// errors as "path: CODE" strings.
func parse(t *testing.T, body string) (Spec, []string) {
	t.Helper()
	v, err := form.DecodeJSON([]byte(body))
	if err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	f := admin.NewForm(v.(map[string]any))
	s := Parse(f)
	var out []string
	var ae *apierr.Error
	if err := f.Err(); errors.As(err, &ae) {
		b, _ := json.Marshal(ae)
		var env struct {
			Errors map[string]any `json:"errors"`
		}
		_ = json.Unmarshal(b, &env)
		out = leaves("", env.Errors)
	}
	return s, out
}

func leaves(prefix string, m map[string]any) []string {
	var out []string
	for k, v := range m {
		if k == "_errors" {
			for _, e := range v.([]any) {
				out = append(out, prefix+": "+e.(map[string]any)["code"].(string))
			}
			continue
		}
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		out = append(out, leaves(p, v.(map[string]any))...)
	}
	return out
}

func TestParse(t *testing.T) {
	cases := []struct {
		name, body string
		want       Spec
		errs       []string
	}{
		{"429 with defaults", `{"kind": "rest.429"}`,
			Spec{Kind: REST429, Count: 1, Params: Params{RetryAfter: 1, Scope: ScopeRoute}}, nil},
		{"the issue's 429", `{"kind": "rest.429", "app": "modbot", "route": "POST /api/v10/interactions/{interaction_id}/{interaction_token}/callback", "retry_after": 1.5, "count": 1}`,
			Spec{Kind: REST429, App: "modbot", Route: "POST /interactions/{}/{}/callback", Count: 1,
				Params: Params{RetryAfter: 1.5, Scope: ScopeRoute}}, nil},
		{"global 429", `{"kind": "rest.429", "scope": "global", "retry_after": 0}`,
			Spec{Kind: REST429, Count: 1, Params: Params{Scope: ScopeGlobal}}, nil},
		{"reconnect", `{"kind": "gateway.reconnect", "app": "modbot", "count": 1}`,
			Spec{Kind: GatewayReconnect, App: "modbot", Count: 1}, nil},
		{"late with a probability", `{"kind": "delivery.late", "app": "modbot", "probability": 0.5, "seed": 42}`,
			Spec{Kind: DeliveryLate, App: "modbot", Prob: 0.5, Seed: 42, Params: Params{DelayMS: 1000}}, nil},
		{"probability with a count", `{"kind": "delivery.drop", "probability": 1, "count": 3}`,
			Spec{Kind: DeliveryDrop, Prob: 1, Count: 3}, nil},
		{"close", `{"kind": "gateway.close", "code": 4000, "session": "abc"}`,
			Spec{Kind: GatewayClose, Session: "abc", Count: 1, Params: Params{Code: 4000}}, nil},
		{"invalid session", `{"kind": "gateway.invalid_session", "resumable": true, "count": 2}`,
			Spec{Kind: GatewayInvalidSession, Count: 2, Params: Params{Resumable: true}}, nil},
		{"delayed dispatch", `{"kind": "gateway.delay_dispatch", "event": "INTERACTION_CREATE", "delay_ms": 250}`,
			Spec{Kind: GatewayDelayDispatch, Count: 1, Params: Params{Event: "INTERACTION_CREATE", DelayMS: 250}}, nil},

		{"no kind", `{}`, Spec{Count: 1}, []string{"kind: BASE_TYPE_REQUIRED"}},
		{"unknown kind", `{"kind": "rest.418"}`, Spec{Count: 1}, []string{"kind: " + CodeUnknownKind}},
		{"count below 1", `{"kind": "rest.500", "count": 0}`, Spec{Kind: REST500}, []string{"count: NUMBER_TYPE_MIN"}},
		{"probability above 1", `{"kind": "rest.500", "probability": 1.5}`, Spec{Kind: REST500}, []string{"probability: " + CodeCountOrProb}},
		{"probability 0", `{"kind": "rest.500", "probability": 0}`, Spec{Kind: REST500}, []string{"probability: " + CodeCountOrProb}},
		{"probability not a number", `{"kind": "rest.500", "probability": "half"}`, Spec{Kind: REST500}, []string{"probability: NUMBER_TYPE_COERCE"}},
		{"seed without probability", `{"kind": "rest.500", "seed": 1}`, Spec{Kind: REST500, Count: 1}, []string{"seed: " + CodeNotForKind}},
		{"reserved close code", `{"kind": "gateway.close", "code": 1006}`, Spec{Kind: GatewayClose, Count: 1}, []string{"code: " + CodeBadCode}},
		{"close without code", `{"kind": "gateway.close"}`, Spec{Kind: GatewayClose, Count: 1}, []string{"code: BASE_TYPE_REQUIRED"}},
		{"bad route", `{"kind": "rest.500", "route": "/api/v10/x"}`, Spec{Kind: REST500, Count: 1}, []string{"route: " + CodeBadRoute}},
		{"route on a gateway fault", `{"kind": "gateway.reconnect", "route": "GET /x"}`,
			Spec{Kind: GatewayReconnect, Route: "GET /x", Count: 1}, []string{"route: " + CodeNotForKind}},
		{"negative retry_after", `{"kind": "rest.429", "retry_after": -1}`,
			Spec{Kind: REST429, Count: 1, Params: Params{RetryAfter: 1, Scope: ScopeRoute}}, []string{"retry_after: NUMBER_TYPE_COERCE"}},
		{"unknown scope", `{"kind": "rest.429", "scope": "guild"}`,
			Spec{Kind: REST429, Count: 1, Params: Params{RetryAfter: 1, Scope: ScopeRoute}}, []string{"scope: " + CodeNotForKind}},
		{"bad event", `{"kind": "gateway.delay_dispatch", "event": "interaction_create"}`,
			Spec{Kind: GatewayDelayDispatch, Count: 1, Params: Params{DelayMS: 1000}}, []string{"event: " + CodeBadEvent}},
		{"answered with a bad response", `{"kind": "delivery.answered", "response": {"type": 9}}`,
			Spec{Kind: DeliveryAnswered, Count: 1}, []string{"response: " + CodeBadResponse}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, errs := parse(t, c.body)
			if strings.Join(errs, "; ") != strings.Join(c.errs, "; ") {
				t.Errorf("errors %v, want %v", errs, c.errs)
			}
			if c.errs != nil {
				return
			}
			if c.want.Kind == DeliveryAnswered {
				c.want.Params.Response = got.Params.Response
			}
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(c.want)
			if string(gb) != string(wb) {
				t.Errorf("spec %s, want %s", gb, wb)
			}
		})
	}
}

func TestNormalizeRoute(t *testing.T) {
	cases := []struct{ in, want string }{
		{"POST /api/v10/interactions/{interaction_id}/{interaction_token}/callback", "POST /interactions/{}/{}/callback"},
		{"GET /api/v9/applications/{id}/commands", "GET /applications/{}/commands"},
		{"GET /api/applications/{application_id}/commands", "GET /applications/{}/commands"},
		{"GET /applications/{application_id}/commands", "GET /applications/{}/commands"},
		{"PATCH /apiary/x", "PATCH /apiary/x"},
	}
	for _, c := range cases {
		if got, err := NormalizeRoute(c.in); err != nil || got != c.want {
			t.Errorf("NormalizeRoute(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "GET", "FETCH /x", "GET x", "get /x"} {
		if got, err := NormalizeRoute(bad); err == nil {
			t.Errorf("NormalizeRoute(%q) = %q, want an error", bad, got)
		}
	}
}

// TestFiresIsSeededAndFair: one seed gives one sequence; other seeds
// others; over many matches the share fired is near the probability.
func TestFiresIsSeededAndFair(t *testing.T) {
	seq := func(seed int64) string {
		var b strings.Builder
		for n := int64(1); n <= 64; n++ {
			if Fires(seed, 0.5, n) {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
		return b.String()
	}
	if seq(42) != seq(42) {
		t.Fatal("one seed gave two sequences")
	}
	if seq(42) == seq(43) {
		t.Errorf("seeds 42 and 43 gave one sequence %s", seq(42))
	}
	for _, p := range []float64{0.1, 0.5, 0.9} {
		fired := 0
		const n = 20000
		for i := int64(1); i <= n; i++ {
			if Fires(7, p, i) {
				fired++
			}
		}
		if share := float64(fired) / n; math.Abs(share-p) > 0.02 {
			t.Errorf("p=%v: fired %.3f of matches", p, share)
		}
	}
	if Fires(1, 1, 5) != true {
		t.Error("probability 1 did not fire")
	}
}

func TestCloseCodeValid(t *testing.T) {
	for code, want := range map[int]bool{1000: true, 1004: false, 1005: false, 1006: false, 1011: true, 1015: false,
		2999: false, 3000: true, 4000: true, 4014: true, 4999: true, 5000: false, 0: false} {
		if CloseCodeValid(code) != want {
			t.Errorf("CloseCodeValid(%d) = %v", code, !want)
		}
	}
}

// FuzzParse: any JSON object is read without a panic, and a body Parse
// accepts gives a spec the rest of slashd can use.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"kind": "rest.429", "retry_after": 1.5, "scope": "shared"}`,
		`{"kind": "gateway.close", "code": 4000}`, `{"kind": "delivery.late", "probability": 0.5, "seed": 42}`,
		`{"kind": "delivery.answered", "response": {"type": 4, "data": {"content": "x"}}}`,
		`{"kind": "rest.500", "route": "GET /api/v10/x/{y}", "count": "3"}`, `{"kind": 5}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		v, err := form.DecodeJSON([]byte(body))
		if err != nil {
			return
		}
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		fm := admin.NewForm(m)
		s := Parse(fm)
		if fm.Err() != nil {
			return
		}
		if !strings.Contains(strings.Join(Kinds, " "), s.Kind) || s.Kind == "" {
			t.Fatalf("accepted kind %q", s.Kind)
		}
		if s.Count < 0 || (s.Count == 0 && s.Prob == 0) || s.Prob < 0 || s.Prob > 1 {
			t.Fatalf("accepted count %d, probability %v", s.Count, s.Prob)
		}
		if s.Kind == GatewayClose && !CloseCodeValid(s.Params.Code) {
			t.Fatalf("accepted close code %d", s.Params.Code)
		}
		if s.Route != "" {
			if again, err := NormalizeRoute(s.Route); err != nil || again != s.Route {
				t.Fatalf("route %q does not normalize to itself: %q, %v", s.Route, again, err)
			}
		}
	})
}
