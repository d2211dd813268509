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
