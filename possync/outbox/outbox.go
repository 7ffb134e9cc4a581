// Package outbox is a durable possync.Store: a SQLite file on the POS
// machine that keeps the checks a possync.Agent has not delivered yet and
// the payments it has saved but not yet accepted, so that a restart or a
// crash loses neither.
//
//	store, err := outbox.Open("hospo-outbox.db", locationID)
//	if err != nil { ... }
//	agent, err := possync.NewAgent(svc, possync.AgentConfig{
//		LocationID:  locationID,
//		SavePayment: pos.SavePayment,
//		Store:       store, // the agent closes it when Run returns
//	})
//
// Open uses github.com/mattn/go-sqlite3, so it needs cgo and a C compiler.
// An application that opens its SQLite database itself, with that driver
// or a cgo-free one (modernc.org/sqlite, github.com/ncruces/go-sqlite3),
// passes the *sql.DB to New instead; the package then needs no cgo, and
// neither does package possync.
package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hospo-dev/hospo-go/possync"
)

// SQLite is a possync.Store in a SQLite file.
//
// The file is in WAL mode with synchronous=FULL: a committed write
// survives a power cut, which matters for the saved-payment records.
// Exclusive locking keeps a second agent (or a second copy of the POS
// program) from opening the file while one has it, since two agents
// sharing it could deliver and save twice. The rows of one file are
// scoped by location, so one file could serve several locations in turn.
type SQLite struct {
	db       *sql.DB
	location int64
	ownsDB   bool // opened by Open, so closed by Close
}

var _ possync.JSONStore = (*SQLite)(nil)

// schema is one statement at a time: not every driver runs several in one
// Exec.
var schema = []string{`
CREATE TABLE IF NOT EXISTS outbox (
	location_id  INTEGER NOT NULL,
	check_number INTEGER NOT NULL,
	check_json   TEXT NOT NULL,
	queued_at    INTEGER NOT NULL, -- Unix nanoseconds of the first undelivered push
	PRIMARY KEY (location_id, check_number)
)`, `
CREATE TABLE IF NOT EXISTS saved_payments (
	location_id  INTEGER NOT NULL,
	payment_id   INTEGER NOT NULL,
	check_number INTEGER NOT NULL,
	saved_at     INTEGER NOT NULL,
	PRIMARY KEY (location_id, payment_id)
)`}

// New keeps the outbox of the location whose POS this is in db, a SQLite
// database the application opened with the driver of its choice, creating
// the outbox's two tables (outbox, saved_payments) if they are missing.
// The application keeps db: Close leaves it open.
//
// The outbox is as durable as db is configured to be. Open's settings are
// the ones to copy: journal_mode=WAL and synchronous=FULL, so that a
// committed write survives a power cut, and one agent per file (two
// agents sharing one could deliver and save twice).
func New(ctx context.Context, db *sql.DB, locationID int64) (*SQLite, error) {
	if db == nil {
		return nil, errors.New("outbox: nil *sql.DB")
	}
	if err := createTables(ctx, db); err != nil {
		return nil, fmt.Errorf("outbox: create tables: %w", err)
	}
	return &SQLite{db: db, location: locationID}, nil
}

func createTables(ctx context.Context, db *sql.DB) error {
	for _, stmt := range schema {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// Load returns the undelivered checks, oldest first, and the ids of the
// payments saved but not accepted.
func (o *SQLite) Load(ctx context.Context) ([]*possync.Check, []int64, error) {
	rows, err := o.db.QueryContext(ctx,
		`SELECT check_json FROM outbox WHERE location_id = ? ORDER BY queued_at, check_number`, o.location)
	if err != nil {
		return nil, nil, fmt.Errorf("outbox: load: %w", err)
	}
	var checks []*possync.Check
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("outbox: load: %w", err)
		}
		c := new(possync.Check)
		if err := json.Unmarshal(b, c); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("outbox: load: corrupt check: %w", err)
		}
		checks = append(checks, c)
	}
	if err := rows.Close(); err != nil {
		return nil, nil, fmt.Errorf("outbox: load: %w", err)
	}
	rows, err = o.db.QueryContext(ctx,
		`SELECT payment_id FROM saved_payments WHERE location_id = ? ORDER BY payment_id`, o.location)
	if err != nil {
		return nil, nil, fmt.Errorf("outbox: load: %w", err)
	}
	defer rows.Close()
	var saved []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, nil, fmt.Errorf("outbox: load: %w", err)
		}
		saved = append(saved, id)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("outbox: load: %w", err)
	}
	return checks, saved, nil
}

// SaveChecks writes the newest state of the checks in put and deletes the
// rows of the check numbers in remove, in one transaction (one fsync for a
// whole batch).
func (o *SQLite) SaveChecks(ctx context.Context, put []*possync.Check, remove []int64) error {
	encoded := make([]possync.CheckJSON, len(put))
	for i, c := range put {
		b, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("outbox: encode check %d: %w", c.CheckNumber, err)
		}
		encoded[i] = possync.CheckJSON{CheckNumber: c.CheckNumber, JSON: b}
	}
	return o.SaveCheckJSON(ctx, encoded, remove)
}

// SaveCheckJSON is SaveChecks of checks already encoded, which is how a
// possync.Agent writes them: the JSON goes into the file as it is, the
// same text SaveChecks writes.
func (o *SQLite) SaveCheckJSON(ctx context.Context, put []possync.CheckJSON, remove []int64) error {
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	now := time.Now().UnixNano()
	if len(put) > 0 {
		// queued_at keeps the time of the first undelivered push, so that
		// after a restart checks go out in the order they first waited.
		st, err := tx.PrepareContext(ctx, `INSERT INTO outbox (location_id, check_number, check_json, queued_at)
			VALUES (?, ?, ?, ?)
			ON CONFLICT (location_id, check_number) DO UPDATE SET check_json = excluded.check_json`)
		if err != nil {
			return fmt.Errorf("outbox: %w", err)
		}
		defer st.Close()
		for _, c := range put {
			// A string: the column is TEXT, and the driver copies it.
			if _, err := st.ExecContext(ctx, o.location, c.CheckNumber, string(c.JSON), now); err != nil {
				return fmt.Errorf("outbox: %w", err)
			}
		}
	}
	if len(remove) > 0 {
		st, err := tx.PrepareContext(ctx, `DELETE FROM outbox WHERE location_id = ? AND check_number = ?`)
		if err != nil {
			return fmt.Errorf("outbox: %w", err)
		}
		defer st.Close()
		for _, n := range remove {
			if _, err := st.ExecContext(ctx, o.location, n); err != nil {
				return fmt.Errorf("outbox: %w", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	return nil
}

// PutSavedPayment records that SavePayment succeeded for a payment; it is
// on disk when PutSavedPayment returns.
func (o *SQLite) PutSavedPayment(ctx context.Context, paymentID, checkNumber int64) error {
	_, err := o.db.ExecContext(ctx, `INSERT OR IGNORE INTO saved_payments (location_id, payment_id, check_number, saved_at)
		VALUES (?, ?, ?, ?)`, o.location, paymentID, checkNumber, time.Now().Unix())
	if err != nil {
		return fmt.Errorf("outbox: record saved payment: %w", err)
	}
	return nil
}

// DeleteSavedPayment forgets a payment once it is accepted.
func (o *SQLite) DeleteSavedPayment(ctx context.Context, paymentID int64) error {
	_, err := o.db.ExecContext(ctx, `DELETE FROM saved_payments WHERE location_id = ? AND payment_id = ?`, o.location, paymentID)
	if err != nil {
		return fmt.Errorf("outbox: forget saved payment: %w", err)
	}
	return nil
}

// Close closes the file that Open opened (SQLite checkpoints the WAL
// into it); a store made by New leaves the application's *sql.DB open.
func (o *SQLite) Close() error {
	if !o.ownsDB {
		return nil
	}
	return o.db.Close()
}
