package wwwauth

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want []Challenge
	}{
		{`Bearer realm="slashd"`, []Challenge{{Scheme: "Bearer", Params: map[string]string{"realm": "slashd"}}}},
		{`Bearer realm="slashd", error="invalid_token", error_description="say \"hi\" \\ bye"`,
			[]Challenge{{Scheme: "Bearer", Params: map[string]string{"realm": "slashd", "error": "invalid_token",
				"error_description": `say "hi" \ bye`}}}},
		{`bearer  Realm = slashd ,scope="a b"`, []Challenge{{Scheme: "bearer", Params: map[string]string{"realm": "slashd", "scope": "a b"}}}},
		{`Basic realm="x", Bearer error="invalid_token"`, []Challenge{
			{Scheme: "Basic", Params: map[string]string{"realm": "x"}},
			{Scheme: "Bearer", Params: map[string]string{"error": "invalid_token"}}}},
		{`Newauth abc+/def==, Bearer`, []Challenge{{Scheme: "Newauth", Token68: "abc+/def=="}, {Scheme: "Bearer"}}},
	} {
		got, err := Parse(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got  %#v\n want %#v", c.in, got, c.want)
		}
	}
	for _, bad := range []string{``, `"Bearer"`, `Bearer realm="unterminated`, `Bearer realm="a", realm="b"`,
		`Bearer realm="a" error="b"`, `Bearer realm="a\`, "Bearer realm=\"a\x01\""} {
		if got, err := Parse(bad); err == nil {
			t.Errorf("%q parsed: %#v", bad, got)
		}
	}
}
