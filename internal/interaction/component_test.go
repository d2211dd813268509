package interaction

import (
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/form"
)

func TestCheckComponent(t *testing.T) {
	var components []json.RawMessage
	_ = json.Unmarshal([]byte(`[
		{"type":1,"components":[{"type":2,"custom_id":"go"},{"type":2,"custom_id":"off","disabled":true}]},
		{"type":1,"components":[{"type":3,"custom_id":"pick","min_values":0,"max_values":2,"options":[{"value":"a"},{"value":"b"}]}]},
		{"type":1,"components":[{"type":5,"custom_id":"who"}]},
		{"type":9,"components":[{"type":10,"content":"x"}],"accessory":{"type":2,"custom_id":"side"}}]`), &components)
	cases := []struct {
		name string
		body string
		ok   bool
	}{
		{"button", `{"custom_id":"go","component_type":2}`, true},
		{"section accessory", `{"custom_id":"side","component_type":2}`, true},
		{"disabled", `{"custom_id":"off","component_type":2}`, false},
		{"unknown", `{"custom_id":"zz","component_type":2}`, false},
		{"button with values", `{"custom_id":"go","component_type":2,"values":[]}`, false},
		{"select two", `{"custom_id":"pick","component_type":3,"values":["a","b"]}`, true},
		{"select none (min 0)", `{"custom_id":"pick","component_type":3,"values":[]}`, true},
		{"select three", `{"custom_id":"pick","component_type":3,"values":["a","b","a"]}`, false},
		{"select unknown value", `{"custom_id":"pick","component_type":3,"values":["c"]}`, false},
		{"user select one id", `{"custom_id":"who","component_type":5,"values":["42"]}`, true},
		{"user select none (min 1)", `{"custom_id":"who","component_type":5}`, false},
		{"type mismatch", `{"custom_id":"pick","component_type":2}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := form.DecodeJSON([]byte(`{"application_id":"1","channel_id":"2","message_id":"3","data":` + c.body + `}`))
			if err != nil {
				t.Fatal(err)
			}
			inv, err := ParseComponentInvocation(v)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if err := CheckComponent(inv, components); (err == nil) != c.ok {
				t.Fatalf("CheckComponent = %v, want ok %v", err, c.ok)
			}
		})
	}
}

func TestParseComponentInvocationErrors(t *testing.T) {
	for _, body := range []string{
		`[]`,
		`{}`,
		`{"application_id":"1","channel_id":"2","message_id":"3","data":{"custom_id":"","component_type":2}}`,
		`{"application_id":"1","channel_id":"2","message_id":"3","data":{"custom_id":"x","component_type":4}}`,
		`{"application_id":"1","channel_id":"2","message_id":"3","data":{"custom_id":"x","component_type":3,"values":[1]}}`,
		`{"application_id":"x","channel_id":"2","message_id":"3","data":{"custom_id":"x","component_type":2}}`,
	} {
		v, err := form.DecodeJSON([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseComponentInvocation(v); err == nil {
			t.Errorf("%s: no error", body)
		}
	}
}

func FuzzParseComponentInvocation(f *testing.F) {
	f.Add([]byte(`{"application_id":"1","channel_id":"2","message_id":"3","data":{"custom_id":"go","component_type":2}}`))
	f.Add([]byte(`{"application_id":"1","channel_id":"2","message_id":"3","data":{"custom_id":"p","component_type":3,"values":["a"]}}`))
	f.Add([]byte(`[{"type":1,"components":[{"type":3,"custom_id":"p","max_values":-1,"options":[{"value":"a"}]}]}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := form.DecodeJSON(b)
		if err != nil {
			return
		}
		inv, err := ParseComponentInvocation(v)
		var components []json.RawMessage
		if json.Unmarshal(b, &components) == nil {
			_ = CheckComponent(inv, components) // must not panic on any tree
		}
		_ = err
	})
}
