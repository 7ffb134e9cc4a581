package outbox_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/possync"
)

type refusingAPI struct{ possync.API }

// rows reads the outbox table of the file at path, check number to text.
func rows(t *testing.T, path string) map[int64]string {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rs, err := db.Query(`SELECT check_number, check_json FROM outbox`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	out := map[int64]string{}
	for rs.Next() {
		var n int64
		var j string
		if err := rs.Scan(&n, &j); err != nil {
			t.Fatal(err)
		}
		out[n] = j
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The rows an Agent writes (SaveCheckJSON, the check's JSON as queued) are
// the rows SaveChecks writes for the same checks, so that files written
// either way, by this version or an earlier one, load the same; and an
// Agent loads a file SaveChecks wrote.
func TestAgentRowsAreSaveChecksRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	checks := []*possync.Check{check(1, 100), check(2, 250)}
	checks[1].MenuItems[0].Name = `Fish & "chips" <large>` // escaped by encoding/json's rules

	byStore := filepath.Join(dir, "savechecks.db")
	o := open(t, byStore, 1)
	if err := o.SaveChecks(ctx, checks, nil); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}

	byAgent := filepath.Join(dir, "agent.db")
	newAgent := func(path string) *possync.Agent {
		t.Helper()
		a, err := possync.NewAgent(refusingAPI{}, possync.AgentConfig{
			LocationID:  1,
			SavePayment: func(context.Context, int64, possync.PaymentNotification) error { return nil },
			Store:       open(t, path, 1),
		})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := newAgent(byAgent)
	for _, c := range checks {
		if err := a.Push(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil { // writes the pushes
		t.Fatal(err)
	}

	want := rows(t, byStore)
	if len(want) != 2 {
		t.Fatalf("SaveChecks wrote %d rows, want 2", len(want))
	}
	if diff := cmp.Diff(want, rows(t, byAgent)); diff != "" {
		t.Errorf("rows the agent wrote (-SaveChecks' +agent's):\n%s", diff)
	}

	// An agent on the file SaveChecks wrote queues both checks.
	b := newAgent(byStore)
	defer b.Close()
	if q := b.Stats().Queued; q != 2 {
		t.Errorf("Queued = %d, want 2", q)
	}
}
