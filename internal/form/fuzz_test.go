package form_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

var fuzzSeeds = []string{
	`{}`,
	`{"v":null}`,
	`{"v":"1234567890123456789","w":[0,"1",2.0,null,{}],"x":{"de":"y"}}`,
	`{"v":1e400,"w":-0,"x":"01","y":true,"z":"é"}`,
	`{"v":9223372036854775808,"w":-9007199254740993.0,"x":"\u0000"}`,
	`[]`,
	`null`,
	`"x"`,
	`{"a":1} {}`,
	`{"a":`,
}

// FuzzDecodeJSON: DecodeJSON never panics, fails only with ErrInvalidJSON,
// and what it decodes encodes back to JSON that decodes to the same value.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := form.DecodeJSON(body)
		if err != nil {
			if err != form.ErrInvalidJSON {
				t.Fatalf("error %v", err)
			}
			return
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("decoded value does not encode: %v", err)
		}
		v2, err := form.DecodeJSON(b)
		if err != nil {
			t.Fatalf("own encoding %s does not decode: %v", b, err)
		}
		if !reflect.DeepEqual(v, v2) {
			t.Fatalf("round trip changed the value\nfirst  %#v\nsecond %#v", v, v2)
		}
	})
}

// FuzzObject: on any decoded body, no reader panics, and each follows the
// package's convention on every key the body has (and one it lacks): a
// reader that succeeds records nothing, and one that fails records an
// error exactly when the field is present and not null.
func FuzzObject(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	readers := map[string]func(o form.Object, key string) bool{
		"Str":       func(o form.Object, k string) bool { _, ok := o.Str(k); return ok },
		"StrLen":    func(o form.Object, k string) bool { _, ok := o.StrLen(k, 1, 3); return ok },
		"Bool":      func(o form.Object, k string) bool { _, ok := o.Bool(k); return ok },
		"Int":       func(o form.Object, k string) bool { _, ok := o.Int(k); return ok },
		"IntIn":     func(o form.Object, k string) bool { _, ok := o.IntIn(k, -5, 5); return ok },
		"Choice":    func(o form.Object, k string) bool { _, ok := o.Choice(k, []int{0, 2}); return ok },
		"List":      func(o form.Object, k string) bool { _, ok := o.List(k); return ok },
		"Dict":      func(o form.Object, k string) bool { _, ok := o.Dict(k); return ok },
		"Snowflake": func(o form.Object, k string) bool { _, ok := o.Snowflake(k); return ok },
		"IntList":   func(o form.Object, k string) bool { _, ok := o.IntList(k, []int{0, 1}); return ok },
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := form.DecodeJSON(body)
		if err != nil {
			return
		}
		errs := &apierr.Fields{}
		if _, ok := form.AsObject(v, errs); !ok {
			if errs.Empty() {
				t.Fatalf("AsObject(%s) failed without an error", body)
			}
			return
		}
		m := v.(map[string]any)
		keys := []string{"\x00absent"}
		for k := range m {
			keys = append(keys, k)
		}
		for name, read := range readers {
			for _, k := range keys {
				errs := &apierr.Fields{}
				o, _ := form.AsObject(v, errs)
				ok := read(o, k)
				if _, err := json.Marshal(errs); err != nil {
					t.Fatalf("%s(%q): errors do not render: %v", name, k, err)
				}
				if want := !ok && o.Present(k); errs.Empty() == want {
					b, _ := json.Marshal(errs)
					t.Fatalf("%s(%q) of %s: ok %v, errors %s", name, k, body, ok, b)
				}
			}
		}
	})
}
