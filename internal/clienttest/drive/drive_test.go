package drive

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
	for _, c := range []struct {
		want map[string]any
		n    int
		line int // the answer's n
	}{
		{nil, 2, 2},
		{nil, 3, 3},
		{map[string]any{"do": "echo"}, 1, 1},
		{map[string]any{"line": map[string]any{"do": "echo", "n": 3}}, 1, 3},
	} {
		raw := p.Nth(t, "did", c.want, c.n)
		if !Has(raw, map[string]any{"line": map[string]any{"do": "echo", "n": c.line}}) {
			t.Errorf("Nth(did, %v, %d) = %s, want the answer to order %d", c.want, c.n, raw, c.line)
		}
	}
	// Two orders whose answers come while Nth waits: each scan counts
	// from the first answer again.
	if _, err := p.stdin.Write([]byte(`{"do":"echo","n":4}` + "\n" + `{"do":"echo","n":5}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if raw := p.Nth(t, "did", map[string]any{"do": "echo"}, 5); !Has(raw, map[string]any{"line": map[string]any{"do": "echo", "n": 5}}) {
		t.Errorf("the fifth answer is %s", raw)
	}
	if _, err := p.stdin.Write([]byte(`{"do":"fail"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	errs := waitErrors(p)
	if len(errs) != 1 || len(p.TakeErrors()) != 0 {
		t.Fatalf("errors %v, then %v; want one, then none", errs, p.TakeErrors())
	}
	p.Stop(t)
	if n := len(p.All("did")); n != 5 {
		t.Errorf("%d answers, want 5", n)
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

// TestFailOn runs a script reporting an error, a loginError and ready:
// a wait fails on loginError (and TakeErrors returns it) only once
// FailOn names it.
func TestFailOn(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	script := `echo '{"event":"error","n":1}'
echo '{"event":"loginError","n":2}'
echo '{"event":"ready"}'`
	for _, c := range []struct {
		name   string
		failOn []string
		errors []int // the reports' n, in order
	}{
		{"error only", nil, []int{1}},
		{"loginError too", []string{"loginError"}, []int{1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := func() *Proc {
				p := Start(t, "sh", exec.Command(sh, "-c", script))
				p.FailOn(c.failOn...)
				p.Stop(t) // every line read
				return p
			}
			p := start()
			var waits []int // what each wait in turn fails on
			for {
				_, failure, _ := p.scan("ready", nil)
				if failure == "" {
					break
				}
				waits = append(waits, reportN(t, failure))
			}
			if !slices.Equal(waits, c.errors) {
				t.Errorf("waits failed on %v, want %v", waits, c.errors)
			}
			if found, _, _ := p.scan("ready", nil); found == nil {
				t.Error("ready not found once the errors were failed on")
			}
			var taken []int
			for _, e := range start().TakeErrors() {
				taken = append(taken, reportN(t, e))
			}
			if !slices.Equal(taken, c.errors) {
				t.Errorf("TakeErrors took %v, want %v", taken, c.errors)
			}
		})
	}
}

// reportN is the field n of a report.
func reportN(t *testing.T, line string) int {
	t.Helper()
	var r struct {
		N int `json:"n"`
	}
	Decode(t, []byte(line), &r)
	return r.N
}

// TestStartNode runs a Node script with arguments and an environment
// variable, on a port FreePort gave: it reports them, listening there.
func TestStartNode(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip(err)
	}
	t.Chdir(t.TempDir())
	script := `const net = require('node:net');
const srv = net.createServer().listen(Number(process.env.PORT), '127.0.0.1', () => {
  console.log(JSON.stringify({ event: 'listening', args: process.argv.slice(2), port: srv.address().port }));
});
process.stdin.resume();
process.stdin.on('end', () => srv.close());`
	if err := os.WriteFile("listen.js", []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	port := FreePort(t)
	p := StartNode(t, []string{"PORT=" + strconv.Itoa(port)}, "listen.js", "a", "b c")
	if p.name != "listen.js a b c" {
		t.Errorf("named %q", p.name)
	}
	p.Wait(t, "listening", map[string]any{"args": []string{"a", "b c"}, "port": port}, nil)
	p.Stop(t)
}

// TestNodePackages: node on PATH and each package in ./node_modules, or
// an error naming the first one missing.
func TestNodePackages(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip(err)
	}
	t.Chdir(t.TempDir())
	if err := os.MkdirAll(filepath.Join("node_modules", "here"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("node_modules", "here", "package.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pkgs    []string
		missing string // "" when nothing is
	}{
		{nil, ""},
		{[]string{"here"}, ""},
		{[]string{"here", "gone"}, "gone"},
		{[]string{"gone", "here"}, "gone"},
	} {
		err := NodePackages(c.pkgs...)
		switch {
		case c.missing == "" && err != nil:
			t.Errorf("NodePackages(%q) = %v, want nil", c.pkgs, err)
		case c.missing != "" && (err == nil || !strings.HasPrefix(err.Error(), c.missing+" is not installed")):
			t.Errorf("NodePackages(%q) = %v, want %s missing", c.pkgs, err, c.missing)
		}
	}
}
