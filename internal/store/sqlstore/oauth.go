package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

var _ store.OAuth = (*Store)(nil)

// ---- logins ----

// SetLogin adds or replaces a user's login.
func (s *Store) SetLogin(ctx context.Context, l store.Login) error {
	_, err := s.execWrite(ctx, `INSERT INTO logins (user_id, name, password_hash) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, password_hash = excluded.password_hash`,
		id64(l.UserID), l.Name, l.PasswordHash)
	if err != nil {
		return fmt.Errorf("set login of user %d: %w", l.UserID, s.formatError(err))
	}
	return nil
}

func scanLogin(row scanner) (store.Login, error) {
	var (
		l   store.Login
		uid int64
	)
	if err := row.Scan(&uid, &l.Name, &l.PasswordHash); err != nil {
		return l, err
	}
	l.UserID = snowflake.ID(uid)
	return l, nil
}

// LoginByName finds a login by its name.
func (s *Store) LoginByName(ctx context.Context, name string) (store.Login, error) {
	l, err := scanLogin(s.queryRow(ctx, `SELECT user_id, name, password_hash FROM logins WHERE name = $1`, name))
	if err != nil {
		return l, notFound(err, "login")
	}
	return l, nil
}

// LoginOfUser reads a user's login.
func (s *Store) LoginOfUser(ctx context.Context, userID snowflake.ID) (store.Login, error) {
	l, err := scanLogin(s.queryRow(ctx, `SELECT user_id, name, password_hash FROM logins WHERE user_id = $1`, id64(userID)))
	if err != nil {
		return l, notFound(err, fmt.Sprintf("login of user %d", userID))
	}
	return l, nil
}

// ---- sessions ----

// CreateSession stores a consent-page session by its hash.
func (s *Store) CreateSession(ctx context.Context, se store.Session) error {
	_, err := s.execWrite(ctx, `INSERT INTO sessions (hash, user_id, csrf, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5)`, se.Hash, id64(se.UserID), se.CSRF, unix(se.ExpiresAt), unix(se.CreatedAt))
	if err != nil {
		return fmt.Errorf("insert session: %w", s.formatError(err))
	}
	return nil
}

// SessionByHash reads a session, expired or not.
func (s *Store) SessionByHash(ctx context.Context, hash []byte) (store.Session, error) {
	var (
		se               store.Session
		uid              int64
		expires, created int64
	)
	err := s.queryRow(ctx, `SELECT hash, user_id, csrf, expires_at, created_at FROM sessions WHERE hash = $1`, hash).
		Scan(&se.Hash, &uid, &se.CSRF, &expires, &created)
	if err != nil {
		return se, notFound(err, "session")
	}
	se.UserID, se.ExpiresAt, se.CreatedAt = snowflake.ID(uid), fromUnix(expires), fromUnix(created)
	return se, nil
}

// DeleteSession ends a session; an unknown one is no error.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	if _, err := s.execWrite(ctx, `DELETE FROM sessions WHERE hash = $1`, hash); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// ---- OAuth2 settings ----

// SetOAuthSettings replaces an app's OAuth2 settings.
func (s *Store) SetOAuthSettings(ctx context.Context, o store.OAuthSettings) error {
	uris := o.RedirectURIs
	if uris == nil {
		uris = []string{}
	}
	b, _ := jsonenc.Marshal(uris) // strings always encode
	_, err := s.execWrite(ctx, `INSERT INTO oauth_settings (application_id, redirect_uris, public_client)
		VALUES ($1, $2, $3)
		ON CONFLICT (application_id) DO UPDATE SET redirect_uris = excluded.redirect_uris, public_client = excluded.public_client`,
		id64(o.ApplicationID), string(b), boolInt(o.PublicClient))
	if err != nil {
		return fmt.Errorf("set OAuth2 settings of app %d: %w", o.ApplicationID, s.formatError(err))
	}
	return nil
}

// OAuthSettings reads an app's OAuth2 settings, the defaults if never set.
func (s *Store) OAuthSettings(ctx context.Context, appID snowflake.ID) (store.OAuthSettings, error) {
	o := store.OAuthSettings{ApplicationID: appID, RedirectURIs: []string{}}
	var (
		uris   sql.NullString
		public sql.NullInt64
	)
	err := s.queryRow(ctx, `SELECT o.redirect_uris, o.public_client FROM applications a
		LEFT JOIN oauth_settings o ON o.application_id = a.id WHERE a.id = $1`, id64(appID)).Scan(&uris, &public)
	if err != nil {
		return o, notFound(err, fmt.Sprintf("application %d", appID))
	}
	if uris.Valid {
		if err := json.Unmarshal([]byte(uris.String), &o.RedirectURIs); err != nil {
			return o, fmt.Errorf("redirect URIs of app %d: %w", appID, err)
		}
		if o.RedirectURIs == nil {
			o.RedirectURIs = []string{}
		}
	}
	o.PublicClient = public.Valid && public.Int64 != 0
	return o, nil
}

// ---- grants ----

// CreateGrant stores a grant; its app and user must exist.
func (s *Store) CreateGrant(ctx context.Context, g store.Grant) error {
	_, err := s.execWrite(ctx, `INSERT INTO oauth_grants (id, application_id, user_id, scopes, guild_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)`,
		id64(g.ID), id64(g.ApplicationID), id64(g.UserID), joinScopes(g.Scopes), id64(g.GuildID), unix(g.CreatedAt))
	if err != nil {
		return fmt.Errorf("insert grant %d: %w", g.ID, s.formatError(err))
	}
	return nil
}

// Grant reads a grant.
func (s *Store) Grant(ctx context.Context, id snowflake.ID) (store.Grant, error) {
	g, err := scanGrant(s.queryRow(ctx, `SELECT `+grantColumns+` FROM oauth_grants WHERE id = $1`, id64(id)))
	if err != nil {
		return g, notFound(err, fmt.Sprintf("grant %d", id))
	}
	return g, nil
}

// Grants lists a user's grants to an app, oldest first.
func (s *Store) Grants(ctx context.Context, appID, userID snowflake.ID) ([]store.Grant, error) {
	rows, err := s.query(ctx, `SELECT `+grantColumns+` FROM oauth_grants
		WHERE application_id = $1 AND user_id = $2 ORDER BY id`, id64(appID), id64(userID))
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	defer rows.Close()
	var out []store.Grant
	for rows.Next() {
		g, err := scanGrant(rows)
		if err != nil {
			return nil, fmt.Errorf("scan grant: %w", err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

const grantColumns = `id, application_id, user_id, scopes, guild_id, created_at`

func scanGrant(row interface{ Scan(...any) error }) (store.Grant, error) {
	var (
		g                           store.Grant
		id, app, user, gid, created int64
		scopes                      string
	)
	if err := row.Scan(&id, &app, &user, &scopes, &gid, &created); err != nil {
		return g, err
	}
	g.ID, g.ApplicationID, g.UserID, g.GuildID = snowflake.ID(id), snowflake.ID(app), snowflake.ID(user), snowflake.ID(gid)
	g.Scopes, g.CreatedAt = splitScopes(scopes), fromUnix(created)
	return g, nil
}

// RevokeGrant deletes a grant with its codes, refresh tokens and access
// tokens in one transaction, and uninstalls the user installation it
// made (uninstallGrant).
func (s *Store) RevokeGrant(ctx context.Context, id snowflake.ID) error {
	if id == 0 {
		// grant_id 0 tags the tokens no grant issued: never delete by it.
		return fmt.Errorf("grant 0: %w", store.ErrNotFound)
	}
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.mustExist(ctx, tx, "grant", "oauth_grants", id); err != nil {
			return err
		}
		if err := uninstallGrant(ctx, tx, id); err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM tokens WHERE grant_id = $1`,
			`DELETE FROM refresh_tokens WHERE grant_id = $1`,
			`DELETE FROM oauth_codes WHERE grant_id = $1`,
			`DELETE FROM oauth_grants WHERE id = $1`,
		} {
			if _, err := tx.ExecContext(ctx, q, id64(id)); err != nil {
				return fmt.Errorf("revoke grant %d: %w", id, s.formatError(err))
			}
		}
		return nil
	})
}

// ---- authorization codes ----

// CreateCode stores an authorization code by its hash; its grant must
// exist.
func (s *Store) CreateCode(ctx context.Context, c store.AuthCode) error {
	_, err := s.execWrite(ctx, `INSERT INTO oauth_codes
		(hash, grant_id, redirect_uri, code_challenge, code_challenge_method, nonce, expires_at, used, auth_time)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		c.Hash, id64(c.GrantID), c.RedirectURI, c.CodeChallenge, c.CodeChallengeMethod, c.Nonce, unix(c.ExpiresAt),
		boolInt(c.Used), unix(c.AuthTime))
	if err != nil {
		return fmt.Errorf("insert authorization code: %w", s.formatError(err))
	}
	return nil
}

// UseCode marks a code used and returns it as found; a used code comes
// back with Used set and ErrConflict.
func (s *Store) UseCode(ctx context.Context, hash []byte) (store.AuthCode, error) {
	var c store.AuthCode
	err := s.Tx(ctx, func(tx *sql.Tx) error {
		c = store.AuthCode{} // a retried transaction starts over
		first, err := markUsed(ctx, tx, `UPDATE oauth_codes SET used = 1 WHERE hash = $1 AND used = 0`, hash)
		if err != nil {
			return fmt.Errorf("use authorization code: %w", err)
		}
		var (
			grant, expires, authTime int64
			used                     int
		)
		err = tx.QueryRowContext(ctx, `SELECT hash, grant_id, redirect_uri, code_challenge, code_challenge_method, nonce,
			expires_at, used, auth_time FROM oauth_codes WHERE hash = $1`, hash).
			Scan(&c.Hash, &grant, &c.RedirectURI, &c.CodeChallenge, &c.CodeChallengeMethod, &c.Nonce, &expires, &used,
				&authTime)
		if err != nil {
			return notFound(err, "authorization code")
		}
		c.GrantID, c.ExpiresAt, c.Used, c.AuthTime = snowflake.ID(grant), fromUnix(expires), !first, fromUnix(authTime)
		return nil
	})
	if err == nil && c.Used {
		err = fmt.Errorf("authorization code already used: %w", store.ErrConflict)
	}
	return c, err
}

// markUsed runs an UPDATE … SET used = 1 … AND used = 0 and reports
// whether it changed the row: the one atomic step that lets exactly one
// of concurrent uses through on every backend.
func markUsed(ctx context.Context, tx *sql.Tx, query string, hash []byte) (bool, error) {
	res, err := tx.ExecContext(ctx, query, hash)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n > 0, nil
}

// ---- refresh tokens ----

// insertRefreshToken inserts a refresh token; refreshTokenArgs are its
// arguments.
const insertRefreshToken = `INSERT INTO refresh_tokens (hash, grant_id, created_at, used) VALUES ($1, $2, $3, $4)`

func refreshTokenArgs(r store.RefreshToken) []any {
	return []any{r.Hash, id64(r.GrantID), unix(r.CreatedAt), boolInt(r.Used)}
}

// IssueTokens stores a grant's new access token and, unless refresh is
// nil, its new refresh token, in one transaction: both or neither.
//
// The grant is read inside the transaction, and that read is what keeps
// a concurrent RevokeGrant from leaving a token behind: tokens.grant_id
// has no foreign key (0 tags the tokens no grant issued), so nothing
// else ties the access token to a live grant; refresh_tokens.grant_id
// has one, whose violation formatError maps to ErrNotFound as well.
// On SQLite writers take turns (BEGIN IMMEDIATE), so the grant exists
// for the whole transaction or for none of it. On PostgreSQL Tx runs
// SERIALIZABLE: a RevokeGrant that deletes the grant's tokens without
// seeing ours while we read the grant it deletes forms a read-write
// cycle with us, which the database breaks by failing one of the two
// (40001); Tx runs it again, and a rerun of ours finds the grant gone.
// (At READ COMMITTED, the same read lets access-only issues slip past a
// revocation: the contract test's concurrent rounds catch it.)
// A row lock on the grant (FOR KEY SHARE) would add nothing: RevokeGrant
// deletes the tokens before the grant, so the lock would hold back only
// its last statement, after it had already missed our tokens.
func (s *Store) IssueTokens(ctx context.Context, access store.Token, refresh *store.RefreshToken) error {
	if access.GrantID == 0 {
		return fmt.Errorf("issue tokens of grant 0: %w", store.ErrNotFound)
	}
	if refresh != nil && refresh.GrantID != access.GrantID {
		return fmt.Errorf("issue tokens: the refresh token's grant %d is not the access token's %d",
			refresh.GrantID, access.GrantID)
	}
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.mustExist(ctx, tx, "grant", "oauth_grants", access.GrantID); err != nil {
			return fmt.Errorf("issue tokens: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertToken, tokenArgs(access)...); err != nil {
			return fmt.Errorf("issue tokens of grant %d: insert access token: %w", access.GrantID, s.formatError(err))
		}
		if refresh == nil {
			return nil
		}
		if _, err := tx.ExecContext(ctx, insertRefreshToken, refreshTokenArgs(*refresh)...); err != nil {
			return fmt.Errorf("issue tokens of grant %d: insert refresh token: %w", access.GrantID, s.formatError(err))
		}
		return nil
	})
}

// UseRefreshToken marks a refresh token used and returns it as found; a
// used one comes back with Used set and ErrConflict.
func (s *Store) UseRefreshToken(ctx context.Context, hash []byte) (store.RefreshToken, error) {
	var r store.RefreshToken
	err := s.Tx(ctx, func(tx *sql.Tx) error {
		r = store.RefreshToken{} // a retried transaction starts over
		first, err := markUsed(ctx, tx, `UPDATE refresh_tokens SET used = 1 WHERE hash = $1 AND used = 0`, hash)
		if err != nil {
			return fmt.Errorf("use refresh token: %w", err)
		}
		var grant, created int64
		err = tx.QueryRowContext(ctx, `SELECT hash, grant_id, created_at FROM refresh_tokens WHERE hash = $1`, hash).
			Scan(&r.Hash, &grant, &created)
		if err != nil {
			return notFound(err, "refresh token")
		}
		r.GrantID, r.CreatedAt, r.Used = snowflake.ID(grant), fromUnix(created), !first
		return nil
	})
	if err == nil && r.Used {
		err = fmt.Errorf("refresh token already used: %w", store.ErrConflict)
	}
	return r, err
}

// ---- signing keys ----

// SigningKeys lists the id_token signing keys, newest first.
func (s *Store) SigningKeys(ctx context.Context) ([]store.SigningKey, error) {
	return list(ctx, s.cached(), "list signing keys", func(row scanner) (store.SigningKey, error) {
		var (
			k       store.SigningKey
			created int64
		)
		if err := row.Scan(&k.ID, &k.PrivateKey, &created); err != nil {
			return k, err
		}
		key, err := s.openSecret(k.PrivateKey, signingKeyContext(k.ID))
		if err != nil {
			return k, fmt.Errorf("id_token signing key %s: %w", k.ID, err)
		}
		k.PrivateKey, k.CreatedAt = key, fromUnix(created)
		return k, nil
	}, `SELECT id, private_key, created_at FROM signing_keys ORDER BY created_at DESC, id`)
}

// CreateSigningKey stores a signing key.
func (s *Store) CreateSigningKey(ctx context.Context, k store.SigningKey) error {
	if k.ID == "" {
		return errors.New("insert signing key: empty id")
	}
	privateKey, err := s.sealSecret(k.PrivateKey, signingKeyContext(k.ID))
	if err != nil {
		return fmt.Errorf("insert signing key %s: %w", k.ID, err)
	}
	_, err = s.execWrite(ctx, `INSERT INTO signing_keys (id, private_key, created_at) VALUES ($1, $2, $3)`,
		k.ID, privateKey, unix(k.CreatedAt))
	if err != nil {
		return fmt.Errorf("insert signing key %s: %w", k.ID, s.formatError(err))
	}
	return nil
}
