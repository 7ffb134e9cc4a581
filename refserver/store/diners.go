package store

import (
	"database/sql"
	"fmt"
)

// SandboxDinerCard returns the sandbox diner's user and its card for
// gateway, or ErrNotFound when the diner has no card there yet.
func (tx *Tx) SandboxDinerCard(gateway string) (userID, cardID int64, err error) {
	err = tx.queryRow(`SELECT user_id, card_id FROM sandbox_diner_cards WHERE gateway = ?`, gateway).Scan(&userID, &cardID)
	return userID, cardID, notFound(err)
}

// SandboxDinerUser returns the sandbox diner's user, or ErrNotFound before
// it has a card.
func (tx *Tx) SandboxDinerUser() (int64, error) {
	var id int64
	err := tx.queryRow(`SELECT user_id FROM sandbox_diner_cards ORDER BY gateway LIMIT 1`).Scan(&id)
	return id, notFound(err)
}

// InsertSandboxDinerCard records cardID of userID as the sandbox diner's
// card for gateway.
func (tx *Tx) InsertSandboxDinerCard(gateway string, userID, cardID int64) error {
	_, err := tx.exec(`INSERT INTO sandbox_diner_cards (gateway, user_id, card_id) VALUES (?, ?, ?)`, gateway, userID, cardID)
	if err != nil {
		return fmt.Errorf("insert sandbox diner card: %w", err)
	}
	return nil
}

// OwedCheck is an open check with something owed: Outstanding hundredths,
// as the POS last pushed them.
type OwedCheck struct {
	CheckNumber int64
	Outstanding int64
}

// OwedChecksWithoutPending returns the location's open checks with
// something owed and no payment pending, by check number: the checks the
// diners on a timer pay.
func (tx *Tx) OwedChecksWithoutPending(locationID int64) ([]OwedCheck, error) {
	rows, err := tx.query(`SELECT b.check_number, b.outstanding_amount FROM bills b
		WHERE b.location_id = ? AND b.status = 'open' AND b.outstanding_amount > 0
		AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.bill_id = b.bill_id AND p.status = 'pending')
		ORDER BY b.check_number`, locationID)
	if err != nil {
		return nil, fmt.Errorf("owed checks: %w", err)
	}
	defer rows.Close()
	var out []OwedCheck
	for rows.Next() {
		var c OwedCheck
		if err := rows.Scan(&c.CheckNumber, &c.Outstanding); err != nil {
			return nil, fmt.Errorf("owed checks: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("owed checks: %w", err)
	}
	return out, nil
}

// Diners is a location's diners on a timer (a row of sandbox_diners).
type Diners struct {
	LocationID   int64
	EverySeconds int64
	Split        int64
	TipPercent   int64
	NextRunAt    int64  // virtual Unix seconds
	LastRunAt    *int64 // nil before the first round
	LastError    *string
	UpdatedAt    int64
}

const dinersColumns = `location_id, every_seconds, split, tip_percent, next_run_at, last_run_at, last_error, updated_at`

func scanDiners(sc scanner) (Diners, error) {
	var d Diners
	err := sc.Scan(&d.LocationID, &d.EverySeconds, &d.Split, &d.TipPercent, &d.NextRunAt, &d.LastRunAt, &d.LastError, &d.UpdatedAt)
	return d, err
}

// PutDiners creates or replaces a location's diners; the first round is
// due d.NextRunAt, and the last round's record is cleared.
func (tx *Tx) PutDiners(d Diners) error {
	_, err := tx.exec(`INSERT INTO sandbox_diners (`+dinersColumns+`) VALUES (?, ?, ?, ?, ?, NULL, NULL, ?)
		ON CONFLICT (location_id) DO UPDATE SET every_seconds = excluded.every_seconds, split = excluded.split,
		tip_percent = excluded.tip_percent, next_run_at = excluded.next_run_at, last_run_at = NULL,
		last_error = NULL, updated_at = excluded.updated_at`,
		d.LocationID, d.EverySeconds, d.Split, d.TipPercent, d.NextRunAt, tx.Unix())
	if err != nil {
		return fmt.Errorf("put diners: %w", err)
	}
	return nil
}

// GetDiners returns a location's diners, or ErrNotFound when it has none.
func (tx *Tx) GetDiners(locationID int64) (Diners, error) {
	d, err := scanDiners(tx.queryRow(`SELECT `+dinersColumns+` FROM sandbox_diners WHERE location_id = ?`, locationID))
	return d, notFound(err)
}

// DeleteDiners stops a location's diners; it reports whether there were
// any.
func (tx *Tx) DeleteDiners(locationID int64) (bool, error) {
	res, err := tx.exec(`DELETE FROM sandbox_diners WHERE location_id = ?`, locationID)
	if err != nil {
		return false, fmt.Errorf("delete diners: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// DueDiners returns the locations whose diners' next round is due at the
// transaction's time, and the earliest next round of the others (0 when
// there is none).
func (tx *Tx) DueDiners() (due []int64, next int64, err error) {
	now := tx.Unix()
	rows, err := tx.query(`SELECT location_id FROM sandbox_diners WHERE next_run_at <= ? ORDER BY next_run_at, location_id`, now)
	if err != nil {
		return nil, 0, fmt.Errorf("due diners: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, 0, fmt.Errorf("due diners: %w", err)
		}
		due = append(due, id)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("due diners: %w", err)
	}
	var n sql.NullInt64
	if err := tx.queryRow(`SELECT min(next_run_at) FROM sandbox_diners WHERE next_run_at > ?`, now).Scan(&n); err != nil {
		return nil, 0, fmt.Errorf("due diners: %w", err)
	}
	return due, n.Int64, nil
}

// RecordDinersRun records a round of a location's diners at the
// transaction's time: the next is due next (Unix seconds), and lastError
// is why the round failed ("" when it did not).
func (tx *Tx) RecordDinersRun(locationID, next int64, lastError string) error {
	_, err := tx.exec(`UPDATE sandbox_diners SET next_run_at = ?, last_run_at = ?, last_error = NULLIF(?, '')
		WHERE location_id = ?`, next, tx.Unix(), lastError, locationID)
	if err != nil {
		return fmt.Errorf("record diners run: %w", err)
	}
	return nil
}
