package api_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// served is a file as slashd served it.
type served struct {
	status int
	header http.Header
	body   []byte
}

// fetchFile GETs a file's link (no Authorization, as a browser or a
// test does) and checks the status.
func fetchFile(t testing.TB, e *testenv.Env, link string, status int) served {
	t.Helper()
	resp, err := e.Server.Client().Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != status {
		t.Fatalf("GET %s: %d %s, want %d", link, resp.StatusCode, body, status)
	}
	return served{status: resp.StatusCode, header: resp.Header, body: body}
}

// upload is one files[n] part.
type upload struct {
	field, name string
	data        []byte
}

// sendFiles sends payload_json and files as a multipart body.
func sendFiles(t testing.TB, e *testenv.Env, method, path, auth, payload string, files ...upload) testenv.Response {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	if payload != "" {
		if err := mw.WriteField("payload_json", payload); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, f.field, f.name))
		h.Set("Content-Type", "application/octet-stream")
		pw, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write(f.data)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	headers := map[string]string{"Content-Type": mw.FormDataContentType()}
	if auth != "" {
		headers["Authorization"] = auth
	}
	return send(t, e, method, path, headers, b.Bytes())
}

// pngOf is a w×h PNG.
func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, 0, color.RGBA{R: uint8(x), A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
