package gateway

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

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

// compressorPools holds what a gateway's connections borrow to compress
// one message at a time, so that an idle connection holds no compressor.
type compressorPools struct {
	deflaters sync.Pool // of *flate.Writer at deflateLevel (zlibStream)
	zstd      sync.Pool // of *zstdEncoder (zstdStream)
	// slots bounds the compressors lent at once (a zstd encoder is
	// about 1 MB): a fan-out to thousands of connections compresses on
	// as many flush goroutines, but only this many at a time hold one,
	// so the pools never grow past it.
	slotsOnce sync.Once
	slots     chan struct{}
	lent      atomic.Int32 // compressors out now
	peak      atomic.Int32 // the most out at once (for tests)
}

// lend takes a slot for one compression; giveBack returns it.
func (p *compressorPools) lend() {
	p.slotsOnce.Do(func() { p.slots = make(chan struct{}, maxLent()) })
	p.slots <- struct{}{}
	n := p.lent.Add(1)
	for {
		peak := p.peak.Load()
		if n <= peak || p.peak.CompareAndSwap(peak, n) {
			return
		}
	}
}

func (p *compressorPools) giveBack() {
	p.lent.Add(-1)
	<-p.slots
}

// maxLent is how many compressors may be out at once: a few per CPU,
// since compressing never blocks.
func maxLent() int { return 2 * runtime.GOMAXPROCS(0) }

// newCompressor returns the compressor a ?compress= value asks for, nil
// for none (unknown values are ignored: frames go uncompressed).
func newCompressor(name string, pools *compressorPools) compressor {
	switch name {
	case "zlib-stream":
		return &zlibStream{pools: pools}
	case "zstd-stream":
		return &zstdStream{pools: pools}
	}
	return nil
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
	pools   *compressorPools // deflaters: *flate.Writer at deflateLevel
	started bool             // the zlib header is out
	last    [2][]byte        // the last two frames compressed, older first
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
	z.pools.lend()
	defer z.pools.giveBack()
	w, _ := z.pools.deflaters.Get().(*flate.Writer)
	if w == nil {
		var err error
		if w, err = flate.NewWriter(&out, deflateLevel); err != nil {
			return nil, fmt.Errorf("deflater: %w", err)
		}
	}
	w.ResetDict(&out, dict)
	defer func() {
		w.ResetDict(io.Discard, nil) // keeps neither out nor the dictionary
		z.pools.deflaters.Put(w)
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

// zstdStream is one zstd frame per connection that never ends, as
// clients read it (one decoder context for the connection's life; a
// message does not end the frame): the frame header once, then each
// message as blocks of its own, none marked last. A zstd encoder holds
// hundreds of KiB, so rather than keep one per connection (most of what
// a session would cost), each message is compressed with EncodeAll by
// an encoder borrowed from the gateway, and the blocks of the frame that
// makes go into the connection's frame. That is valid zstd because the
// blocks a fresh encoder makes stand on their own: they define their
// own Huffman and FSE tables (a frame's first block cannot repeat
// earlier ones), and use none of the repeat offsets a decoder carries
// from earlier blocks (klauspost/compress's encoders use no repeat
// offset before a block's fourth sequence, by which time the block has
// set all three itself; its own concurrent encoder puts independently
// made blocks into one frame the same way). Their matches may reach
// back into the encoder's raw dictionary, which is the connection's last
// two frames, as for zlibStream: the last bytes the client decoded, in
// its window (matches stay under it), so a dispatch like the one before
// compresses as well as in a long-lived encoder. Priming costs a table
// rebuild per message (about 15 µs), so a frame under
// zstdMinCompressed bytes (a heartbeat ACK) goes as a raw block instead.
type zstdStream struct {
	pools   *compressorPools // zstd: *zstdEncoder
	started bool             // the frame header is out
	last    [2][]byte        // the last two frames compressed, older first
}

// zstdEncoder is a pooled encoder with the scratch its frames go into.
type zstdEncoder struct {
	enc     *zstd.Encoder
	scratch []byte
}

// zstdWindowLog: the stream's window is 128 KiB, the largest block a
// decoder takes, and the encoder's too, so that no match of a message
// over one block reaches further than the stream's window.
const zstdWindowLog = 17

// zstdMaxDictionary is as much of the frames before as a message's
// matches may reach into: the encoder's matches stay under the window,
// and this leaves a message of up to 64 KiB the whole of it.
const zstdMaxDictionary = 64 << 10

// zstdMinCompressed: a shorter frame (a heartbeat ACK) goes as a raw
// block, which is what an encoder makes of it anyway.
const zstdMinCompressed = 32

// zstdScratchKept: a pooled encoder keeps a scratch buffer this large at
// most (a frame of a large message is let go).
const zstdScratchKept = 64 << 10

// zstdFrameHeader starts the connection's frame: the magic number, a
// frame header descriptor with no content size, no checksum, no
// dictionary and not single-segment (so a window descriptor follows),
// and the window descriptor for 1<<zstdWindowLog (exponent
// zstdWindowLog-10, mantissa 0). RFC 8878 section 3.1.1.1.
var zstdFrameHeader = []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, (zstdWindowLog - 10) << 3}

func newZstdEncoder() (*zstdEncoder, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithWindowSize(1<<zstdWindowLog), zstd.WithEncoderCRC(false), zstd.WithLowerEncoderMem(true))
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	return &zstdEncoder{enc: enc}, nil
}

func (z *zstdStream) compress(f []byte) ([]byte, error) {
	out := make([]byte, 0, len(zstdFrameHeader)+3+len(f)/2)
	if !z.started {
		out = append(out, zstdFrameHeader...)
	}
	start := len(out)
	if len(f) < zstdMinCompressed {
		// A raw block, as an encoder would make it: no borrowing.
		out = append(out, byte(len(f)<<3)|1, byte(len(f)>>5), byte(len(f)>>13))
		out = append(out, f...)
	} else {
		var err error
		if out, err = z.encode(out, f); err != nil {
			return nil, err
		}
	}
	// Clear the last-block flag of the message's last block: the
	// connection's frame goes on.
	for b := out[start:]; len(b) > 0; {
		size := zstdBlockLen(b)
		if size == len(b) {
			b[0] &^= 1
		}
		b = b[size:]
	}
	z.started = true
	z.last = [2][]byte{z.last[1], f}
	return out, nil
}

// encode appends to dst f compressed by a borrowed encoder primed with
// the frames before: the blocks of a frame, the last marked so.
func (z *zstdStream) encode(dst, f []byte) ([]byte, error) {
	z.pools.lend()
	defer z.pools.giveBack()
	e, _ := z.pools.zstd.Get().(*zstdEncoder)
	if e == nil {
		var err error
		if e, err = newZstdEncoder(); err != nil {
			return nil, err
		}
	}
	defer func() {
		if cap(e.scratch) > zstdScratchKept {
			e.scratch = nil
		}
		z.pools.zstd.Put(e)
	}()
	dict := z.last[1]
	if len(z.last[0]) > 0 && len(dict) < zstdMaxDictionary {
		dict = append(append(make([]byte, 0, len(z.last[0])+len(dict)), z.last[0]...), dict...)
	}
	if len(dict) > zstdMaxDictionary {
		dict = dict[len(dict)-zstdMaxDictionary:]
	}
	// Always a dictionary, if empty: an encoder that changes between
	// having one and not is made anew.
	if err := e.enc.ResetWithOptions(nil, zstd.WithEncoderDictRaw(1, dict)); err != nil {
		return nil, fmt.Errorf("zstd dictionary: %w", err)
	}
	e.scratch = e.enc.EncodeAll(f, e.scratch[:0])
	blocks, err := zstdBlocks(e.scratch)
	if err != nil {
		return nil, err
	}
	return append(dst, blocks...), nil
}

// zstdBlocks returns the blocks of the one zstd frame in frame (as
// EncodeAll makes it: nothing after the last block, no checksum), past
// the frame header. RFC 8878 section 3.1.1.
func zstdBlocks(frame []byte) ([]byte, error) {
	if len(frame) == 0 {
		return nil, nil
	}
	if len(frame) < 5 || !bytes.Equal(frame[:4], zstdFrameHeader[:4]) {
		return nil, fmt.Errorf("zstd: no frame header in % x", frame[:min(len(frame), 8)])
	}
	fhd := frame[4]
	n := 5
	single := fhd&0x20 != 0
	if !single {
		n++ // window descriptor
	}
	n += [4]int{0, 1, 2, 4}[fhd&3] // dictionary ID
	switch fcs := fhd >> 6; {
	case fcs == 0 && single:
		n++
	case fcs > 0:
		n += 1 << fcs
	}
	if fhd&0x04 != 0 {
		return nil, fmt.Errorf("zstd: the encoder wrote a checksum")
	}
	if n > len(frame) {
		return nil, fmt.Errorf("zstd: frame header of %d bytes in %d", n, len(frame))
	}
	blocks := frame[n:]
	// Check the blocks end the frame exactly, the last one marked last.
	for b := blocks; ; {
		if len(b) < 3 {
			return nil, fmt.Errorf("zstd: truncated block header")
		}
		size := zstdBlockLen(b)
		if size > len(b) {
			return nil, fmt.Errorf("zstd: block of %d bytes in %d", size, len(b))
		}
		if b[0]&1 != 0 { // last block
			if size != len(b) {
				return nil, fmt.Errorf("zstd: %d bytes after the last block", len(b)-size)
			}
			return blocks, nil
		}
		b = b[size:]
	}
}

// zstdBlockLen is the length of the block b starts with, its 3-byte
// header included: a block header is little-endian, bit 0 the last-block
// flag, bits 1-2 the type (raw, RLE, compressed), bits 3-23 the size,
// which for an RLE block is that of its content, one byte stored.
func zstdBlockLen(b []byte) int {
	h := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
	size := int(h >> 3)
	if (h>>1)&3 == 1 { // RLE
		size = 1
	}
	return 3 + size
}
