package gateway

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
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
// deflated by a deflater the connection borrows from the gateway for
// each message: a deflater holds hundreds of KiB of tables, which kept
// per connection would be most of what a session costs. A deflate stream
// may go on with a fresh deflater after any sync flush (which leaves it
// byte-aligned), and it stays one valid zlib stream for any inflater.
// The fresh deflater is primed with the connection's last two frames as
// its dictionary: they are the last bytes the client inflated, so
// matches may reach into them, and a dispatch like the one before
// compresses about as well as in one long-lived deflater (frames are
// never changed once made, and a dispatch's is in the session's buffer
// anyway, so keeping them costs little). A message under about 128
// bytes (an ACK) is stored or Huffman-coded whatever the dictionary.
type zlibStream struct {
	deflaters *sync.Pool // of *flate.Writer at deflateLevel
	started   bool       // the zlib header is out
	last      [2][]byte  // the last two frames compressed, older first
}

// deflateLevel is one of the fast levels, whose reset is cheap.
const deflateLevel = flate.BestSpeed

// zlibHeader starts the stream: deflate with a 32 KiB window, "fastest"
// (CMF 0x78, FLG 0x01: a multiple of 31 together).
var zlibHeader = []byte{0x78, 0x01}

// maxDictionary is deflate's window: matches reach no further back.
const maxDictionary = 32 << 10

// compress ends each message with a sync flush (00 00 ff ff), the marker
// clients look for. The stream is never closed, so the Adler-32 trailer
// never comes, as on the real gateway.
func (z *zlibStream) compress(f []byte) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(f)/2 + 64)
	if !z.started {
		out.Write(zlibHeader)
	}
	dict := z.last[1]
	if len(z.last[0]) > 0 && len(dict) < maxDictionary {
		dict = append(append(make([]byte, 0, len(z.last[0])+len(dict)), z.last[0]...), dict...)
	}
	if len(dict) > maxDictionary {
		dict = dict[len(dict)-maxDictionary:]
	}
	w, _ := z.deflaters.Get().(*flate.Writer)
	if w == nil {
		var err error
		if w, err = flate.NewWriter(&out, deflateLevel); err != nil {
			return nil, fmt.Errorf("deflater: %w", err)
		}
	}
	w.ResetDict(&out, dict)
	defer func() {
		w.ResetDict(io.Discard, nil) // keeps neither out nor the dictionary
		z.deflaters.Put(w)
	}()
	if _, err := w.Write(f); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	z.started = true
	z.last = [2][]byte{z.last[1], f}
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
