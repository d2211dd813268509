package api

import (
	"bytes"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http/httptest"
	"net/textproto"
	"strconv"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/webhook"
)

// formBody builds a multipart body: its parts are (name, filename, content)
// triples, filename "" for a plain field.
func formBody(t testing.TB, parts ...[3]string) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		disp := `form-data; name="` + p[0] + `"`
		if p[1] != "" {
			disp += `; filename="` + p[1] + `"`
			h.Set("Content-Type", "text/plain")
		}
		h.Set("Content-Disposition", disp)
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(p[2]))
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), mw.Boundary()
}

// The multipart reader of callbacks and of endpoints' inline answers.
func TestReadMultipart(t *testing.T) {
	t.Parallel()
	payload := [3]string{"payload_json", "", `{"type":4,"data":{"content":"hi"}}`}
	full, boundary := formBody(t, payload, [3]string{"files[2]", "a.txt", "abc"}, [3]string{"other", "b.txt", "de"},
		[3]string{"ignored", "", "text"})
	missing, missingBoundary := formBody(t, [3]string{"files[0]", "a.txt", "abc"})
	badJSON, badJSONBoundary := formBody(t, [3]string{"payload_json", "", `{"type":`})
	// slash-create's MultipartData as its servers answer with files: a
	// CRLF before each delimiter, files first, payload_json a plain
	// field, no CRLF after the close delimiter.
	const sc = "----------------SlashCreate"
	slashCreate := []byte("\r\n--" + sc + "\r\nContent-Disposition: form-data; name=\"files[0]\"; filename=\"a.txt\"\r\n" +
		"Content-Type: application/octet-stream\r\n\r\nabc" +
		"\r\n--" + sc + "\r\nContent-Disposition: form-data; name=\"payload_json\"\r\n\r\n" + `{"type":4,"data":{"content":"hi"}}` +
		"\r\n--" + sc + "--")
	cases := []struct {
		name     string
		body     []byte
		boundary string
		uploads  string // index:filename:size, comma-separated
		err      error
	}{
		{"payload and files", full, boundary, "2:a.txt:3,1:b.txt:2", nil},
		{"slash-create's form", slashCreate, sc, "0:a.txt:3", nil},
		{"no payload_json", missing, missingBoundary, "", apierr.Invalid("BASE_TYPE_REQUIRED", "This field is required", "payload_json")},
		{"payload_json not JSON", badJSON, badJSONBoundary, "", errInvalidJSON},
		{"no boundary", full, "", "", errInvalidJSON},
		{"another boundary: no parts", full, "elsewhere", "", apierr.Invalid("BASE_TYPE_REQUIRED", "This field is required", "payload_json")},
		{"cut inside a file", full[:bytes.Index(full, []byte("\r\n\r\nabc"))+6], boundary, "", errInvalidJSON},
		{"cut inside payload_json", full[:bytes.Index(full, []byte(`"content"`))], boundary, "", errInvalidJSON},
		{"empty", nil, boundary, "", apierr.Invalid("BASE_TYPE_REQUIRED", "This field is required", "payload_json")},
		{"no delimiter at all", []byte("garbage"), boundary, "", apierr.Invalid("BASE_TYPE_REQUIRED", "This field is required", "payload_json")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, uploads, err := readMultipart(bytes.NewReader(c.body), c.boundary)
			if c.err != nil {
				var want, got *apierr.Error
				if !errors.As(err, &got) || !errors.As(c.err, &want) || got.Code != want.Code || got.Status != want.Status {
					t.Fatalf("error %v, want %v", err, c.err)
				}
				return
			}
			if err != nil || v == nil {
				t.Fatalf("%v, %v", v, err)
			}
			var got []string
			for _, u := range uploads {
				got = append(got, strings.Join([]string{strconv.Itoa(u.Index), u.Filename, strconv.Itoa(len(u.Data))}, ":"))
			}
			if strings.Join(got, ",") != c.uploads {
				t.Fatalf("uploads %v, want %s", got, c.uploads)
			}
			// An endpoint's inline answer with that form reads the same.
			iv, iu, ierr := inlineAnswer(webhook.Response{Body: c.body, Multipart: "multipart/form-data; boundary=" + c.boundary})
			if ierr != nil || len(iu) != len(uploads) || iv == nil {
				t.Fatalf("inline: %v %v %v", iv, iu, ierr)
			}
		})
	}
}

// A message body is bounded as the real service bounds it: 25 MiB in
// all (413 40005), 10 MiB a file (413 40005, as soon as one is read past
// it), 10 files (30015); the JSON body cap does not apply to files.
func TestReadMultipartLimits(t *testing.T) {
	t.Parallel()
	file := func(n, size int) [3]string {
		return [3]string{fmt.Sprintf("files[%d]", n), fmt.Sprintf("f%d.bin", n), strings.Repeat("x", size)}
	}
	payload := [3]string{"payload_json", "", `{"content":"x"}`}
	const mib = 1 << 20
	cases := []struct {
		name  string
		parts [][3]string
		want  error // nil: read
	}{
		{"files above the JSON cap", [][3]string{payload, file(0, 2*mib)}, nil},
		{"a file of 10 MiB", [][3]string{payload, file(0, 10*mib)}, nil},
		{"a file over 10 MiB", [][3]string{payload, file(0, 10*mib+1)}, interaction.ErrFileTooLarge},
		{"a request over 25 MiB", [][3]string{payload, file(0, 9*mib), file(1, 9*mib), file(2, 9*mib)}, errTooLarge},
		{"ten files", append([][3]string{payload}, tenFiles(file, 10)...), nil},
		{"eleven files", append([][3]string{payload}, tenFiles(file, 11)...), interaction.ErrTooManyFiles},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body, boundary := formBody(t, c.parts...)
			s := &Server{cfg: Config{MaxBodyBytes: 1024}}
			r := httptest.NewRequest("POST", "/", bytes.NewReader(body))
			r.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
			_, uploads, err := s.readPayload(httptest.NewRecorder(), r)
			if c.want == nil {
				if err != nil || len(uploads) != len(c.parts)-1 {
					t.Fatalf("%d uploads, %v; want %d", len(uploads), err, len(c.parts)-1)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
		})
	}
}

func tenFiles(file func(n, size int) [3]string, n int) [][3]string {
	out := make([][3]string, n)
	for i := range out {
		out[i] = file(i, 3)
	}
	return out
}

// FuzzReadMultipart: any body and boundary are read without panicking;
// what fails is one of the API's errors, and what is read has a payload
// and files of sizes that add up to no more than the body.
func FuzzReadMultipart(f *testing.F) {
	full, boundary := formBody(f, [3]string{"payload_json", "", `{"type":4,"data":{"content":"hi"}}`}, [3]string{"files[0]", "a.txt", "abc"})
	f.Add(full, boundary)
	f.Add(full[:len(full)/2], boundary)
	f.Add([]byte("--x\r\nContent-Disposition: form-data; name=\"payload_json\"\r\n\r\n{}\r\n--x--\r\n"), "x")
	f.Add([]byte{}, "")
	f.Fuzz(func(t *testing.T, body []byte, boundary string) {
		v, uploads, err := readMultipart(bytes.NewReader(body), boundary)
		if err != nil {
			var ae *apierr.Error
			if !errors.As(err, &ae) || v != nil || uploads != nil {
				t.Fatalf("error %T %v with %v, %v", err, err, v, uploads)
			}
			return
		}
		if v == nil {
			t.Fatal("read without a payload")
		}
		var total int64
		for _, u := range uploads {
			if u.Index < 0 || u.Filename == "" {
				t.Fatalf("upload %+v", u)
			}
			total += int64(len(u.Data))
		}
		if total > int64(len(body)) {
			t.Fatalf("files of %d bytes in a body of %d", total, len(body))
		}
	})
}
