package storetest

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

// RunSecrets checks the secrets a SQL store keeps at rest (apps' private
// keys, id_token signing keys) against the bytes in its tables: sealed
// once a key is set, clear ones sealed at start, re-sealed when the key
// rotates, and never opened with the wrong key or in the wrong row.
func RunSecrets(t *testing.T, open func(t *testing.T) *sqlstore.Store) {
	s := open(t)
	ctx := t.Context()
	key1 := keyring(t, "the first secret key, long enough....")
	key2 := keyring(t, "the second secret key, long enough...")
	rotating := keyring(t, "the second secret key, long enough...", "the first secret key, long enough....")
	// stored is the raw bytes of a secret column.
	stored := func(query string, id any) []byte {
		t.Helper()
		var b []byte
		if err := s.DB().QueryRowContext(ctx, query, id).Scan(&b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	appKey := func(id int64) []byte {
		return stored(`SELECT private_key FROM applications WHERE id = $1`, id)
	}
	signingKey := func() []byte { return stored(`SELECT private_key FROM signing_keys WHERE id = $1`, "kid-1") }
	// readable checks the store hands out the clear keys.
	readable := func(t *testing.T, apps ...store.Application) {
		t.Helper()
		for _, want := range apps {
			got, err := s.Application(ctx, want.ID)
			if err != nil || !bytes.Equal(got.PrivateKey, want.PrivateKey) {
				t.Errorf("application %d's key = %x, %v; want %x", want.ID, got.PrivateKey, err, want.PrivateKey)
			}
		}
		list, err := s.Applications(ctx)
		if err != nil || len(list) != len(apps) {
			t.Errorf("Applications = %d, %v", len(list), err)
		}
		keys, err := s.SigningKeys(ctx)
		if err != nil || len(keys) != 1 || !bytes.Equal(keys[0].PrivateKey, []byte("PKCS #8 DER")) {
			t.Errorf("SigningKeys = %+v, %v", keys, err)
		}
	}
	// sealedWith checks a stored secret is sealed, and with k (the key
	// id follows the prefix).
	sealedWith := func(t *testing.T, what string, b []byte, k *secrets.Keyring, plain []byte) {
		t.Helper()
		if !secrets.IsSealed(b) || bytes.Contains(b, plain) {
			t.Fatalf("%s stored as %q: not sealed, or holds the clear key", what, b)
		}
		if id := hex.EncodeToString(b[len(secrets.Prefix):][:8]); id != k.ID() {
			t.Errorf("%s is sealed with key %s, want %s", what, id, k.ID())
		}
	}

	if _, err := s.SealSecrets(ctx, nil); err != nil {
		t.Fatalf("no key, nothing sealed: %v", err)
	}
	must(t, s.CreateUser(ctx, store.User{ID: ownerID, Username: "owner"}))
	appA, botA := newApp(appID)
	appA.PrivateKey = bytes.Repeat([]byte{0xa1}, 64)
	must(t, s.CreateApplication(ctx, appA, botA))
	must(t, s.CreateSigningKey(ctx, store.SigningKey{ID: "kid-1", PrivateKey: []byte("PKCS #8 DER"), CreatedAt: ms(1)}))
	if got := appKey(int64(appID)); !bytes.Equal(got, appA.PrivateKey) {
		t.Fatalf("without a key the private key is stored as %x, want it in clear", got)
	}
	// A test world's credentials, which its GET answers again.
	const worldID, worldCreds = 777, `{"users.alice.client_token":"the client token"}`
	must(t, s.CreateWorld(ctx, store.TestWorld{ID: worldID, Name: "w", Spec: []byte(`{}`), Handles: []byte(`{}`),
		Credentials: []byte(worldCreds), CreatedAt: ms(1), UpdatedAt: ms(1)}, store.WorldPlan{}))
	worldCredentials := func() []byte { return stored(`SELECT credentials FROM worlds WHERE id = $1`, worldID) }
	worldReadable := func(t *testing.T) {
		t.Helper()
		if w, err := s.TestWorld(ctx, worldID); err != nil || string(w.Credentials) != worldCreds {
			t.Errorf("world credentials = %q, %v; want %q", w.Credentials, err, worldCreds)
		}
	}

	t.Run("a key seals what is clear", func(t *testing.T) {
		r, err := s.SealSecrets(ctx, key1)
		if err != nil || r != (sqlstore.SealReport{Sealed: 3}) {
			t.Fatalf("SealSecrets = %+v, %v; want 3 sealed", r, err)
		}
		sealedWith(t, "the world's credentials", worldCredentials(), key1, []byte(worldCreds))
		worldReadable(t)
		sealedWith(t, "app A's key", appKey(int64(appID)), key1, appA.PrivateKey)
		sealedWith(t, "the signing key", signingKey(), key1, []byte("PKCS #8 DER"))
		readable(t, appA)
	})
	appB, botB := newApp(otherAppID)
	appB.PrivateKey = bytes.Repeat([]byte{0xb2}, 64)
	t.Run("new secrets are stored sealed", func(t *testing.T) {
		must(t, s.CreateApplication(ctx, appB, botB))
		sealedWith(t, "app B's key", appKey(int64(otherAppID)), key1, appB.PrivateKey)
		readable(t, appA, appB)
		if r, err := s.SealSecrets(ctx, key1); err != nil || r != (sqlstore.SealReport{}) {
			t.Errorf("SealSecrets again = %+v, %v; want nothing to do", r, err)
		}
	})
	t.Run("a wrong key or none is refused, changing nothing", func(t *testing.T) {
		before := appKey(int64(appID))
		for _, tt := range []struct {
			name string
			keys *secrets.Keyring
			want error
		}{
			{"another key", key2, secrets.ErrUnknownKey},
			{"no key", nil, secrets.ErrNoKey},
		} {
			if _, err := s.SealSecrets(ctx, tt.keys); !errors.Is(err, tt.want) {
				t.Errorf("%s: SealSecrets = %v, want %v", tt.name, err, tt.want)
			}
		}
		if !bytes.Equal(appKey(int64(appID)), before) {
			t.Error("a refused SealSecrets changed the stored key")
		}
		readable(t, appA, appB) // the keyring in use stays key1
	})
	t.Run("rotation re-seals with the new key", func(t *testing.T) {
		r, err := s.SealSecrets(ctx, rotating)
		if err != nil || r != (sqlstore.SealReport{Resealed: 4}) {
			t.Fatalf("SealSecrets = %+v, %v; want 4 re-sealed", r, err)
		}
		sealedWith(t, "the world's credentials", worldCredentials(), key2, []byte(worldCreds))
		worldReadable(t)
		sealedWith(t, "app A's key", appKey(int64(appID)), key2, appA.PrivateKey)
		sealedWith(t, "the signing key", signingKey(), key2, []byte("PKCS #8 DER"))
		readable(t, appA, appB)
		if _, err := s.SealSecrets(ctx, key1); !errors.Is(err, secrets.ErrUnknownKey) {
			t.Errorf("the old key alone after the rotation: %v, want ErrUnknownKey", err)
		}
		if r, err := s.SealSecrets(ctx, key2); err != nil || r != (sqlstore.SealReport{}) {
			t.Errorf("the new key alone after the rotation: %+v, %v", r, err)
		}
	})
	t.Run("a sealed key moved to another row does not open", func(t *testing.T) {
		if _, err := s.DB().ExecContext(ctx, `UPDATE applications SET private_key = $1 WHERE id = $2`,
			appKey(int64(otherAppID)), int64(appID)); err != nil {
			t.Fatal(err)
		}
		if a, err := s.Application(ctx, appID); !errors.Is(err, secrets.ErrCorrupt) {
			t.Errorf("Application = key %x, %v; want ErrCorrupt", a.PrivateKey, err)
		}
		if _, err := s.SealSecrets(ctx, key2); !errors.Is(err, secrets.ErrCorrupt) {
			t.Errorf("SealSecrets = %v, want ErrCorrupt", err)
		}
	})
}

func keyring(t *testing.T, current string, old ...string) *secrets.Keyring {
	t.Helper()
	var olds [][]byte
	for _, o := range old {
		olds = append(olds, []byte(o))
	}
	k, err := secrets.NewKeyring([]byte(current), olds...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
