package gateway

import (
	"bytes"
	"compress/zlib"
	"fmt"

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
func newCompressor(name string) (compressor, error) {
	switch name {
	case "zlib-stream":
		z := &zlibStream{}
		z.w = zlib.NewWriter(&z.buf)
		return z, nil
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

type zlibStream struct {
	w   *zlib.Writer
	buf bytes.Buffer
}

// compress ends each message with a sync flush (00 00 ff ff), the marker
// clients look for.
func (z *zlibStream) compress(f []byte) ([]byte, error) {
	z.buf.Reset()
	if _, err := z.w.Write(f); err != nil {
		return nil, err
	}
	if err := z.w.Flush(); err != nil {
		return nil, err
	}
	return z.buf.Bytes(), nil
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
