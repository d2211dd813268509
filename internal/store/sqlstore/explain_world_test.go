package sqlstore_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

// TestWorldDeletesUseIndexes: deleting a world costs what the world
// holds, not what the store holds. No statement of DeleteWorld and
// ResetWorld scans a table to find the world's rows (SQLite's plans; the
// foreign keys' own checks aside, which the schema decides).
func TestWorldDeletesUseIndexes(t *testing.T) {
	st, err := sqlite.OpenFromTemplate(context.Background(), filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	scan := regexp.MustCompile(`^SCAN (\w+)`)
	for _, q := range sqlstore.WorldRowsDeletes() {
		rows, err := st.DB().Query("EXPLAIN QUERY PLAN "+q, 1)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			m := scan.FindStringSubmatch(detail)
			// The foreign keys' checks of DELETE FROM applications scan
			// tokens and installations by application_id (no index).
			if m != nil && !(strings.HasPrefix(q, "DELETE FROM applications") && (m[1] == "tokens" || m[1] == "installations")) {
				t.Errorf("%s\n  scans: %s", strings.Join(strings.Fields(q), " "), detail)
			}
		}
		rows.Close()
	}
}

// TestWorldRowsUseIndexes: an export costs what the world holds. No
// statement of WorldRows scans a table (SQLite's plans); a sort of the
// rows found is allowed.
func TestWorldRowsUseIndexes(t *testing.T) {
	st, err := sqlite.OpenFromTemplate(context.Background(), filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	scan := regexp.MustCompile(`^SCAN (\w+)`)
	for _, q := range sqlstore.WorldRowsReads() {
		args := []any{1}
		if strings.Contains(q, "$2") {
			args = append(args, 2)
		}
		rows, err := st.DB().Query("EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			if m := scan.FindStringSubmatch(detail); m != nil {
				t.Errorf("%s\n  scans: %s", strings.Join(strings.Fields(q), " "), detail)
			}
		}
		rows.Close()
	}
}
