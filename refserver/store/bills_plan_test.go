package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBillQueriesUseIndexes checks the query plans of the bill read path:
// every table is reached through an index or its primary key, never by a
// full scan, and the closed-bills list needs no sort, so the endpoints stay
// fast however many bills a server holds.
func TestBillQueriesUseIndexes(t *testing.T) {
	t.Parallel()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "plan.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tests := []struct {
		name string
		sql  string
		args []any
		want string // a step the plan must contain
		scan bool   // whether a full scan is expected (the console lists every location)
	}{
		{"list", closedBillsFirstSQL, []any{1, 0, 10, 512}, "USING COVERING INDEX bills_closed", false},
		// A page after the first seeks to the bill after the last one
		// read, rather than stepping over the pages before it.
		{"list, next page", closedBillsNextSQL, []any{1, 0, 10, 512, "b"},
			"USING COVERING INDEX bills_closed (location_id=? AND (last_updated,bill_id)>(?,?)", false},
		{"bill", getBillSQL, []any{"b"}, "USING INDEX sqlite_autoindex_bills_1", false},
		{"payments", billPaymentsSQL, []any{"b"}, "USING INDEX payments_bill", false},
		{"console open bills", consoleLocationQuery, nil, "USING COVERING INDEX bills_open", true},
	}
	err = db.Read(context.Background(), func(tx *Tx) error {
		for _, tt := range tests {
			rows, err := tx.query("EXPLAIN QUERY PLAN "+tt.sql, tt.args...)
			if err != nil {
				return err
			}
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					rows.Close()
					return err
				}
				plan = append(plan, detail)
			}
			rows.Close()
			joined := strings.Join(plan, " | ")
			if !strings.Contains(joined, tt.want) {
				t.Errorf("%s: plan %q lacks %q", tt.name, joined, tt.want)
			}
			for _, step := range plan {
				// A page of the list scans the rows of its own subquery.
				table := strings.HasPrefix(step, "SCAN ") && !strings.HasPrefix(step, "SCAN (subquery-")
				if (!tt.scan && table) || strings.Contains(step, "TEMP B-TREE") {
					t.Errorf("%s: plan %q has a full scan or a sort", tt.name, joined)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBillWritesBuildNoTemporaryIndex checks that writing a bill checks its
// status in place: a CHECK of the form status IN (three values) made
// SQLite build a temporary index each time an insert or a status update
// ran (migration 0034). The rule itself still holds.
func TestBillWritesBuildNoTemporaryIndex(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "status.db"), time.Now)
	var loc int64
	err := db.Write(t.Context(), func(tx *Tx) error {
		for _, q := range []string{insertBillSQL, updateBillSQL} {
			if addr := ephemeralOpen(t, tx, q); addr >= 0 {
				t.Errorf("%q opens a temporary table at %d", q, addr)
			}
		}
		var err error
		loc, err = tx.InsertLocation("Status", "providerB")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	row := func(number int64, status string) CheckRow {
		return CheckRow{NewBillID: "bill-" + status, LocationID: loc, CheckNumber: number, Status: status,
			ContentHash: status, CheckJSON: "{}"}
	}
	for _, status := range []string{"open", "closed", "void"} {
		if err := db.Write(t.Context(), func(tx *Tx) error { _, err := tx.PushCheck(row(1, status)); return err }); err != nil {
			t.Errorf("status %s refused: %v", status, err)
		}
	}
	for _, number := range []int64{1, 2} { // an update, an insert
		err := db.Write(t.Context(), func(tx *Tx) error { _, err := tx.PushCheck(row(number, "Open")); return err })
		if err == nil || !strings.Contains(err.Error(), "CHECK constraint failed") {
			t.Errorf("check %d with status Open: %v, want the CHECK constraint's error", number, err)
		}
	}
}
