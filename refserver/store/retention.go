package store

import (
	"context"
	"fmt"
	"time"
)

// Retention is how long the rows of a table that grows with time are kept:
// a row whose Column (Unix seconds on the virtual clock) is Keep or more in
// the past is swept.
type Retention struct {
	// Name names the rows in logs and measurements.
	Name   string
	Table  string
	Column string
	Keep   time.Duration
}

// Retentions are the tables that grow with time and what bounds them. The
// rest of the data (bills, payments, orders) is the history a sandbox is
// kept for and stays until a reset. The request journal is a ring in
// memory and needs no sweep.
var Retentions = []Retention{
	// An event's deliveries go with it (ON DELETE CASCADE, by the index on
	// their event): a delivery is never older than its event.
	{Name: "events", Table: "events", Column: "created_at", Keep: EventRetention},
	{Name: "idempotency records", Table: "idempotency_keys", Column: "created_at", Keep: IdempotencyRetention},
	// expires_at, not created_at: a key is kept ProviderDKeyRetention
	// after it expired.
	{Name: "providerD keys", Table: "providerd_keys", Column: "expires_at", Keep: ProviderDKeyRetention},
}

// EventRetention is how long events, and their deliveries, are kept
// (contract section 8: 7 days on the virtual clock); a feed cursor older
// than that is refused.
const EventRetention = 7 * 24 * time.Hour

// SweepChunk is the most rows one sweep transaction deletes. The writer is
// shared by every request, so a sweep after the clock jumps a month goes
// in chunks that each hold it for a few milliseconds, and requests'
// writes run between them.
const SweepChunk = 1000

// sweepExpired deletes at most limit rows of r that are past their
// retention and returns how many went. Each table has an index on its
// column, so finding them reads only the rows that go.
func (tx *Tx) sweepExpired(r Retention, limit int) (int64, error) {
	cutoff := tx.Now().Add(-r.Keep).Unix()
	res, err := tx.exec(`DELETE FROM `+r.Table+` WHERE rowid IN
		(SELECT rowid FROM `+r.Table+` WHERE `+r.Column+` <= ? LIMIT ?)`, cutoff, limit)
	if err != nil {
		return 0, fmt.Errorf("sweep %s: %w", r.Name, err)
	}
	return res.RowsAffected()
}

// SweepStats is what one Sweep deleted, per Retention name, and in how many
// transactions.
type SweepStats struct {
	Deleted      map[string]int64
	Transactions int
}

// Sweep deletes every row past its retention, in transactions of at most
// SweepChunk rows each, and returns what it deleted.
func (db *DB) Sweep(ctx context.Context) (SweepStats, error) {
	st := SweepStats{Deleted: map[string]int64{}}
	for _, r := range Retentions {
		for {
			var n int64
			err := db.Write(ctx, func(tx *Tx) error {
				var err error
				n, err = tx.sweepExpired(r, SweepChunk)
				return err
			})
			st.Transactions++
			if err != nil {
				return st, err
			}
			st.Deleted[r.Name] += n
			if n < SweepChunk {
				break
			}
		}
	}
	return st, nil
}
