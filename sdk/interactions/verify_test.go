package interactions

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const pingBody = `{"id":"1","application_id":"2","type":1,"token":"t","version":1}`

func TestVerifyAccepts(t *testing.T) {
	k := newKey(t)
	r := k.request(pingBody)
	body, ok := Verify(k.hex, r)
	if !ok || string(body) != pingBody {
		t.Fatalf("Verify = %q, %v", body, ok)
	}
	// The body can be read again.
	again, _ := io.ReadAll(r.Body)
	if string(again) != pingBody {
		t.Fatalf("body after Verify = %q", again)
	}
	// Upper-case hex key and signature are accepted too.
	r = k.request(pingBody)
	r.Header.Set(HeaderSignature, strings.ToUpper(r.Header.Get(HeaderSignature)))
	if _, ok := Verify(strings.ToUpper(k.hex), r); !ok {
		t.Fatal("upper-case hex refused")
	}
}

func TestSignMatchesService(t *testing.T) {
	k := newKey(t)
	if got, want := Sign(k.priv, "123", []byte(pingBody)), k.sign("123", pingBody); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

func TestVerifyRejects(t *testing.T) {
	k := newKey(t)
	other := newKey(t)
	cases := []struct {
		name  string
		key   string
		edit  func(r *http.Request) *http.Request
		cause error
	}{
		{"tampered body", k.hex, func(r *http.Request) *http.Request {
			r2 := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Replace(pingBody, `"type":1`, `"type":2`, 1)))
			r2.Header = r.Header
			return r2
		}, nil},
		{"tampered timestamp", k.hex, func(r *http.Request) *http.Request {
			r.Header.Set(HeaderTimestamp, "1700000001")
			return r
		}, nil},
		{"tampered signature", k.hex, func(r *http.Request) *http.Request {
			s := []byte(r.Header.Get(HeaderSignature))
			if s[0] == '0' {
				s[0] = '1'
			} else {
				s[0] = '0'
			}
			r.Header.Set(HeaderSignature, string(s))
			return r
		}, nil},
		{"other key", other.hex, func(r *http.Request) *http.Request { return r }, nil},
		{"missing signature", k.hex, func(r *http.Request) *http.Request {
			r.Header.Del(HeaderSignature)
			return r
		}, ErrMissingSignature},
		{"missing timestamp", k.hex, func(r *http.Request) *http.Request {
			r.Header.Del(HeaderTimestamp)
			return r
		}, ErrMissingSignature},
		{"malformed hex", k.hex, func(r *http.Request) *http.Request {
			r.Header.Set(HeaderSignature, "zz"+r.Header.Get(HeaderSignature)[2:])
			return r
		}, ErrMalformedSignature},
		{"short signature", k.hex, func(r *http.Request) *http.Request {
			r.Header.Set(HeaderSignature, r.Header.Get(HeaderSignature)[:126])
			return r
		}, ErrMalformedSignature},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if body, ok := Verify(c.key, c.edit(k.request(pingBody))); ok || body != nil {
				t.Fatalf("Verify = %q, %v; want refusal", body, ok)
			}
			key, err := ParsePublicKey(c.key)
			if err != nil {
				t.Fatal(err)
			}
			_, err = VerifyRequest(key, c.edit(k.request(pingBody)))
			if !errors.Is(err, ErrInvalidSignature) {
				t.Fatalf("err = %v, want ErrInvalidSignature", err)
			}
			if c.cause != nil && !errors.Is(err, c.cause) {
				t.Fatalf("err = %v, want %v", err, c.cause)
			}
		})
	}
}

func TestVerifyBadPublicKey(t *testing.T) {
	k := newKey(t)
	for _, key := range []string{"", "xyz", k.hex[:62], k.hex + "00"} {
		if _, ok := Verify(key, k.request(pingBody)); ok {
			t.Errorf("Verify with key %q accepted", key)
		}
		if _, err := ParsePublicKey(key); !errors.Is(err, ErrInvalidPublicKey) {
			t.Errorf("ParsePublicKey(%q) = %v", key, err)
		}
	}
}

func TestVerifyBodyTooLarge(t *testing.T) {
	k := newKey(t)
	big := strings.Repeat("x", MaxBodyBytes+1)
	_, err := VerifyRequest(k.pub, k.request(big))
	if !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("err = %v", err)
	}
}
