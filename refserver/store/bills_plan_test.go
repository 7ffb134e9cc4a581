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
