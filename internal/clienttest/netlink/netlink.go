// Package netlink is the network between a bot's gateway websocket and
// slashd in the client library tests (internal/clienttest and its
// discord.js tests): a test can see what the library sent, cut the
// connections the way a network failure does and hold the reconnection.
package netlink

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// clientPayload is a gateway payload a library sent.
type clientPayload struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
}

// Link is the network between a bot's gateway websocket and slashd:
// the libraries dial through it (their gorilla websocket.Dialer's
// NetDialContext), it decodes the frames they send (client frames are
// masked, never compressed by these libraries), and Cut drops every live
// connection the way a network failure does: the library reads EOF, the
// server sees the TCP connection end without a close frame, so the
// session stays resumable. After Cut, new dials wait for Release, so the
// test can publish events while the bot is certainly away.
type Link struct {
	// order is locked and unlocked at every read and write, so that what
	// one goroutine did before a write happens before (for the race
	// detector) what another does after reading the answer (see
	// internal/clienttest's disgoBot).
	order sync.Mutex

	mu    sync.Mutex
	live  []*linkConn
	hold  chan struct{} // non-nil: dials wait until it is closed
	sent  []clientPayload
	dials chan bool
	tries int // dials made
}

// New is a link that passes everything.
func New() *Link { return &Link{dials: make(chan bool, 64)} }

// Dialer is a websocket dialer through the link.
func (l *Link) Dialer() *websocket.Dialer {
	return &websocket.Dialer{NetDialContext: l.Dial, HandshakeTimeout: 10 * time.Second}
}

// Dial connects through the link (a net.Dialer's DialContext); after
// Cut it waits for Release.
func (l *Link) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	l.mu.Lock()
	hold := l.hold
	l.tries++
	l.mu.Unlock()
	select {
	case l.dials <- hold != nil:
	default:
	}
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	lc := &linkConn{Conn: c, link: l}
	l.mu.Lock()
	l.live = append(l.live, lc)
	l.mu.Unlock()
	return lc, nil
}

// Touch is a synchronization point on the link (see order).
func (l *Link) Touch() {
	l.order.Lock()
	//lint:ignore SA2001 an empty critical section is the point
	l.order.Unlock()
}

// Cut drops the live connections and holds new dials.
func (l *Link) Cut() {
	l.mu.Lock()
	live := l.live
	l.live = nil
	l.hold = make(chan struct{})
	l.mu.Unlock()
	for _, c := range live {
		c.dropped.Store(true)
		_ = c.Conn.Close()
	}
}

// HeldDial waits (up to d) until the library tries to reconnect
// while held.
func (l *Link) HeldDial(t testing.TB, d time.Duration) {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case held := <-l.dials:
			if held {
				return
			}
		case <-timeout:
			t.Fatal("the library did not try to reconnect")
		}
	}
}

// Release lets held and new dials through.
func (l *Link) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold != nil {
		close(l.hold)
		l.hold = nil
	}
}

// Dials counts the connections the library tried to make.
func (l *Link) Dials() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tries
}

// Payloads returns what the library sent with opcode op, in order.
func (l *Link) Payloads(op int) []json.RawMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []json.RawMessage
	for _, p := range l.sent {
		if p.Op == op {
			out = append(out, p.D)
		}
	}
	return out
}

func (l *Link) record(opcode byte, payload []byte) {
	if opcode != websocket.TextMessage && opcode != websocket.BinaryMessage {
		return // control frames
	}
	p := clientPayload{Op: -1, D: payload} // -1: not a payload
	_ = json.Unmarshal(payload, &p)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent = append(l.sent, p)
}

// linkConn is one TCP connection through a Link.
type linkConn struct {
	net.Conn
	link    *Link
	dropped atomic.Bool

	wmu      sync.Mutex
	wbuf     []byte // written bytes not yet decoded
	upgraded bool   // the HTTP upgrade request has been written
	msg      []byte // a fragmented message so far
	mop      byte   // its opcode
}

func (c *linkConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.link.Touch()
	if c.dropped.Load() {
		return 0, io.EOF // the peer went away
	}
	return n, err
}

func (c *linkConn) Write(p []byte) (int, error) {
	if c.dropped.Load() {
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}
	}
	c.wmu.Lock()
	c.wbuf = append(c.wbuf, p...)
	c.decode()
	c.wmu.Unlock()
	c.link.Touch()
	return c.Conn.Write(p)
}

// decode takes the upgrade request, then complete client frames, off
// wbuf.
func (c *linkConn) decode() {
	if !c.upgraded {
		end := bytes.Index(c.wbuf, []byte("\r\n\r\n"))
		if end < 0 {
			return
		}
		c.wbuf, c.upgraded = c.wbuf[end+4:], true
	}
	for len(c.wbuf) >= 2 {
		b0, b1 := c.wbuf[0], c.wbuf[1]
		n, hdr := uint64(b1&0x7f), 2
		switch n {
		case 126:
			if len(c.wbuf) < 4 {
				return
			}
			n, hdr = uint64(binary.BigEndian.Uint16(c.wbuf[2:])), 4
		case 127:
			if len(c.wbuf) < 10 {
				return
			}
			n, hdr = binary.BigEndian.Uint64(c.wbuf[2:]), 10
		}
		var mask []byte
		if b1&0x80 != 0 {
			if len(c.wbuf) < hdr+4 {
				return
			}
			mask, hdr = c.wbuf[hdr:hdr+4], hdr+4
		}
		if uint64(len(c.wbuf)-hdr) < n {
			return
		}
		payload := append([]byte(nil), c.wbuf[hdr:hdr+int(n)]...)
		for i := range payload {
			if mask != nil {
				payload[i] ^= mask[i%4]
			}
		}
		c.wbuf = c.wbuf[hdr+int(n):]
		fin, op := b0&0x80 != 0, b0&0x0f
		if op >= 8 { // control frames are never fragmented
			c.link.record(op, payload)
			continue
		}
		if op != 0 {
			c.mop, c.msg = op, nil
		}
		c.msg = append(c.msg, payload...)
		if fin {
			c.link.record(c.mop, c.msg)
			c.msg = nil
		}
	}
}
