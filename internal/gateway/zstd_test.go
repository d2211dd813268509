package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// chunkReader hands a decoder the stream one websocket message at a time,
// as a client reading the connection does: when it has no more, Read
// waits for the next message.
type chunkReader struct {
	chunks chan []byte
	buf    []byte
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		c, ok := <-r.chunks
		if !ok {
			return 0, io.EOF
		}
		r.buf = c
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// zstdMessages are messages of the kinds that could trip blocks made
// apart and put in one frame: dispatches alike (matches a long-lived
// encoder would take from the message before), runs at the offsets a
// fresh frame's repeat offsets start at (1, 4, 8), a message of one
// byte repeated (an RLE block), incompressible bytes (a raw block), an
// empty one, and messages over one block (128 KiB), one of them
// repeating itself at a distance inside the window.
func zstdMessages(t testing.TB) [][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	var msgs [][]byte
	for i := range 40 {
		d, err := json.Marshal(map[string]any{"op": 0, "t": "INTERACTION_CREATE", "s": i, "d": map[string]any{
			"id": fmt.Sprint(1234567890123456789 + i), "type": 2, "token": strings.Repeat("x", 64+i),
			"data": map[string]any{"name": "say", "options": []any{map[string]any{"name": "text", "value": i}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, d)
		switch i % 8 {
		case 1:
			msgs = append(msgs, []byte(`{"op":11}`))
		case 2:
			msgs = append(msgs, bytes.Repeat([]byte("a"), 300+i))
		case 3:
			msgs = append(msgs, bytes.Repeat([]byte("abcd"), 200), bytes.Repeat([]byte("abcdefgh"), 200))
		case 4:
			msgs = append(msgs, append(random(50), bytes.Repeat(append(random(8), random(4)...), 40)...))
		case 5:
			msgs = append(msgs, random(2000), []byte{})
		case 6:
			big := append(bytes.Repeat(d, 3000), random(100)...)
			msgs = append(msgs, big, append(random(100<<10), random(60<<10)...))
		case 7:
			r := random(90 << 10)
			msgs = append(msgs, append(append(r, random(60<<10)...), r...)) // the repeat 150 KiB back
		}
	}
	return msgs
}

// TestZstdStreamDecodes: a connection's zstd stream, made of blocks that
// borrowed encoders made message by message, decodes with a standard
// streaming decoder (klauspost/compress, as disgo uses it) to every
// message whole, each as soon as its websocket message is in, not only
// when more comes; while several connections borrow the same encoders.
func TestZstdStreamDecodes(t *testing.T) {
	t.Parallel()
	msgs := zstdMessages(t)
	var pools compressorPools
	var wg sync.WaitGroup
	for conn := range 3 {
		wg.Go(func() {
			z := newCompressor("zstd-stream", &pools)
			chunks := make(chan []byte, len(msgs)) // an empty message's chunk waits for the next read
			zr, err := zstd.NewReader(&chunkReader{chunks: chunks}, zstd.WithDecoderConcurrency(1))
			if err != nil {
				t.Error(err)
				return
			}
			defer zr.Close()
			for i, m := range msgs {
				chunk, err := z.compress(m)
				if err != nil {
					t.Errorf("conn %d message %d: %v", conn, i, err)
					return
				}
				chunks <- chunk
				got := make([]byte, len(m))
				read := make(chan error, 1)
				go func() {
					_, err := io.ReadFull(zr, got)
					read <- err
				}()
				select {
				case err := <-read:
					if err != nil {
						t.Errorf("conn %d message %d (%d bytes): %v", conn, i, len(m), err)
						return
					}
				case <-time.After(30 * time.Second):
					t.Errorf("conn %d message %d (%d bytes): not decoded from its own chunk", conn, i, len(m))
					return
				}
				if !bytes.Equal(got, m) {
					t.Errorf("conn %d message %d: decoded %d bytes unlike the %d sent", conn, i, len(got), len(m))
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestZstdStreamReferenceDecoder: the reference implementation (the
// zstd command) decodes a connection's stream, ended by an empty last
// block, to the messages one after the other.
func TestZstdStreamReferenceDecoder(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("no zstd command")
	}
	msgs := zstdMessages(t)
	z := newCompressor("zstd-stream", &compressorPools{})
	var stream, want bytes.Buffer
	for i, m := range msgs {
		chunk, err := z.compress(m)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		stream.Write(chunk)
		want.Write(m)
	}
	stream.Write([]byte{1, 0, 0}) // an empty raw block, the last
	cmd := exec.Command(bin, "-d", "-c", "-q")
	cmd.Stdin = &stream
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("zstd -d: %v: %s", err, stderr.Bytes())
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("zstd -d gave %d bytes, want the %d sent", len(got), want.Len())
	}
}

// FuzzZstdStream: any messages, cut from the fuzzer's bytes, decode from
// one connection's stream as they were.
func FuzzZstdStream(f *testing.F) {
	f.Add([]byte(`{"op":10}|{"op":11}|aaaaaaaaaaaaaaaaaaaaaaaa|abcdabcdabcdabcdabcd||{"op":0,"t":"READY"}`), byte('|'))
	f.Add(bytes.Repeat([]byte("abcdefgh12345678"), 100), byte('8'))
	var pools compressorPools
	f.Fuzz(func(t *testing.T, data []byte, sep byte) {
		msgs := bytes.Split(data, []byte{sep})
		z := newCompressor("zstd-stream", &pools)
		var stream, want bytes.Buffer
		for i, m := range msgs {
			chunk, err := z.compress(m)
			if err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
			stream.Write(chunk)
			want.Write(m)
		}
		stream.Write([]byte{1, 0, 0})
		zr, err := zstd.NewReader(&stream, zstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("decoded %q, want %q", got, want.Bytes())
		}
	})
}

// BenchmarkCompress: the cost of one dispatch like the one before on a
// connection that has been sent a few, for each transport compression
// (the encoder or deflater borrowed, primed with the frames before).
func BenchmarkCompress(b *testing.B) {
	for _, name := range []string{"zlib-stream", "zstd-stream"} {
		b.Run(name, func(b *testing.B) {
			var pools compressorPools
			c := newCompressor(name, &pools)
			var out int
			for i := range 3 {
				if _, err := c.compress(dispatchLike(b, i)); err != nil {
					b.Fatal(err)
				}
			}
			f := dispatchLike(b, 3)
			b.ReportAllocs()
			for b.Loop() {
				chunk, err := c.compress(f)
				if err != nil {
					b.Fatal(err)
				}
				out = len(chunk)
			}
			b.ReportMetric(float64(out), "bytes/msg")
		})
	}
}

// dispatchLike is an INTERACTION_CREATE much like those before and after.
func dispatchLike(t testing.TB, i int) []byte {
	d, err := json.Marshal(map[string]any{"op": 0, "t": "INTERACTION_CREATE", "s": i, "d": map[string]any{
		"id": fmt.Sprint(1334567890123456789 + i*7919), "type": 2, "token": fmt.Sprintf("%064d", i*104729),
		"application_id": "1100000000000000001", "guild_id": "1200000000000000002", "version": 1,
		"member": map[string]any{"user": map[string]any{"id": "1400000000000000004", "username": "someone"}},
		"data":   map[string]any{"id": "1500000000000000005", "name": "say", "type": 1, "options": []any{map[string]any{"name": "text", "type": 3, "value": fmt.Sprint("hello ", i)}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestZstdStreamPrimed: an encoder borrowed for a message is primed with
// the frames before, as a long-lived one would have them: a dispatch
// like the one before compresses to a fraction of the first, and of what
// it takes on its own.
func TestZstdStreamPrimed(t *testing.T) {
	t.Parallel()
	z := newCompressor("zstd-stream", &compressorPools{})
	alone := newCompressor("zstd-stream", &compressorPools{})
	first, err := z.compress(dispatchLike(t, 0))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		if _, err := z.compress([]byte(`{"op":11}`)); err != nil {
			t.Fatal(err)
		}
		f := dispatchLike(t, i)
		next, err := z.compress(f)
		if err != nil {
			t.Fatal(err)
		}
		own, err := alone.compress(f)
		if err != nil {
			t.Fatal(err)
		}
		alone = newCompressor("zstd-stream", &compressorPools{})
		if len(next)*4 > len(first) || len(next)*4 > len(own) {
			t.Fatalf("dispatch %d: %d bytes after one of %d; %d on its own", i, len(next), len(first), len(own))
		}
	}
}

// A fan-out compresses on one flush goroutine per connection; however
// many compress at once, no more compressors are lent than maxLent, so
// the pools (a zstd encoder is about 1 MB) stay that small.
func TestCompressorsLentAreBounded(t *testing.T) {
	var pools compressorPools
	msg := []byte(`{"t":"INTERACTION_CREATE","s":1,"op":0,"d":{"id":"1234567890","type":2,"data":{"name":"ping"}}}`)
	var wg sync.WaitGroup
	for i := range 64 {
		name := "zstd-stream"
		if i%2 == 1 {
			name = "zlib-stream"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newCompressor(name, &pools)
			for range 20 {
				if _, err := c.compress(msg); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if peak := int(pools.peak.Load()); peak > maxLent() || peak < 1 {
		t.Fatalf("%d compressors lent at once, want 1 to %d", peak, maxLent())
	}
	if n := pools.lent.Load(); n != 0 {
		t.Fatalf("%d compressors still lent after every compression returned", n)
	}
}
