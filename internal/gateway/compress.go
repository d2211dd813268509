package gateway

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Transport compression as the real gateway does it: one stream per
// connection (?compress=zlib-stream or zstd-stream), each message
// flushed into one binary frame, so that a client inflating the frames
// in order gets every message whole.

// compressor turns each frame into the next chunk of the connection's
// stream (only the connection's one flusher at a time uses it).
type compressor interface {
	compress(frame []byte) ([]byte, error)
}

// newCompressor returns the compressor a ?compress= value asks for, nil
// for none (unknown values are ignored: frames go uncompressed).
// zlib-stream connections share deflaters (see zlibStream).
func newCompressor(name string, deflaters *sync.Pool) (compressor, error) {
	switch name {
	case "zlib-stream":
		return &zlibStream{deflaters: deflaters}, nil
	case "zstd-stream":
		z := &zstdStream{}
		// A small window keeps each connection's encoder small; the
		// stream stays valid for any standard decoder.
		enc, err := zstd.NewWriter(&z.buf, zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true),
			zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(1<<17))
		if err != nil {
			return nil, fmt.Errorf("zstd encoder: %w", err)
		}
		z.enc = enc
		return z, nil
	}
	return nil, nil
}

// zlibStream is one zlib stream per connection, as clients read it,
// whose messages are each deflated on their own: a deflater holds some
// 800 KiB (its hash tables), which kept per connection would be most of
// what a session costs, so the connection borrows one of the gateway's
// for each message. A deflate stream may go on with blocks that refer
// to nothing before them, and a sync flush leaves it byte-aligned, so
// the stream stays one valid zlib stream for any inflater; what it
// loses is matches across messages. BestSpeed, because resetting a
// deflater at the other levels clears its tables (some 640 KiB) each
// time.
type zlibStream struct {
	deflaters *sync.Pool // of *flate.Writer at BestSpeed
	started   bool       // the zlib header is out
}

// zlibHeader starts the stream: deflate with a 32 KiB window, "fastest"
// (CMF 0x78, FLG 0x01: a multiple of 31 together).
var zlibHeader = []byte{0x78, 0x01}

// compress ends each message with a sync flush (00 00 ff ff), the marker
// clients look for. The stream is never closed, so the Adler-32 trailer
// never comes, as on the real gateway.
func (z *zlibStream) compress(f []byte) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(f)/2 + 64)
	if !z.started {
		out.Write(zlibHeader)
	}
	w, _ := z.deflaters.Get().(*flate.Writer)
	if w == nil {
		var err error
		if w, err = flate.NewWriter(&out, flate.BestSpeed); err != nil {
			return nil, fmt.Errorf("deflater: %w", err)
		}
	} else {
		w.Reset(&out)
	}
	defer func() {
		w.Reset(io.Discard) // not to keep out
		z.deflaters.Put(w)
	}()
	if _, err := w.Write(f); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	z.started = true
	return out.Bytes(), nil
}

type zstdStream struct {
	enc *zstd.Encoder
	buf bytes.Buffer
}

func (z *zstdStream) compress(f []byte) ([]byte, error) {
	z.buf.Reset()
	if _, err := z.enc.Write(f); err != nil {
		return nil, err
	}
	if err := z.enc.Flush(); err != nil {
		return nil, err
	}
	return z.buf.Bytes(), nil
}
