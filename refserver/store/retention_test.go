package store

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// fillExpiring stores n rows in each table of Retentions at now, through
// one transaction.
func fillExpiring(t testing.TB, db *DB, n int, tag string) {
	t.Helper()
	err := db.Write(t.Context(), func(tx *Tx) error {
		uid, err := tx.InsertUser()
		if err != nil {
			return err
		}
		for i := range n {
			id := fmt.Sprintf("%s-%d", tag, i)
			if err := tx.PutIdempotency(IdempotencyRecord{Credential: "c", Key: id, RequestHash: "h", Status: 200, Body: []byte("{}")}); err != nil {
				return err
			}
			if err := tx.InsertProviderDKey(ProviderDKey{KeyID: id, UserID: uid, PrivateJWK: "{}", ExpiresAt: tx.Unix()}); err != nil {
				return err
			}
			if _, err := tx.InsertEvent(Event{EventID: "evt_" + id, Type: "ping", DataJSON: "{}"}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The sweep deletes every row past its retention, in transactions of at
// most SweepChunk rows, and nothing that is still kept.
func TestSweepDeletesOnlyExpiredRowsInChunks(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	db := openTest(t, filepath.Join(t.TempDir(), "sweep.db"), func() time.Time { return now })
	old := 2*SweepChunk + 17
	fillExpiring(t, db, old, "old")
	now = now.Add(EventRetention + time.Hour) // past every retention for the first lot
	fillExpiring(t, db, 5, "new")

	st, err := db.Sweep(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Retentions {
		if got := st.Deleted[r.Name]; got != int64(old) {
			t.Errorf("%s: deleted %d, want %d", r.Name, got, old)
		}
	}
	// Three chunks for each table: two full, one with the rest.
	if want := 3 * len(Retentions); st.Transactions != want {
		t.Errorf("%d transactions, want %d", st.Transactions, want)
	}
	err = db.Read(t.Context(), func(tx *Tx) error {
		for _, r := range Retentions {
			n, err := tx.CountRows(r.Table)
			if err != nil {
				return err
			}
			if n != 5 {
				t.Errorf("%s: %d rows left, want the 5 still kept", r.Name, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkSweep measures the retention sweep: the cost of deleting one
// expired row, in chunks of SweepChunk, from tables that also hold rows
// still kept.
//
//	go test -run='^$' -bench=Sweep -benchtime=5x ./refserver/store/
func BenchmarkSweep(b *testing.B) {
	const rows = 50_000
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var deleted int64
	var elapsed time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		db := openTest(b, filepath.Join(b.TempDir(), "sweep.db"), func() time.Time { return now })
		fillExpiring(b, db, rows, fmt.Sprint("old", i))
		now = now.Add(EventRetention + time.Hour)
		fillExpiring(b, db, rows, fmt.Sprint("new", i))
		b.StartTimer()
		start := time.Now()
		st, err := db.Sweep(b.Context())
		elapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range st.Deleted {
			deleted += n
		}
	}
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(deleted), "ns/row")
}
