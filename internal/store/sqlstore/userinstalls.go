package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// scopeApplicationsCommands is the scope a grant installs an app with.
const scopeApplicationsCommands = "applications.commands"

const userInstallationColumns = `user_id, application_id, scopes, grant_id, created_at`

func scanUserInstallation(row scanner) (store.UserInstallation, error) {
	var (
		in                          store.UserInstallation
		user, app, grant, createdMs int64
		scopes                      string
	)
	if err := row.Scan(&user, &app, &scopes, &grant, &createdMs); err != nil {
		return in, err
	}
	in.UserID, in.ApplicationID, in.GrantID = snowflake.ID(user), snowflake.ID(app), snowflake.ID(grant)
	in.Scopes, in.CreatedAt = splitScopes(scopes), fromUnix(createdMs)
	return in, nil
}

// UserInstallations lists the apps a user installed, by app id.
func (s *Store) UserInstallations(ctx context.Context, userID snowflake.ID) ([]store.UserInstallation, error) {
	return list(ctx, s.cached(), fmt.Sprintf("list user installations of user %d", userID), scanUserInstallation,
		`SELECT `+userInstallationColumns+` FROM user_installations WHERE user_id = $1 ORDER BY application_id`,
		id64(userID))
}

// UserInstallation reads one user installation.
func (s *Store) UserInstallation(ctx context.Context, userID, appID snowflake.ID) (store.UserInstallation, error) {
	in, err := scanUserInstallation(s.queryRow(ctx, `SELECT `+userInstallationColumns+` FROM user_installations
		WHERE user_id = $1 AND application_id = $2`, id64(userID), id64(appID)))
	if err != nil {
		return in, notFound(err, fmt.Sprintf("installation of app %d for user %d", appID, userID))
	}
	return in, nil
}

// InstallForUser adds or replaces a user installation; the user and the
// app must exist.
func (s *Store) InstallForUser(ctx context.Context, in store.UserInstallation) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.mustExist(ctx, tx, "user", "users", in.UserID); err != nil {
			return err
		}
		if err := s.mustExist(ctx, tx, "application", "applications", in.ApplicationID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO user_installations (user_id, application_id, scopes, grant_id, created_at)
			VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (user_id, application_id) DO UPDATE SET scopes = excluded.scopes, grant_id = excluded.grant_id,
				created_at = excluded.created_at`,
			id64(in.UserID), id64(in.ApplicationID), joinScopes(in.Scopes), id64(in.GrantID), unix(in.CreatedAt))
		if err != nil {
			return fmt.Errorf("install app %d for user %d: %w", in.ApplicationID, in.UserID, s.formatError(err))
		}
		return nil
	})
}

// UninstallForUser removes a user installation.
func (s *Store) UninstallForUser(ctx context.Context, userID, appID snowflake.ID) error {
	res, err := s.execWrite(ctx, `DELETE FROM user_installations WHERE user_id = $1 AND application_id = $2`,
		id64(userID), id64(appID))
	if err != nil {
		return fmt.Errorf("uninstall app %d for user %d: %w", appID, userID, err)
	}
	return affected(res, fmt.Sprintf("installation of app %d for user %d", appID, userID))
}

// uninstallGrant runs inside RevokeGrant, before the grant is deleted:
// the user installation the grant made passes to the newest other live
// grant of the user to the app that installs it (no guild,
// applications.commands), or goes.
func uninstallGrant(ctx context.Context, tx *sql.Tx, grantID snowflake.ID) error {
	var user, app int64
	err := tx.QueryRowContext(ctx, `SELECT user_id, application_id FROM user_installations WHERE grant_id = $1`,
		id64(grantID)).Scan(&user, &app)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("find the user installation of grant %d: %w", grantID, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, scopes FROM oauth_grants
		WHERE user_id = $1 AND application_id = $2 AND guild_id = 0 AND id <> $3 ORDER BY id DESC`,
		user, app, id64(grantID))
	if err != nil {
		return fmt.Errorf("find other grants of user %d to app %d: %w", user, app, err)
	}
	heir := int64(0)
	for rows.Next() {
		var (
			id     int64
			scopes string
		)
		if err := rows.Scan(&id, &scopes); err != nil {
			rows.Close()
			return fmt.Errorf("read grant of user %d to app %d: %w", user, app, err)
		}
		if heir == 0 && slices.Contains(splitScopes(scopes), scopeApplicationsCommands) {
			heir = id
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find other grants of user %d to app %d: %w", user, app, err)
	}
	if heir != 0 {
		_, err = tx.ExecContext(ctx, `UPDATE user_installations SET grant_id = $1 WHERE grant_id = $2`, heir, id64(grantID))
	} else {
		_, err = tx.ExecContext(ctx, `DELETE FROM user_installations WHERE grant_id = $1`, id64(grantID))
	}
	if err != nil {
		return fmt.Errorf("uninstall the user installation of grant %d: %w", grantID, err)
	}
	return nil
}
