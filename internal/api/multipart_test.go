package api

import (
	"bytes"
	"errors"
	"mime/multipart"
	"net/http/httptest"
	"net/textproto"
	"strconv"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
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
		{"cut inside a file", full[:bytes.Index(full, []byte("abc"))+2], boundary, "", errInvalidJSON},
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
				got = append(got, strings.Join([]string{strconv.Itoa(u.Index), u.Filename, strconv.FormatInt(u.Size, 10)}, ":"))
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

// A callback's body over the server's limit is 413, not a broken form.
func TestReadMultipartTooLarge(t *testing.T) {
	t.Parallel()
	body, boundary := formBody(t, [3]string{"payload_json", "", `{"content":"x"}`}, [3]string{"files[0]", "big.bin", strings.Repeat("x", 4096)})
	s := &Server{cfg: Config{MaxBodyBytes: 1024}}
	r := httptest.NewRequest("POST", "/", bytes.NewReader(body))
	r.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	if _, _, err := s.readPayload(httptest.NewRecorder(), r); !errors.Is(err, errTooLarge) {
		t.Fatalf("error %v, want %v", err, errTooLarge)
	}
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
			if u.Index < 0 || u.Size < 0 || u.Filename == "" {
				t.Fatalf("upload %+v", u)
			}
			total += u.Size
		}
		if total > int64(len(body)) {
			t.Fatalf("files of %d bytes in a body of %d", total, len(body))
		}
	})
}
