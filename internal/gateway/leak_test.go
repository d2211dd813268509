package gateway_test

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/gateway"
	"github.com/slashd/slashd/internal/testenv"
)

// rawConn is a websocket client written on a bare TCP socket, so that a
// test can end it the ways a crashed client or a broken network does:
// no close frame, just a FIN, or a reset.
type rawConn struct {
	tcp *net.TCPConn
	br  *bufio.Reader
}

// dialRaw opens a TCP connection to the gateway at base (http://host:port)
// and does the websocket handshake with query q.
func dialRaw(base, q string) (*rawConn, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	c, err := net.DialTimeout("tcp", u.Host, readTimeout)
	if err != nil {
		return nil, err
	}
	tcp := c.(*net.TCPConn)
	_ = tcp.SetDeadline(time.Now().Add(readTimeout))
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	req := "GET /gateway?" + q + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + base64.StdEncoding.EncodeToString(key) + "\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := io.WriteString(tcp, req); err != nil {
		tcp.Close()
		return nil, err
	}
	r := &rawConn{tcp: tcp, br: bufio.NewReader(tcp)}
	status, err := r.br.ReadString('\n')
	if err != nil {
		tcp.Close()
		return nil, fmt.Errorf("handshake: %w", err)
	}
	for {
		line, err := r.br.ReadString('\n')
		if err != nil {
			tcp.Close()
			return nil, fmt.Errorf("handshake headers: %w", err)
		}
		if line == "\r\n" {
			break
		}
	}
	if !strings.Contains(status, " 101 ") {
		tcp.Close()
		return nil, fmt.Errorf("handshake answered %q", strings.TrimSpace(status))
	}
	return r, nil
}

// readFrame reads one frame the server sent (never masked): its opcode
// and payload.
func (r *rawConn) readFrame() (byte, []byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(r.br, h[:]); err != nil {
		return 0, nil, err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(r.br, b[:]); err != nil {
			return 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(r.br, b[:]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	p := make([]byte, n)
	_, err := io.ReadFull(r.br, p)
	return h[0] & 0x0f, p, err
}

// readOp reads frames until a text frame of gateway opcode op (t: its
// dispatch name, for op 0) comes.
func (r *rawConn) readOp(op int, t string) error {
	for range 100 {
		code, p, err := r.readFrame()
		if err != nil {
			return err
		}
		if code == 0x8 {
			return fmt.Errorf("closed by the server: % x", p)
		}
		var f wireFrame
		if code != 0x1 || json.Unmarshal(p, &f) != nil {
			continue
		}
		if f.Op == op && (t == "" || f.name() == t) {
			return nil
		}
	}
	return fmt.Errorf("no op %d %s in 100 frames", op, t)
}

// writeText sends one masked text frame, as a client must.
func (r *rawConn) writeText(p []byte) error {
	b := []byte{0x81}
	switch {
	case len(p) < 126:
		b = append(b, 0x80|byte(len(p)))
	case len(p) < 1<<16:
		b = append(b, 0x80|126, byte(len(p)>>8), byte(len(p)))
	default:
		return fmt.Errorf("frame of %d bytes: too long for this client", len(p))
	}
	mask := make([]byte, 4)
	_, _ = rand.Read(mask)
	b = append(b, mask...)
	for i, c := range p {
		b = append(b, c^mask[i%4])
	}
	_, err := r.tcp.Write(b)
	return err
}

// drop ends the connection without a close frame: a FIN, or with reset,
// an RST (SO_LINGER 0), as a killed process or a broken network does.
func (r *rawConn) drop(reset bool) {
	if reset {
		_ = r.tcp.SetLinger(0)
	}
	_ = r.tcp.Close()
}

// openFDs counts this process's open file descriptors (the server's
// sockets among them: the test and the server share the process).
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count file descriptors: %v", err)
	}
	return len(entries)
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC() // the finalizers the first ran have let go of more
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestAbruptDropsLeakNothing: 1,000 connections that end without a
// close frame (a FIN or a reset, identified or not) leave no socket and
// no buffers behind: the process's open file descriptors and its live
// heap come back to about where they were. The session of a connection
// that identified stays resumable, holding neither.
func TestAbruptDropsLeakNothing(t *testing.T) {
	const drops = 1000
	e := testenv.New(t)
	identify, err := json.Marshal(map[string]any{"op": 2, "d": identifyData(e.Bot(), 0)})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		identify bool
		reset    bool
	}{
		{"hello then FIN", false, false},
		{"hello then reset", false, true},
		{"ready then FIN", true, false},
		{"ready then reset", true, true},
	}
	sessionsAtStart := e.API.Gateway().Sessions()
	// One connection first, so that what is made once (pools, the
	// cache's entries for the token) is in the baseline.
	warm, err := dialRaw(e.URL, "v=10&encoding=json")
	if err != nil {
		t.Fatal(err)
	}
	if err := warm.readOp(10, ""); err != nil {
		t.Fatal(err)
	}
	warm.drop(false)
	testenv.WaitFor(t, "the warm-up connection to go", func() bool { return e.API.Gateway().Stats().Connections == 0 })
	baseHeap := liveHeap()

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sessionsBefore := e.API.Gateway().Sessions()
			fds, heap := openFDs(t), liveHeap()
			dropMany(t, drops, func() error {
				c, err := dialRaw(e.URL, "v=10&encoding=json")
				if err != nil {
					return err
				}
				defer c.drop(tc.reset)
				if err := c.readOp(10, ""); err != nil {
					return fmt.Errorf("hello: %w", err)
				}
				if !tc.identify {
					return nil
				}
				if err := c.writeText(identify); err != nil {
					return err
				}
				return c.readOp(0, "READY")
			})
			testenv.WaitFor(t, "the gateway to count no connection", func() bool {
				return e.API.Gateway().Stats().Connections == 0
			})
			// Generous: 1,000 leaked sockets are 1,000 descriptors and
			// over 10 MiB; a loaded machine's noise is a few of each.
			const fdSlack, heapSlack = 50, 4 << 20
			nowFDs := waitAtMost(t, "open file descriptors", uint64(fds+fdSlack), func() uint64 { return uint64(openFDs(t)) })
			nowHeap := waitAtMost(t, "live heap (bytes)", heap+heapSlack, liveHeap)
			t.Logf("%d drops: open file descriptors %d → %d, live heap %.1f → %.1f MiB", drops, fds, nowFDs,
				float64(heap)/(1<<20), float64(nowHeap)/(1<<20))
			if tc.identify {
				st := e.API.Gateway().Stats()
				if got := e.API.Gateway().Sessions() - sessionsBefore; got != drops {
					t.Errorf("%d new sessions kept, want %d (resumable)", got, drops)
				}
				if st.Connected != 0 {
					t.Errorf("%d sessions still count as connected", st.Connected)
				}
			}
		})
	}

	// Once the resume window has passed, the sessions are forgotten and
	// the heap is back where it started.
	e.Clock.Advance(gateway.DefaultConfig().ResumeWindow + time.Second)
	testenv.WaitFor(t, "the sessions to be forgotten after the resume window", func() bool {
		return e.API.Gateway().Sessions() == sessionsAtStart
	})
	nowHeap := waitAtMost(t, "live heap (bytes) after the resume window", baseHeap+2<<20, liveHeap)
	t.Logf("after the resume window: live heap %.1f MiB (%.1f at the start)", float64(nowHeap)/(1<<20),
		float64(baseHeap)/(1<<20))
}

// waitAtMost polls measure until it is at most limit, failing t with
// the last measure when it is not within testenv.WaitTimeout.
func waitAtMost(t *testing.T, what string, limit uint64, measure func() uint64) uint64 {
	t.Helper()
	deadline := time.Now().Add(testenv.WaitTimeout)
	for {
		got := measure()
		if got <= limit {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d, want at most %d within %v", what, got, limit, testenv.WaitTimeout)
		}
		time.Sleep(50 * time.Millisecond) // a poll interval, not a wait for the event
	}
}

// dropMany runs one, n times, a few at a time.
func dropMany(t *testing.T, n int, one func() error) {
	t.Helper()
	const parallel = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan struct{})
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				if err := one(); err != nil {
					errs <- err
				}
			}
		}()
	}
	for range n {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("connection: %v", err)
	}
}
