package interactions

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type testKey struct {
	pub  ed25519.PublicKey
	priv ed25519.PrivateKey
	hex  string
}

func newKey(t *testing.T) testKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{pub: pub, priv: priv, hex: hex.EncodeToString(pub)}
}

// sign computes the headers as the service does: a hex Ed25519 signature
// over the timestamp bytes followed by the body bytes.
func (k testKey) sign(ts, body string) string {
	return hex.EncodeToString(ed25519.Sign(k.priv, []byte(ts+body)))
}

func (k testKey) request(body string) *http.Request {
	const ts = "1700000000"
	r := httptest.NewRequest(http.MethodPost, "/interactions", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(HeaderSignature, k.sign(ts, body))
	r.Header.Set(HeaderTimestamp, ts)
	return r
}
