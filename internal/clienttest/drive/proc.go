// Package drive is what the client-library suites that run a program
// outside Go (discord.js, discord.py, Oceanic.js, Discordeno, slash-create,
// the discord-interactions example app) share: a running bot script that
// reports what it saw as JSON lines on stdout and takes orders as JSON
// lines on stdin (Proc), Node scripts' npm packages and start
// (NodePackages, StartNode), and the guild its tests play in, with a
// member who invokes the bot's commands through slashd's client API
// (World).
//
// A script reports {"event": NAME, …} lines; {"event": "error", …} (or
// another event named with FailOn) is a failure the next wait reports. An order is {"do": ACTION, …}, answered
// by {"event": "did", "do": ACTION, …} (one order at a time).
package drive

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Wait bounds every wait for something a bot should do: long enough for
// a cold interpreter on a loaded 2-core machine.
const Wait = 30 * time.Second

// Proc is a running bot script. Every line it prints is kept; waits scan
// them all, so reports may come in any order.
type Proc struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed when the process has exited
	err   error         // Wait's error, once done is closed

	mu       sync.Mutex
	stderr   bytes.Buffer
	seen     []string      // every line read from stdout
	changed  chan struct{} // closed (and replaced) when a line is read
	failed   int           // seen[:failed] holds no error a wait has not failed on
	failures []string      // the events that are errors: "error", and FailOn's
}

// Start runs cmd (its Stdin, Stdout and Stderr unset) as the script
// name. It is killed when the test ends; what it printed is logged if
// the test failed (always with DRIVE_LOG=1 in the environment).
func Start(t testing.TB, name string, cmd *exec.Cmd) *Proc {
	t.Helper()
	p := &Proc{name: name, cmd: cmd, done: make(chan struct{}), changed: make(chan struct{}), failures: []string{"error"}}
	cmd.Stderr = lockedWriter{&p.mu, &p.stderr}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	read := make(chan struct{})
	go p.read(stdout, read)
	go func() {
		<-read // Wait closes stdout: read it all first
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() || os.Getenv("DRIVE_LOG") != "" {
			t.Logf("%s stdout:\n%s\n%s stderr:\n%s", name, p.Stdout(), name, p.Stderr())
		}
	})
	return p
}

func (p *Proc) read(stdout io.Reader, read chan<- struct{}) {
	defer close(read)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		p.mu.Lock()
		p.seen = append(p.seen, sc.Text())
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
	}
}

// Stdout is every line the script printed so far.
func (p *Proc) Stdout() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.seen, "\n")
}

// Stderr is what the script wrote to stderr so far.
func (p *Proc) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// FailOn makes the events named names errors too, as "error" is (say
// a client's failure to log in, which it reports otherwise): a wait
// fails on them, and TakeErrors returns them.
func (p *Proc) FailOn(names ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failures = append(p.failures, names...)
}

// isFailure reports whether the event named ev is an error; p.mu is
// held.
func (p *Proc) isFailure(ev string) bool { return slices.Contains(p.failures, ev) }

// eventName is the "event" of a line ("" if it is not a report, e.g. a
// library printing to stdout).
func eventName(line string) string {
	var head struct {
		Event string `json:"event"`
	}
	if json.Unmarshal([]byte(line), &head) != nil {
		return ""
	}
	return head.Event
}

// All returns every event named name reported so far, in order.
func (p *Proc) All(name string) []json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []json.RawMessage
	for _, line := range p.seen {
		if eventName(line) == name {
			out = append(out, json.RawMessage(line))
		}
	}
	return out
}

// WaitFor returns the first event named name for which match (nil: any)
// holds, waiting up to d; match gets the event's rank among those so
// named (0 for the first). It fails as soon as the script reports an
// error (one no earlier wait failed on, so that one error fails one
// subtest) or exits.
func (p *Proc) WaitFor(t testing.TB, d time.Duration, name string, match func(rank int, ev json.RawMessage) bool) json.RawMessage {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		found, failure, changed := p.scan(name, match)
		if failure != "" {
			t.Fatalf("%s, waiting for %q: %s\nstderr:\n%s", p.name, name, failure, p.Stderr())
		}
		if found != nil {
			return found
		}
		select {
		case <-changed:
		case <-p.done:
			if found, failure, _ = p.scan(name, match); found == nil && failure == "" {
				t.Fatalf("%s exited (%v) before %q\nstdout:\n%s\nstderr:\n%s", p.name, p.err, name, p.Stdout(), p.Stderr())
			}
		case <-deadline.C:
			t.Fatalf("%s: no %q within %v\nstdout:\n%s\nstderr:\n%s", p.name, name, d, p.Stdout(), p.Stderr())
		}
	}
}

// scan looks for the first event named name that match accepts, or an
// error not failed on yet; changed is closed when another line comes.
func (p *Proc) scan(name string, match func(int, json.RawMessage) bool) (found json.RawMessage, failure string, changed chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rank := 0
	for i, line := range p.seen {
		switch ev := eventName(line); {
		case i >= p.failed && p.isFailure(ev):
			p.failed = i + 1
			return nil, line, p.changed
		case ev == name:
			if found == nil && (match == nil || match(rank, json.RawMessage(line))) {
				found = json.RawMessage(line)
			}
			rank++
		}
	}
	return found, "", p.changed
}

// Nth returns the nth event named name (1 for the first) among those
// whose fields include every one of want (as Wait compares them),
// waiting up to Wait for it.
func (p *Proc) Nth(t testing.TB, name string, want map[string]any, n int) json.RawMessage {
	t.Helper()
	k := 0 // events with want so far in this scan
	return p.WaitFor(t, Wait, name, func(rank int, raw json.RawMessage) bool {
		if rank == 0 { // scan offers the events from the first, each time
			k = 0
		}
		if Has(raw, want) {
			k++
		}
		return k == n
	})
}

// Wait decodes into v (unless nil) the first event named name whose
// fields include every one of want (compared as JSON values).
func (p *Proc) Wait(t testing.TB, name string, want map[string]any, v any) json.RawMessage {
	t.Helper()
	raw := p.WaitFor(t, Wait, name, func(_ int, raw json.RawMessage) bool { return Has(raw, want) })
	if v != nil {
		Decode(t, raw, v)
	}
	return raw
}

// Has reports whether the JSON object raw holds every field of want,
// with equal values (as JSON).
func Has(raw json.RawMessage, want map[string]any) bool {
	var got map[string]json.RawMessage
	if json.Unmarshal(raw, &got) != nil {
		return false
	}
	for k, w := range want {
		enc, err := json.Marshal(w)
		if err != nil || !jsonEqual(got[k], enc) {
			return false
		}
	}
	return true
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// Do gives the script an order ({"do": action, …args}) and decodes what
// it reported having done into v (unless nil).
func (p *Proc) Do(t testing.TB, action string, args map[string]any, v any) {
	t.Helper()
	req := map[string]any{"do": action}
	for k, a := range args {
		req[k] = a
	}
	line, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	next := len(p.All("did")) // one order at a time: the next "did" is this one's
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		t.Fatalf("order %s to %s: %v", action, p.name, err)
	}
	raw := p.WaitFor(t, Wait, "did", func(rank int, _ json.RawMessage) bool { return rank >= next })
	if !Has(raw, map[string]any{"do": action}) {
		t.Fatalf("ordered %s to %s, it did %s", action, p.name, raw)
	}
	if v != nil {
		Decode(t, raw, v)
	}
}

// Stop closes the script's stdin (it then closes its connections and
// exits 0) and waits for its end.
func (p *Proc) Stop(t testing.TB) {
	t.Helper()
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(Wait):
		t.Fatalf("%s did not exit within %v of its stdin closing", p.name, Wait)
	}
	if p.err != nil {
		t.Fatalf("%s: %v\nstderr:\n%s", p.name, p.err, p.Stderr())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// Decode unmarshals raw into v, failing t on error.
func Decode(t testing.TB, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
}

// TakeErrors returns the errors the script reported that no wait has
// failed on yet, and marks them failed on: a test that failed for
// another reason (an invocation that got no answer) reports them itself.
func (p *Proc) TakeErrors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for i := p.failed; i < len(p.seen); i++ {
		if p.isFailure(eventName(p.seen[i])) {
			out = append(out, p.seen[i])
		}
	}
	p.failed = len(p.seen)
	return out
}
