package refservertest

import (
	"context"
	"database/sql"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// volatileColumns change on their own while the server runs (the
// universal POS monitor's health checks and menu syncs), whatever requests
// do, so Rows leaves them out.
var volatileColumns = map[string][]string{
	"locations": {"pos_health", "pos_health_message", "pos_health_checked_at", "menu_json", "menu_synced_at"},
}

// Rows returns every row of every table of the server's database, each
// as one line of text ("column=value ..."), sorted, for tests that compare
// the database before and after some requests: that a refused request
// changed nothing, or that a run changed none of the rows it found. The
// columns that the server's background monitors update are left out. It
// reads through a read-only connection of its own, beside the server's.
func (e *Env) Rows(t testing.TB) map[string][]string {
	t.Helper()
	if e.DBPath == store.MemoryPath {
		t.Fatalf("refservertest: Rows needs a database file")
	}
	out, err := store.Dump(context.Background(), e.DBPath, volatileColumns)
	if err != nil {
		t.Fatalf("refservertest: %v", err)
	}
	return out
}

// ReadDB opens a read-only view of the server's database file
// (store.OpenReadOnly), for tests that check what is stored. It is closed
// when the test ends.
func (e *Env) ReadDB(t testing.TB) *sql.DB {
	t.Helper()
	if e.DBPath == store.MemoryPath {
		t.Fatalf("refservertest: ReadDB needs a database file")
	}
	db, err := store.OpenReadOnly(e.DBPath)
	if err != nil {
		t.Fatalf("refservertest: open %s: %v", e.DBPath, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
