package secrets

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var (
	secretA = []byte(strings.Repeat("a", MinSecretLen))
	secretB = []byte("another secret of enough length, 2")
	plain   = []byte("an Ed25519 private key, in short")
)

func mustKeyring(t *testing.T, cur []byte, old ...[]byte) *Keyring {
	t.Helper()
	k, err := NewKeyring(cur, old...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpen(t *testing.T) {
	t.Parallel()
	a, b := mustKeyring(t, secretA), mustKeyring(t, secretB)
	rotating := mustKeyring(t, secretB, secretA)
	sealedA, err := a.Seal(plain, "applications/1/private_key")
	if err != nil {
		t.Fatal(err)
	}
	if !IsSealed(sealedA) || bytes.Contains(sealedA, plain) {
		t.Fatalf("sealed value %q: not sealed, or holds the plain value", sealedA)
	}
	again, _ := a.Seal(plain, "applications/1/private_key")
	if bytes.Equal(again, sealedA) {
		t.Error("two seals of one value are equal: the nonce is not random")
	}
	tampered := bytes.Clone(sealedA)
	tampered[len(tampered)-1] ^= 1

	tests := []struct {
		name        string
		keys        *Keyring
		stored      []byte
		context     string
		wantClear   []byte
		wantCurrent bool
		wantErr     error
	}{
		{"sealed, its key", a, sealedA, "applications/1/private_key", plain, true, nil},
		{"sealed, its key as the old one", rotating, sealedA, "applications/1/private_key", plain, false, nil},
		{"sealed, another key", b, sealedA, "applications/1/private_key", nil, false, ErrUnknownKey},
		{"sealed, no key", nil, sealedA, "applications/1/private_key", nil, false, ErrNoKey},
		{"sealed for another row", a, sealedA, "applications/2/private_key", nil, false, ErrCorrupt},
		{"tampered with", a, tampered, "applications/1/private_key", nil, false, ErrCorrupt},
		{"truncated", a, sealedA[:len(Prefix)+10], "applications/1/private_key", nil, false, ErrCorrupt},
		{"plain, a key", a, plain, "applications/1/private_key", plain, false, nil},
		{"plain, no key", nil, plain, "applications/1/private_key", plain, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, current, err := tt.keys.Open(tt.stored, tt.context)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !bytes.Equal(got, tt.wantClear) || current != tt.wantCurrent {
				t.Errorf("Open = %q, current %v; want %q, %v", got, current, tt.wantClear, tt.wantCurrent)
			}
		})
	}
}

func TestNoKeySealsNothing(t *testing.T) {
	t.Parallel()
	var k *Keyring
	got, err := k.Seal(plain, "x")
	if err != nil || !bytes.Equal(got, plain) {
		t.Errorf("Seal without a key = %q, %v; want the plain value", got, err)
	}
	if k.ID() != "" {
		t.Errorf("ID without a key = %q", k.ID())
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fileA := file("a", string(secretA)+"\n")
	fileB := file("b", string(secretB))
	empty := file("empty", "\n")
	short := file("short", "hunter2\n")
	idA, idB := mustKeyring(t, secretA).ID(), mustKeyring(t, secretB).ID()

	tests := []struct {
		name    string
		c       Config
		wantID  string // "" with no error: no keyring
		wantOld bool
		wantErr string
	}{
		{"nothing", Config{}, "", false, ""},
		{"value", Config{Key: string(secretA)}, idA, false, ""},
		{"file, its newline trimmed", Config{KeyFile: fileA}, idA, false, ""},
		{"rotation", Config{KeyFile: fileB, OldKey: string(secretA)}, idB, true, ""},
		{"rotation, files", Config{KeyFile: fileB, OldKeyFile: fileA}, idB, true, ""},
		{"both value and file", Config{Key: string(secretA), KeyFile: fileA}, "", false, "set one"},
		{"old without current", Config{OldKeyFile: fileA}, "", false, "without a secret key"},
		{"missing file", Config{KeyFile: filepath.Join(dir, "nope")}, "", false, "no such file"},
		{"empty file", Config{KeyFile: empty}, "", false, "is empty"},
		{"short secret", Config{KeyFile: short}, "", false, "at least 32"},
		{"short old secret", Config{Key: string(secretA), OldKey: "short"}, "", false, "old key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := Load(tt.c)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if k.ID() != tt.wantID || (k != nil && (len(k.old) > 0) != tt.wantOld) {
				t.Errorf("keyring %q (old keys: %v), want %q (old: %v)", k.ID(), k != nil && len(k.old) > 0, tt.wantID, tt.wantOld)
			}
		})
	}
}
