package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// The store keeps three kinds of secrets it must read back: each app's
// Ed25519 private key (it signs outgoing interactions), the RSA keys
// that sign id_tokens, and each test world's credentials (which its GET
// answers again). With a keyring (SealSecrets) they are stored
// sealed (internal/secrets); every other credential is stored as a hash.

// SealReport says what SealSecrets changed.
type SealReport struct {
	Sealed   int // stored in clear, now sealed
	Resealed int // sealed with an old key, now with the current one
}

// SealSecrets makes the store seal the secrets it writes with keys from
// now on, and brings those stored in line, in one transaction: secrets
// in clear are sealed, secrets sealed with one of keys' old keys are
// sealed again with its current key. If a stored secret does not open
// (sealed with a key keys lacks, or tampered with) it fails and changes
// nothing: a wrong key stops a start rather than serving garbage. With
// nil keys it changes nothing, and fails if any secret is sealed.
//
// Call it once, after opening the store and before using it.
func (s *Store) SealSecrets(ctx context.Context, keys *secrets.Keyring) (SealReport, error) {
	var report SealReport
	err := s.Tx(ctx, func(tx *sql.Tx) error {
		report = SealReport{}
		if err := reseal(ctx, tx, keys, &report, "application %d's private key", appKeyContext,
			`SELECT id, private_key FROM applications ORDER BY id`,
			`UPDATE applications SET private_key = $1 WHERE id = $2`); err != nil {
			return err
		}
		if err := reseal(ctx, tx, keys, &report, "world %d's credentials", func(id int64) string {
			return worldCredentialsContext(snowflake.ID(id))
		}, `SELECT id, credentials FROM worlds ORDER BY id`,
			`UPDATE worlds SET credentials = $1 WHERE id = $2`); err != nil {
			return err
		}
		return reseal(ctx, tx, keys, &report, "id_token signing key %s", signingKeyContext,
			`SELECT id, private_key FROM signing_keys ORDER BY id`,
			`UPDATE signing_keys SET private_key = $1 WHERE id = $2`)
	})
	if err != nil {
		return SealReport{}, fmt.Errorf("secrets at rest: %w", err)
	}
	s.keys.Store(keys)
	return report, nil
}

// reseal brings the secrets one query lists (id, secret) in line with
// keys, writing those that change with update (secret, id).
func reseal[ID int64 | string](ctx context.Context, tx *sql.Tx, keys *secrets.Keyring, report *SealReport,
	what string, context func(ID) string, query, update string) error {
	type row struct {
		id     ID
		stored []byte
	}
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("read secrets: %w", err)
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.stored); err != nil {
			rows.Close()
			return fmt.Errorf("read secrets: %w", err)
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read secrets: %w", err)
	}
	for _, r := range all {
		plain, current, err := keys.Open(r.stored, context(r.id))
		if err != nil {
			return fmt.Errorf(what+": %w", r.id, err)
		}
		if current {
			continue
		}
		sealed, err := keys.Seal(plain, context(r.id))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, update, sealed, r.id); err != nil {
			return fmt.Errorf("seal "+what+": %w", r.id, err)
		}
		if secrets.IsSealed(r.stored) {
			report.Resealed++
		} else {
			report.Sealed++
		}
	}
	return nil
}

// appKeyContext and signingKeyContext name the row a sealed secret
// belongs to (its additional data).
func appKeyContext(id int64) string { return fmt.Sprintf("applications/%d/private_key", id) }

func signingKeyContext(id string) string { return "signing_keys/" + id + "/private_key" }

// sealSecret seals a secret for the row context names.
func (s *Store) sealSecret(plain []byte, context string) ([]byte, error) {
	return s.keys.Load().Seal(plain, context)
}

// openSecret opens a stored secret (sealed or in clear).
func (s *Store) openSecret(stored []byte, context string) ([]byte, error) {
	plain, _, err := s.keys.Load().Open(stored, context)
	return plain, err
}

// openApplication opens a scanned application's private key.
func (s *Store) openApplication(a store.Application) (store.Application, error) {
	key, err := s.openSecret(a.PrivateKey, appKeyContext(int64(a.ID)))
	if err != nil {
		return a, fmt.Errorf("application %d's private key: %w", a.ID, err)
	}
	a.PrivateKey = key
	return a, nil
}
