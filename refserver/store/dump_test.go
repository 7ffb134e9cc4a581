package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Dump reads beside the open database: every table, the rows as lines,
// without the columns it is told to skip.
func TestDump(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "d.db")
	at := time.Unix(1_700_000_000, 0)
	db := openTest(t, path, func() time.Time { return at })
	if err := db.Write(context.Background(), func(tx *Tx) error {
		_, err := tx.InsertUser()
		return err
	}); err != nil {
		t.Fatal(err)
	}

	got, err := Dump(context.Background(), path, map[string][]string{"users": {"last_updated"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user_id=1 user_status=1 default_card_id=<nil> date_created=1700000000 "}
	if users := got["users"]; !slices.Equal(users, want) {
		t.Errorf("users = %q; want %q", users, want)
	}
	if n := len(got["schema_migrations"]); n == 0 {
		t.Error("no schema_migrations rows")
	}
	if cards, ok := got["cards"]; !ok || len(cards) != 0 {
		t.Errorf("cards = %q, %v; want an empty table listed", cards, ok)
	}
	for table := range got {
		if len(table) > 7 && table[:7] == "sqlite_" {
			t.Errorf("an internal table listed: %s", table)
		}
	}
	if _, err := Dump(context.Background(), filepath.Join(t.TempDir(), "none.db"), nil); err == nil {
		t.Error("Dump of a missing file: no error")
	}
}
