package interaction

import (
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/form"
)

func TestCheckModal(t *testing.T) {
	modal := json.RawMessage(`{"custom_id":"m","title":"T","components":[
		{"type":1,"components":[{"type":4,"custom_id":"a","min_length":2,"max_length":5}]},
		{"type":1,"components":[{"type":4,"custom_id":"b","required":false}]},
		{"type":18,"component":{"type":4,"custom_id":"c","required":false}}]}`)
	row := func(id, v string) string {
		return `{"type":1,"components":[{"type":4,"custom_id":"` + id + `","value":"` + v + `"}]}`
	}
	cases := []struct {
		name string
		rows string
		ok   bool
	}{
		{"required only", row("a", "hey"), true},
		{"all", row("a", "hey") + "," + row("b", "") + "," + row("c", "x"), true},
		{"required missing", row("b", "x"), false},
		{"too short", row("a", "h"), false},
		{"too long", row("a", "hello!"), false},
		{"unknown", row("a", "hey") + "," + row("z", "x"), false},
		{"twice", row("a", "hey") + "," + row("a", "hey"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := form.DecodeJSON([]byte(`{"application_id":"1","channel_id":"2","data":{"id":"3","custom_id":"m","components":[` + c.rows + `]}}`))
			if err != nil {
				t.Fatal(err)
			}
			inv, err := ParseModalInvocation(v)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if _, err := CheckModal(inv, modal); (err == nil) != c.ok {
				t.Fatalf("CheckModal = %v, want ok %v", err, c.ok)
			}
		})
	}
}

func FuzzParseModalInvocation(f *testing.F) {
	f.Add([]byte(`{"application_id":"1","channel_id":"2","data":{"id":"3","custom_id":"m","components":[{"type":1,"components":[{"type":4,"custom_id":"a","value":"x"}]}]}}`))
	f.Add([]byte(`{"custom_id":"m","components":[{"components":[{"type":4,"custom_id":"a","max_length":-1}]},{"component":null}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := form.DecodeJSON(b)
		if err != nil {
			return
		}
		inv, _ := ParseModalInvocation(v)
		_, _ = CheckModal(inv, b) // any modal definition: no panic
	})
}

// Labels (type 18) wrap text inputs and select menus; the app gets each
// input in the layout it was submitted in.
func TestCheckModalLabels(t *testing.T) {
	modal := json.RawMessage(`{"custom_id":"m","title":"T","components":[
		{"type":10,"content":"Tell us"},
		{"type":18,"label":"Short","component":{"type":4,"custom_id":"short","style":1}},
		{"type":18,"label":"Pick","component":{"type":3,"custom_id":"pick","min_values":0,"max_values":2,
			"options":[{"label":"A","value":"a"},{"label":"B","value":"b"},{"label":"C","value":"c"}]}},
		{"type":18,"label":"Who","component":{"type":5,"custom_id":"who"}}]}`)
	label := func(inner string) string { return `{"type":18,"id":1,"component":` + inner + `}` }
	short := label(`{"type":4,"custom_id":"short","value":"hi"}`)
	who := label(`{"type":5,"custom_id":"who","values":["123"]}`)
	cases := []struct {
		name  string
		items string
		want  string // the data's components, or "" for an error
	}{
		{"all", `{"type":10,"id":1},` + short + "," + label(`{"type":3,"custom_id":"pick","values":["a","c"]}`) + "," + who,
			`[{"type":18,"component":{"type":4,"custom_id":"short","value":"hi"}},` +
				`{"type":18,"component":{"type":3,"custom_id":"pick","values":["a","c"]}},` +
				`{"type":18,"component":{"type":5,"custom_id":"who","values":["123"]}}]`},
		{"a select with min_values 0 left out", short + "," + who,
			`[{"type":18,"component":{"type":4,"custom_id":"short","value":"hi"}},{"type":18,"component":{"type":5,"custom_id":"who","values":["123"]}}]`},
		{"a select with min_values 0 left empty", short + "," + label(`{"type":3,"custom_id":"pick","values":[]}`) + "," + who,
			`[{"type":18,"component":{"type":4,"custom_id":"short","value":"hi"}},{"type":18,"component":{"type":3,"custom_id":"pick","values":[]}},` +
				`{"type":18,"component":{"type":5,"custom_id":"who","values":["123"]}}]`},
		{"a text input in a row", `{"type":1,"components":[{"type":4,"custom_id":"short","value":"hi"}]},` + who,
			`[{"type":1,"components":[{"type":4,"custom_id":"short","value":"hi"}]},{"type":18,"component":{"type":5,"custom_id":"who","values":["123"]}}]`},
		{"a required select missing", short, ""},
		{"too many values", short + "," + label(`{"type":3,"custom_id":"pick","values":["a","b","c"]}`) + "," + who, ""},
		{"not an option", short + "," + label(`{"type":3,"custom_id":"pick","values":["z"]}`) + "," + who, ""},
		{"the wrong type", short + "," + label(`{"type":6,"custom_id":"who","values":["123"]}`), ""},
		{"a select without values", short + "," + label(`{"type":5,"custom_id":"who"}`), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := form.DecodeJSON([]byte(`{"application_id":"1","channel_id":"2","data":{"id":"3","custom_id":"m","components":[` + c.items + `]}}`))
			if err != nil {
				t.Fatal(err)
			}
			inv, err := ParseModalInvocation(v)
			if err == nil {
				var data ModalData
				data, err = CheckModal(inv, modal)
				if err == nil {
					got, _ := json.Marshal(data.Components)
					if string(got) != c.want {
						t.Fatalf("components:\n got %s\nwant %s", got, c.want)
					}
					return
				}
			}
			if c.want != "" {
				t.Fatalf("error %v, want %s", err, c.want)
			}
		})
	}
}
