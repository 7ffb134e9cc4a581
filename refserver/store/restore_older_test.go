package store

import (
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
)

// TestRestoreOlderSchema: a copy saved by a server whose schema stopped
// at 0033 (a real database with that schema and rows in it, not a
// current one with rows deleted) restores, and the restore applies the
// migrations it lacks: the rows are there and the schema is the current
// one.
func TestRestoreOlderSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	older := filepath.Join(dir, "older.sqlite")
	raw := olderDatabase(t, older, "0033_providerd_keys_expiry.sql")
	if _, err := raw.Exec(`INSERT INTO users (date_created, last_updated) VALUES (0, 0)`); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	all, err := migrationNames()
	if err != nil {
		t.Fatal(err)
	}

	db, err := Open(t.Context(), filepath.Join(dir, "live.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.RestoreFile(t.Context(), older, nil); err != nil {
		t.Fatalf("restore of an older schema: %v", err)
	}
	var applied []string
	var users, events int64
	err = db.Read(t.Context(), func(tx *Tx) (err error) {
		if applied, err = tx.AppliedMigrations(); err != nil {
			return err
		}
		if users, err = tx.CountRows("users"); err != nil {
			return err
		}
		events, err = tx.CountRows("events") // a table of a later migration
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(applied, all) {
		t.Errorf("migrations after the restore %v, want %v", applied, all)
	}
	if users != 1 || events != 0 {
		t.Errorf("%d users and %d events, want the copy's 1 and 0", users, events)
	}
}

// olderDatabase makes at path a real database of a server whose schema
// stopped at migration last, and returns a connection to it for the test
// to add rows through (the test closes it).
func olderDatabase(t *testing.T, path, last string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	oneConnection(raw)
	if _, err := raw.Exec(`CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	all, err := migrationNames()
	if err != nil {
		t.Fatal(err)
	}
	upTo := slices.Index(all, last)
	if upTo < 0 {
		t.Fatalf("no migration %s", last)
	}
	for _, name := range all[:upTo+1] {
		src, err := migrations.ReadFile("migrations/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(string(src)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := raw.Exec(`INSERT INTO schema_migrations (name, applied_at) VALUES (?, 0)`, name); err != nil {
			t.Fatal(err)
		}
	}
	return raw
}
