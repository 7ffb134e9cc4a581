package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatusWritesBuildNoTemporaryIndex checks that the busy tables other
// than bills check their status in place too: a CHECK of the form status
// IN (three or more values) made SQLite build a temporary index every time
// an insert or a status update ran (migration 0062). Each rule still holds:
// every status of the list is taken, and any other refused, on insert and
// on update.
func TestStatusWritesBuildNoTemporaryIndex(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "status.db"), time.Now)
	tables := []struct {
		insert, update string // insert: the status is the last parameter; update: the first, then the row's key
		statuses       []string
	}{
		{
			`INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_seq, created_at, status) VALUES (?, 'wh', 1, 0, ?)`,
			`UPDATE webhook_deliveries SET status = ? WHERE delivery_id = ?`,
			[]string{"pending", "delivered", "failed"},
		},
		{
			`INSERT INTO orders (order_id, user_id, location_id, items_json, total, created_at, updated_at, status) VALUES (?, 1, 1, '[]', 0, 0, 0, ?)`,
			`UPDATE orders SET status = ? WHERE order_id = ?`,
			[]string{"created", "fulfillment_set", "sent_to_pos", "accepted_by_pos", "failed"},
		},
	}
	errRollback := errors.New("roll back")
	err := db.Write(t.Context(), func(tx *Tx) error {
		// The rows point at no webhook, event, user or location; the
		// transaction is rolled back.
		if _, err := tx.exec(`PRAGMA defer_foreign_keys = ON`); err != nil {
			return err
		}
		for _, tt := range tables {
			for _, q := range []string{tt.insert, tt.update} {
				if addr := ephemeralOpen(t, tx, q); addr >= 0 {
					t.Errorf("%q opens a temporary table at %d", q, addr)
				}
			}
			for i, status := range tt.statuses {
				id := "k" + status
				if _, err := tx.exec(tt.insert, id, status); err != nil {
					t.Errorf("%q with status %s: %v", tt.insert, status, err)
				}
				next := tt.statuses[(i+1)%len(tt.statuses)]
				if _, err := tx.exec(tt.update, next, id); err != nil {
					t.Errorf("%q to status %s: %v", tt.update, next, err)
				}
			}
			bad := strings.ToUpper(tt.statuses[0][:1]) + tt.statuses[0][1:]
			if _, err := tx.exec(tt.insert, "kbad", bad); err == nil || !strings.Contains(err.Error(), "CHECK constraint failed") {
				t.Errorf("%q with status %s: %v, want the CHECK constraint's error", tt.insert, bad, err)
			}
			if _, err := tx.exec(tt.update, bad, "k"+tt.statuses[0]); err == nil || !strings.Contains(err.Error(), "CHECK constraint failed") {
				t.Errorf("%q to status %s: %v, want the CHECK constraint's error", tt.update, bad, err)
			}
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
}

// ephemeralOpen returns the address of the first OpenEphemeral of q's
// program, or -1 when it opens no temporary table.
func ephemeralOpen(t *testing.T, tx *Tx, q string) int64 {
	t.Helper()
	rows, err := tx.query("EXPLAIN "+q, make([]any, strings.Count(q, "?"))...)
	if err != nil {
		t.Fatalf("EXPLAIN %q: %v", q, err)
	}
	defer rows.Close()
	for rows.Next() {
		var addr, p1, p2, p3, p5 int64
		var opcode string
		var p4, comment any
		if err := rows.Scan(&addr, &opcode, &p1, &p2, &p3, &p4, &p5, &comment); err != nil {
			t.Fatalf("EXPLAIN %q: %v", q, err)
		}
		if opcode == "OpenEphemeral" {
			return addr
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("EXPLAIN %q: %v", q, err)
	}
	return -1
}
