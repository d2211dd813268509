package drive

import (
	"encoding/json"
	"os/exec"
	"testing"
)

func TestHas(t *testing.T) {
	for _, c := range []struct {
		name string
		raw  string
		want map[string]any
		has  bool
	}{
		{"no fields wanted", `{"event":"x"}`, nil, true},
		{"equal string", `{"id":"12","event":"x"}`, map[string]any{"id": "12"}, true},
		{"other string", `{"id":"13"}`, map[string]any{"id": "12"}, false},
		{"missing field", `{"event":"x"}`, map[string]any{"id": "12"}, false},
		{"number against string", `{"id":12}`, map[string]any{"id": "12"}, false},
		{"equal numbers written differently", `{"n":1.0}`, map[string]any{"n": 1}, true},
		{"equal lists", `{"sub":["a","b"]}`, map[string]any{"sub": []string{"a", "b"}}, true},
		{"lists in another order", `{"sub":["b","a"]}`, map[string]any{"sub": []string{"a", "b"}}, false},
		{"not an object", `["id"]`, map[string]any{"id": "12"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Has(json.RawMessage(c.raw), c.want); got != c.has {
				t.Errorf("Has(%s, %v) = %v, want %v", c.raw, c.want, got, c.has)
			}
		})
	}
}

// TestProc runs a shell script that answers every order it reads, then
// reports an error: Do gets each order's answer in turn, a wait fails on
// the error once (TakeErrors then has nothing left), and Stop sees the
// script end.
func TestProc(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	script := `echo 'not a report'
while read -r line; do
  case "$line" in
    *fail*) echo '{"event":"error","message":"asked to"}' ;;
    *) echo "{\"event\":\"did\",\"do\":\"echo\",\"line\":$line}" ;;
  esac
done`
	p := Start(t, "sh", exec.Command(sh, "-c", script))
	for _, n := range []int{1, 2, 3} {
		var got struct {
			Line struct {
				N int `json:"n"`
			} `json:"line"`
		}
		p.Do(t, "echo", map[string]any{"n": n}, &got)
		if got.Line.N != n {
			t.Fatalf("order %d answered %+v", n, got)
		}
	}
	if _, err := p.stdin.Write([]byte(`{"do":"fail"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	errs := waitErrors(p)
	if len(errs) != 1 || len(p.TakeErrors()) != 0 {
		t.Fatalf("errors %v, then %v; want one, then none", errs, p.TakeErrors())
	}
	p.Stop(t)
	if n := len(p.All("did")); n != 3 {
		t.Errorf("%d answers, want 3", n)
	}
}

// waitErrors waits for the script's next error report and takes it.
func waitErrors(p *Proc) []string {
	for {
		p.mu.Lock()
		changed := p.changed
		p.mu.Unlock()
		if errs := p.TakeErrors(); len(errs) > 0 {
			return errs
		}
		select {
		case <-changed:
		case <-p.done:
			return p.TakeErrors()
		}
	}
}
