package sqlstore_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/slashd/slashd/internal/store/sqlstore"
)

// TestCloseHooksOrder: OnClose runs while the handle is open, AfterClose
// once it has closed (a backend's WAL index must outlive its
// connections: closing its descriptor would drop their locks).
func TestCloseHooksOrder(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	s := sqlstore.NewWithOptions(db, sqlstore.Options{
		OnClose: func() {
			if err := db.Ping(); err != nil {
				t.Errorf("OnClose: the handle is closed already: %v", err)
			}
			order = append(order, "on")
		},
		AfterClose: func() {
			if err := db.Ping(); err == nil {
				t.Error("AfterClose: the handle is still open")
			}
			order = append(order, "after")
		},
	})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 || order[0] != "on" || order[1] != "after" {
		t.Errorf("hooks ran %v, want [on after]", order)
	}
}
