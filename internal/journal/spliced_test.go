package journal

import (
	"encoding/json"
	"testing"
)

func TestEncodeSpliced(t *testing.T) {
	type fields struct {
		ID   string `json:"id"`
		Note string `json:"note,omitempty"`
	}
	tests := []struct {
		name string
		body Spliced
		want string
	}{
		{"fields alone", Spliced{Fields: fields{ID: "1"}}, `{"id":"1"}`},
		{"a member after the fields", Spliced{Fields: fields{ID: "1"}, Members: []Member{{Name: "payload", JSON: []byte(`{"a":[1,2]}`)}}},
			`{"id":"1","payload":{"a":[1,2]}}`},
		{"members after no field", Spliced{Fields: struct{}{}, Members: []Member{{Name: "a", JSON: []byte(`1`)}, {Name: "b", JSON: []byte(`"x"`)}}},
			`{"a":1,"b":"x"}`},
		{"empty and invalid members are left out, not the entry", Spliced{Fields: fields{ID: "1"}, Members: []Member{
			{Name: "empty"}, {Name: "broken", JSON: []byte(`{"a":`)}, {Name: "kept", JSON: []byte(`[]`)}}},
			`{"id":"1","kept":[]}`},
		{"a first member left out leaves no comma", Spliced{Fields: struct{}{}, Members: []Member{
			{Name: "broken", JSON: []byte(`nope`)}, {Name: "kept", JSON: []byte(`true`)}}},
			`{"kept":true}`},
		{"JSON this process encoded is spliced unchecked", Spliced{Fields: struct{}{}, Members: []Member{
			{Name: "payload", JSON: []byte(`{"type":2}`), Encoded: true}}},
			`{"payload":{"type":2}}`},
		{"nested", Spliced{Fields: fields{ID: "1"}, Members: []Member{{Name: "answer", Value: &Spliced{
			Fields: struct {
				Type int `json:"type"`
			}{4}, Members: []Member{{Name: "choices"}, {Name: "message", JSON: []byte(`{"content":"hi"}`)}}}}}},
			`{"id":"1","answer":{"type":4,"message":{"content":"hi"}}}`},
		{"no HTML escapes, spliced or not", Spliced{Fields: fields{ID: "1", Note: "<b>&"},
			Members: []Member{{Name: "message", JSON: []byte(`{"content":"\u003ci\u003e \u0026"}`)}}},
			`{"id":"1","note":"<b>&","message":{"content":"<i> &"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodeBody(tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("encoded %s; want %s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("%s is not JSON", got)
			}
		})
	}
}

func TestEncodeSplicedRefusesFieldsThatAreNoObject(t *testing.T) {
	for _, f := range []any{[]int{1}, "s", nil, func() {}} {
		if got, err := encodeBody(Spliced{Fields: f}); err == nil {
			t.Errorf("fields %T encoded as %s; want an error", f, got)
		}
	}
}
