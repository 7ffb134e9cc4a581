package store

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/hospo-dev/hospo-go/sandbox"
)

// DemoPOSMode is how the demo universal POS behaves for a location (a row
// of demo_pos_modes).
type DemoPOSMode struct {
	LocationID   int64
	Mode         string // accept, reject, fail-then-accept, slow, offline
	FailCount    int64
	FailuresLeft int64 // 503s still to give (fail-then-accept)
	DelayMs      int64
	UpdatedAt    int64
}

// PutDemoPOSMode creates or replaces a location's demo POS mode; a
// fail-then-accept mode starts with FailCount failures left.
func (tx *Tx) PutDemoPOSMode(m DemoPOSMode) error {
	_, err := tx.exec(`INSERT INTO demo_pos_modes (location_id, mode, fail_count, failures_left, delay_ms, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (location_id) DO UPDATE SET mode = excluded.mode, fail_count = excluded.fail_count,
		failures_left = excluded.failures_left, delay_ms = excluded.delay_ms, updated_at = excluded.updated_at`,
		m.LocationID, m.Mode, m.FailCount, m.FailCount, m.DelayMs, tx.Unix())
	if err != nil {
		return fmt.Errorf("put demo POS mode: %w", err)
	}
	return nil
}

// GetDemoPOSMode returns a location's demo POS mode. A location whose mode
// was never set has the default one, accept: the demo POS accepts every
// order.
func (tx *Tx) GetDemoPOSMode(locationID int64) (DemoPOSMode, error) {
	m := DemoPOSMode{LocationID: locationID, Mode: string(sandbox.DemoPOSAccept)}
	err := tx.queryRow(`SELECT location_id, mode, fail_count, failures_left, delay_ms, updated_at
		FROM demo_pos_modes WHERE location_id = ?`, locationID).
		Scan(&m.LocationID, &m.Mode, &m.FailCount, &m.FailuresLeft, &m.DelayMs, &m.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return m, nil
	}
	return m, err
}

// TakeDemoPOSFailure spends one of the failures a fail-then-accept mode
// has left and reports whether there was one: the order it answers fails.
func (tx *Tx) TakeDemoPOSFailure(locationID int64) (bool, error) {
	res, err := tx.exec(`UPDATE demo_pos_modes SET failures_left = failures_left - 1
		WHERE location_id = ? AND mode = 'fail-then-accept' AND failures_left > 0`, locationID)
	if err != nil {
		return false, fmt.Errorf("take demo POS failure: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
