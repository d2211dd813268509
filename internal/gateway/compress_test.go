package gateway_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/coder/websocket"
	"github.com/klauspost/compress/zstd"

	"github.com/slashd/slashd/internal/testenv"
)

// zlibFrames reads a zlib-stream connection's messages one after the
// other as one byte stream, checking each is a binary message ending
// with the sync flush suffix.
type zlibFrames struct {
	t      *testing.T
	ws     *websocket.Conn
	buf    []byte
	frames int
	sizes  []int // each message's length
}

func (r *zlibFrames) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		typ, data, err := r.ws.Read(ctx)
		if err != nil {
			return 0, err
		}
		r.frames++
		r.sizes = append(r.sizes, len(data))
		if typ != websocket.MessageBinary {
			r.t.Errorf("message %d: %v, want binary: %q", r.frames, typ, data)
		}
		if !bytes.HasSuffix(data, []byte{0, 0, 0xff, 0xff}) {
			r.t.Errorf("message %d does not end with 00 00 ff ff: % x", r.frames, data)
		}
		r.buf = data
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// TestZlibStream: with compress=zlib-stream every frame is a binary
// message, and one zlib reader over all of them inflates the very JSON
// an uncompressed connection gets.
func TestZlibStream(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app, g := appID(t, e), guildID(t, e)

	plain := dial(t, e)
	zc := dialQuery(t, e, "v=10&encoding=json&compress=zlib-stream")
	zf := &zlibFrames{t: t, ws: zc.ws}
	zr, err := zlib.NewReader(zf)
	if err != nil {
		t.Fatalf("zlib header: %v", err)
	}
	dec := json.NewDecoder(zr)
	next := func() (json.RawMessage, wireFrame) {
		t.Helper()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatalf("inflate and decode frame %d: %v", zf.frames, err)
		}
		var f wireFrame
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		return raw, f
	}
	// plainRaw reads the uncompressed connection's next message as sent.
	plainRaw := func() []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		typ, data, err := plain.ws.Read(ctx)
		if err != nil || typ != websocket.MessageText {
			t.Fatalf("plain read: %v %v", typ, err)
		}
		return data
	}

	hello, f := next()
	if f.Op != 10 {
		t.Fatalf("first frame %s, want Hello", hello)
	}
	if want := plainRaw(); string(hello) != string(want) {
		t.Fatalf("inflated Hello %s, plain %s", hello, want)
	}

	zc.send(1, nil) // the client sends plain text
	if _, f := next(); f.Op != 11 {
		t.Fatalf("got %s, want op 11", f)
	}
	zc.send(2, identifyData(e.Bot(), 1))
	plain.send(2, identifyData(e.Bot(), 1))
	if _, f := next(); f.name() != "READY" || f.seq() != 1 {
		t.Fatalf("got %s, want READY", f)
	}
	plainRaw() // READY: its session differs
	gc, f := next()
	if f.name() != "GUILD_CREATE" {
		t.Fatalf("got %s, want GUILD_CREATE", f)
	}
	if want := plainRaw(); string(gc) != string(want) {
		t.Fatalf("inflated GUILD_CREATE %s\nplain %s", gc, want)
	}
	for n := range 3 {
		interaction(e, app, g, n)
		ic, f := next()
		if f.name() != "INTERACTION_CREATE" || f.seq() != int64(3+n) {
			t.Fatalf("got %s, want INTERACTION_CREATE with s %d", ic, 3+n)
		}
		if want := plainRaw(); string(ic) != string(want) {
			t.Fatalf("inflated %s\nplain %s", ic, want)
		}
	}
	if zf.frames != 7 {
		t.Fatalf("%d messages for 7 frames", zf.frames)
	}
	// The close code comes through as usual.
	zc.send(99, nil)
	_, err = io.ReadAll(zr)
	if websocket.CloseStatus(err) != 4001 {
		t.Fatalf("after an unknown op: %v, want close 4001", err)
	}
}

// TestIdentifyCompress: Identify's compress is accepted whatever its JSON
// type (Oceanic.js sends its compress option there, "zlib-stream"); only
// true means payload compression, which slashd does not do either: true
// (discordgo's default) leaves frames text JSON, and so does anything else.
func TestIdentifyCompress(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	for _, tc := range []struct {
		name     string
		compress any
	}{
		{"true", true},
		{"false", false},
		{"Oceanic.js's zlib-stream", "zlib-stream"},
		{"zstd-stream", "zstd-stream"},
		{"null", nil},
		{"a number", 1},
		{"an object", map[string]any{"type": "zlib"}},
		{"a list", []any{true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := dial(t, e)
			c.hello()
			d := identifyData(e.Bot(), 1)
			d["compress"] = tc.compress
			d["large_threshold"] = 250
			c.send(2, d)
			c.ready() // fails on a binary message or a close
			c.dispatch("GUILD_CREATE")
		})
	}
}

// TestIdentifyCompressZlibStream: Oceanic.js's handshake with its
// documented compress: "zlib-stream": compress=zlib-stream in the URL and
// the same string in Identify. The session is established and every frame
// comes through the zlib stream.
func TestIdentifyCompressZlibStream(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	zc := dialQuery(t, e, "v=10&encoding=json&compress=zlib-stream")
	zr, err := zlib.NewReader(&zlibFrames{t: t, ws: zc.ws})
	if err != nil {
		t.Fatalf("zlib header: %v", err)
	}
	dec := json.NewDecoder(zr)
	next := func() wireFrame {
		t.Helper()
		var f wireFrame
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("inflate and decode: %v", err)
		}
		return f
	}
	if f := next(); f.Op != 10 {
		t.Fatalf("first frame %s, want Hello", f)
	}
	d := identifyData(e.Bot(), 1)
	d["compress"] = "zlib-stream"
	zc.send(2, d)
	for _, want := range []string{"READY", "GUILD_CREATE"} {
		if f := next(); f.Op != 0 || f.T == nil || *f.T != want {
			t.Fatalf("got %s, want %s", f, want)
		}
	}
}

// binaryFrames reads a compressed connection's binary messages one after
// the other as one byte stream.
type binaryFrames struct {
	t   *testing.T
	ws  *websocket.Conn
	buf []byte
}

func (r *binaryFrames) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		typ, data, err := r.ws.Read(ctx)
		if err != nil {
			return 0, err
		}
		if typ != websocket.MessageBinary {
			r.t.Errorf("got a %v message, want binary: %q", typ, data)
		}
		r.buf = data
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// TestZstdStream: compress=zstd-stream (disgo's default) sends one zstd
// stream of binary frames that a standard decoder reads message by
// message.
func TestZstdStream(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app, g := appID(t, e), guildID(t, e)
	zc := dialQuery(t, e, "v=10&encoding=json&compress=zstd-stream")
	zr, err := zstd.NewReader(&binaryFrames{t: t, ws: zc.ws}, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dec := json.NewDecoder(zr)
	next := func() wireFrame {
		t.Helper()
		var f wireFrame
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("inflate and decode: %v", err)
		}
		return f
	}
	if f := next(); f.Op != 10 {
		t.Fatalf("first frame %s, want Hello", f)
	}
	zc.send(2, identifyData(e.Bot(), 1))
	if f := next(); f.name() != "READY" {
		t.Fatalf("got %s, want READY", f)
	}
	if f := next(); f.name() != "GUILD_CREATE" {
		t.Fatalf("got %s, want GUILD_CREATE", f)
	}
	interaction(e, app, g, 0)
	if f := next(); f.name() != "INTERACTION_CREATE" || f.seq() != 3 {
		t.Fatalf("got %s, want INTERACTION_CREATE with s 3", f)
	}
}

// TestZlibStreamsShareDeflaters: zlib-stream connections borrow the
// gateway's deflaters one message at a time; each connection's stream
// still inflates, message after message, to exactly what it was sent,
// and a dispatch like the one before compresses to a fraction of the
// first (the frames before are the deflater's dictionary).
func TestZlibStreamsShareDeflaters(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app, g := appID(t, e), guildID(t, e)
	type stream struct {
		c      *client
		frames *zlibFrames
		dec    *json.Decoder
	}
	streams := make([]stream, 4)
	for i := range streams {
		c := dialQuery(t, e, "v=10&encoding=json&compress=zlib-stream")
		zf := &zlibFrames{t: t, ws: c.ws}
		zr, err := zlib.NewReader(zf)
		if err != nil {
			t.Fatalf("zlib header: %v", err)
		}
		streams[i] = stream{c: c, frames: zf, dec: json.NewDecoder(zr)}
	}
	next := func(s stream) wireFrame {
		t.Helper()
		var f wireFrame
		if err := s.dec.Decode(&f); err != nil {
			t.Fatalf("inflate and decode: %v", err)
		}
		return f
	}
	for _, s := range streams {
		if f := next(s); f.Op != 10 {
			t.Fatalf("got %s, want Hello", f)
		}
		s.c.send(2, identifyData(e.Bot(), 0))
		if f := next(s); f.name() != "READY" {
			t.Fatalf("got %s, want READY", f)
		}
	}
	const events = 20
	for n := 1; n <= events; n++ {
		interaction(e, app, g, n)
	}
	for i, s := range streams {
		for n := 1; n <= events; n++ {
			f := next(s)
			var d struct {
				ID int `json:"id"`
			}
			if err := json.Unmarshal(f.D, &d); err != nil || f.name() != "INTERACTION_CREATE" || d.ID != n ||
				f.seq() != int64(n+1) {
				t.Fatalf("connection %d: got %s, want INTERACTION_CREATE %d with s %d", i, f, n, n+1)
			}
		}
		events := s.frames.sizes[2:] // after Hello and READY
		for n, size := range events[1:] {
			if size*2 > events[0] {
				t.Fatalf("connection %d: event %d took %d bytes, the first %d: want less than half", i, n+2, size, events[0])
			}
		}
	}
}
