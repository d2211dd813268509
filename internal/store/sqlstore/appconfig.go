package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// installParamsJSON is one installation context's default install
// settings as the install_params column keeps them.
type installParamsJSON struct {
	Scopes      []string `json:"scopes"`
	Permissions string   `json:"permissions"`
}

// encodeInstallParams renders an app's install params as a JSON object
// keyed by integration type ("{}" for none).
func encodeInstallParams(p map[int]store.InstallParams) string {
	m := make(map[string]installParamsJSON, len(p))
	for t, ip := range p {
		scopes := ip.Scopes
		if scopes == nil {
			scopes = []string{}
		}
		m[strconv.Itoa(t)] = installParamsJSON{Scopes: scopes, Permissions: ip.Permissions.String()}
	}
	b, _ := jsonenc.Marshal(m) // strings only: always encodes
	return string(b)
}

// decodeInstallParams reads the install_params column; nil for none.
func decodeInstallParams(s string) (map[int]store.InstallParams, error) {
	var m map[string]installParamsJSON
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[int]store.InstallParams, len(m))
	for k, v := range m {
		t, err := strconv.Atoi(k)
		if err != nil {
			return nil, fmt.Errorf("integration type %q: %w", k, err)
		}
		perms, ok := guild.ParsePermissions(v.Permissions)
		if !ok {
			return nil, fmt.Errorf("permissions %q of integration type %d", v.Permissions, t)
		}
		out[t] = store.InstallParams{Scopes: v.Scopes, Permissions: perms}
	}
	return out, nil
}

// SetIntegrationTypes replaces the installation contexts an app supports
// and their default install settings (params of types not in types are
// dropped).
func (s *Store) SetIntegrationTypes(ctx context.Context, appID snowflake.ID, types []int, params map[int]store.InstallParams) error {
	sorted := append([]int{}, types...)
	sort.Ints(sorted)
	kept := make(map[int]store.InstallParams, len(params))
	for _, t := range sorted {
		if p, ok := params[t]; ok {
			kept[t] = p
		}
	}
	its, _ := jsonenc.Marshal(sorted)
	res, err := s.execWrite(ctx, `UPDATE applications SET integration_types = $1, install_params = $2 WHERE id = $3`,
		string(its), encodeInstallParams(kept), id64(appID))
	if err != nil {
		return fmt.Errorf("set integration types of app %d: %w", appID, s.formatError(err))
	}
	return affected(res, fmt.Sprintf("application %d", appID))
}

// SetDiscoverable turns an app's discovery on or off. Turning it on reads
// every command of the app, in every scope, in the same transaction:
// one marked nsfw makes it ErrConflict.
func (s *Store) SetDiscoverable(ctx context.Context, appID snowflake.ID, on bool) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.mustExist(ctx, tx, "application", "applications", appID); err != nil {
			return err
		}
		if on {
			n, err := countNSFWCommands(ctx, tx, appID)
			if err != nil {
				return err
			}
			if n > 0 {
				return fmt.Errorf("app %d has %d age-restricted commands: %w", appID, n, store.ErrConflict)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE applications SET discoverable = $1 WHERE id = $2`,
			boolInt(on), id64(appID)); err != nil {
			return fmt.Errorf("set discoverable of app %d: %w", appID, s.formatError(err))
		}
		return nil
	})
}

// countNSFWCommands counts an app's commands, global and guild, whose
// stored body is marked nsfw.
func countNSFWCommands(ctx context.Context, tx *sql.Tx, appID snowflake.ID) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT body FROM commands WHERE application_id = $1`, id64(appID))
	if err != nil {
		return 0, fmt.Errorf("read commands of app %d: %w", appID, err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return 0, fmt.Errorf("read command of app %d: %w", appID, err)
		}
		var c struct {
			NSFW bool `json:"nsfw"`
		}
		if err := json.Unmarshal([]byte(body), &c); err != nil {
			return 0, fmt.Errorf("decode command of app %d: %w", appID, err)
		}
		if c.NSFW {
			n++
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read commands of app %d: %w", appID, err)
	}
	return n, nil
}
