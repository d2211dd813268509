package webhook

import (
	"crypto/ed25519"
	"encoding/hex"
	"strings"
	"testing"
)

// RFC 8032 §7.1 TEST 1.
const (
	rfcSecret = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
	rfcPublic = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
	rfcSig    = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
)

func rfcKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	seed, err := hex.DecodeString(rfcSecret)
	if err != nil {
		t.Fatal(err)
	}
	return ed25519.NewKeyFromSeed(seed)
}

func TestRFC8032Vector1(t *testing.T) {
	priv := rfcKey(t)
	if got := hex.EncodeToString(priv.Public().(ed25519.PublicKey)); got != rfcPublic {
		t.Fatalf("public key = %s, want %s", got, rfcPublic)
	}
	// Empty timestamp + empty body = the empty message of the vector.
	if got := Sign(priv, "", nil); got != rfcSig {
		t.Fatalf("Sign = %s, want %s", got, rfcSig)
	}
	if !Verify(rfcPublic, rfcSig, "", nil) {
		t.Fatal("Verify rejected the RFC 8032 vector")
	}
	if !Verify(strings.ToUpper(rfcPublic), strings.ToUpper(rfcSig), "", []byte{}) {
		t.Fatal("Verify rejected upper-case hex")
	}
}

func TestSignVerify(t *testing.T) {
	priv := rfcKey(t)
	pub := hex.EncodeToString(priv.Public().(ed25519.PublicKey))
	otherPub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	const ts = "1700000000"
	body := []byte(`{"type":1}`)
	sig := Sign(priv, ts, body)
	if len(sig) != 128 || sig != strings.ToLower(sig) {
		t.Fatalf("signature %q is not 128 lowercase hex chars", sig)
	}
	// The signed message is timestamp+body: moving bytes across the boundary
	// keeps it valid (documents the concatenation, as the real service does).
	if !Verify(pub, sig, "1700000000{", []byte(`"type":1}`)) {
		t.Error("signature is not over timestamp+body")
	}
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == '0' {
			b[i] = '1'
		} else {
			b[i] = '0'
		}
		return string(b)
	}
	tests := []struct {
		name      string
		pub, sig  string
		timestamp string
		body      []byte
		want      bool
	}{
		{"valid", pub, sig, ts, body, true},
		{"tampered body", pub, sig, ts, []byte(`{"type":2}`), false},
		{"body appended", pub, sig, ts, []byte(`{"type":1} `), false},
		{"empty body", pub, sig, ts, nil, false},
		{"tampered timestamp", pub, sig, "1700000001", body, false},
		{"empty timestamp", pub, sig, "", body, false},
		{"other key", hex.EncodeToString(otherPub), sig, ts, body, false},
		{"flipped signature byte", pub, flip(sig, 10), ts, body, false},
		{"flipped key byte", flip(pub, 5), sig, ts, body, false},
		{"signature not hex", pub, "zz" + sig[2:], ts, body, false},
		{"key not hex", "zz" + pub[2:], sig, ts, body, false},
		{"signature too short", pub, sig[:126], ts, body, false},
		{"signature too long", pub, sig + "00", ts, body, false},
		{"signature odd length", pub, sig[:127], ts, body, false},
		{"key too short", pub[:62], sig, ts, body, false},
		{"key too long", pub + "00", sig, ts, body, false},
		{"empty signature", pub, "", ts, body, false},
		{"empty key", "", sig, ts, body, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Verify(tt.pub, tt.sig, tt.timestamp, tt.body); got != tt.want {
				t.Errorf("Verify = %v, want %v", got, tt.want)
			}
		})
	}
}
