package api_test

import (
	"bytes"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testenv"
)

// BenchmarkFileServe fetches a stored 1 MiB file through slashd (the
// signature checked, the file read from the SQLite store, served with
// http.ServeContent) beside the baseline of a plain net/http handler
// serving the same bytes from memory with http.ServeContent, both over
// loopback HTTP in the same run.
func BenchmarkFileServe(b *testing.B) {
	e := testenv.New(b)
	w := newGatewayWorld(b, e)
	data := make([]byte, 1<<20)
	_, _ = rand.Read(data)
	r := sendFiles(b, e, "POST", "/api/v10/channels/"+w.channel+"/messages", w.aliceTok, `{"content":"bench"}`,
		upload{"files[0]", "bench.bin", data})
	if r.Status != http.StatusOK {
		b.Fatalf("upload: %s", describe(r))
	}
	link := str(attachmentsOf(b, decodeObj(b, r))[0], "url")

	baseline := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	}))
	b.Cleanup(baseline.Close)

	fetch := func(b *testing.B, client *http.Client, url string) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			resp, err := client.Get(url)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || n != int64(len(data)) || resp.StatusCode != http.StatusOK {
				b.Fatalf("%d: %d bytes, %v", resp.StatusCode, n, err)
			}
		}
	}
	b.Run("slashd", func(b *testing.B) { fetch(b, e.Server.Client(), link) })
	b.Run("baseline", func(b *testing.B) { fetch(b, baseline.Client(), baseline.URL+"/bench.bin") })
}
