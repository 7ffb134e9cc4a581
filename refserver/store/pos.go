package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"weak"
)

// CheckRow is what a POS check push writes to the bills table. Money is in
// hundredths.
type CheckRow struct {
	LocationID  int64
	CheckNumber int64
	Status      string // open, closed or void
	// ContentHash identifies CheckJSON's content: a push with the hash
	// already stored changes nothing, not even the version.
	ContentHash string
	// CheckJSON is the check in its canonical encoding. It is stored as
	// TEXT (a []byte would be stored as a BLOB, which SQLite's JSON
	// functions read as JSONB).
	CheckJSON           string
	TableNumber         int64
	StaffID             string
	Guests              int64
	TotalAmount         int64
	OutstandingAmount   int64
	ServiceChargeAmount int64
	TipsPaid            int64
}

// The check push's statements. The push runs them in the write
// transaction, which holds SQLite's write lock from BEGIN IMMEDIATE, so a
// read followed by a write of the same bill cannot race another push.
// Measured on the reference machine, this lookup plus a plain INSERT or
// UPDATE costs half of a single INSERT ... ON CONFLICT DO UPDATE ...
// RETURNING (SQLite runs RETURNING through a temporary table), and an
// unchanged push writes nothing at all.
const (
	lookupBillSQL = `SELECT rowid, bill_id, version, content_hash FROM bills WHERE location_id = ? AND check_number = ?`
	insertBillSQL = `INSERT INTO bills (bill_id, location_id, check_number, status, version, content_hash, check_json,
	table_number, staff_id, guests, total_amount, outstanding_amount, service_charge_amount, tips_paid,
	created_at, last_updated)
VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	updateBillSQL = `UPDATE bills SET status = ?, version = ?, content_hash = ?, check_json = ?,
	table_number = ?, staff_id = ?, guests = ?, total_amount = ?, outstanding_amount = ?,
	service_charge_amount = ?, tips_paid = ?, last_updated = ?
WHERE rowid = ?`
)

// POSStatements are the check push's statements, compiled once per
// database on its writer connection. A push runs them inside the single
// writer's transaction, where SQLite's statement compilation (about as
// costly as running them) would otherwise be paid on every push while
// every other writer waits.
type POSStatements struct {
	lookup, insert, update *sql.Stmt
}

// posStmts caches the POSStatements of each open DB. The key is a weak
// pointer, so the cache does not keep a closed DB alive; a cleanup removes
// the entry once the DB is collected.
var posStmts sync.Map // weak.Pointer[DB] -> *posStmtsEntry

type posStmtsEntry struct {
	once sync.Once
	st   *POSStatements
	err  error
}

// POSStatements returns the push path's prepared statements, preparing
// them on first use.
func (db *DB) POSStatements(ctx context.Context) (*POSStatements, error) {
	key := weak.Make(db)
	v, loaded := posStmts.Load(key)
	if !loaded {
		v, loaded = posStmts.LoadOrStore(key, &posStmtsEntry{})
		if !loaded {
			runtime.AddCleanup(db, func(k weak.Pointer[DB]) { posStmts.Delete(k) }, key)
		}
	}
	e := v.(*posStmtsEntry)
	e.once.Do(func() { e.st, e.err = db.preparePOS(ctx) })
	if e.err != nil {
		// Not cached: a cancelled ctx must not spoil the cache for good.
		posStmts.CompareAndDelete(key, e)
		return nil, e.err
	}
	return e.st, nil
}

func (db *DB) preparePOS(ctx context.Context) (*POSStatements, error) {
	st := &POSStatements{}
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{{&st.lookup, lookupBillSQL}, {&st.insert, insertBillSQL}, {&st.update, updateBillSQL}} {
		s, err := db.write.PrepareContext(ctx, p.sql)
		if err != nil {
			st.close()
			return nil, fmt.Errorf("prepare check push statements: %w", err)
		}
		*p.dst = s
	}
	return st, nil
}

func (st *POSStatements) close() {
	for _, s := range []*sql.Stmt{st.lookup, st.insert, st.update} {
		if s != nil {
			s.Close()
		}
	}
}

// UpsertCheck stores a pushed check as the bill of (LocationID,
// CheckNumber). A new bill gets newBillID and version 1; a push whose
// content differs from the stored one bumps the version and sets
// last_updated to the transaction's time; an identical push changes
// nothing. It returns the bill's id and version and whether anything was
// written. st are the statements of tx's DB (DB.POSStatements); tx must be
// a write transaction.
func (tx *Tx) UpsertCheck(st *POSStatements, newBillID string, c CheckRow) (billID string, version int64, changed bool, err error) {
	now := tx.Unix()
	// Tx.StmtContext reuses the statement already compiled on the writer
	// connection, which is the connection of every write transaction.
	var (
		rowid int64
		hash  string
	)
	err = tx.tx.StmtContext(tx.ctx, st.lookup).QueryRowContext(tx.ctx, c.LocationID, c.CheckNumber).
		Scan(&rowid, &billID, &version, &hash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.tx.StmtContext(tx.ctx, st.insert).ExecContext(tx.ctx,
			newBillID, c.LocationID, c.CheckNumber, c.Status, c.ContentHash, c.CheckJSON,
			c.TableNumber, c.StaffID, c.Guests, c.TotalAmount, c.OutstandingAmount, c.ServiceChargeAmount, c.TipsPaid,
			now, now)
		if err != nil {
			return "", 0, false, fmt.Errorf("insert check: %w", err)
		}
		return newBillID, 1, true, nil
	case err != nil:
		return "", 0, false, fmt.Errorf("look up check: %w", err)
	case hash == c.ContentHash:
		return billID, version, false, nil
	}
	version++
	_, err = tx.tx.StmtContext(tx.ctx, st.update).ExecContext(tx.ctx,
		c.Status, version, c.ContentHash, c.CheckJSON,
		c.TableNumber, c.StaffID, c.Guests, c.TotalAmount, c.OutstandingAmount, c.ServiceChargeAmount, c.TipsPaid,
		now, rowid)
	if err != nil {
		return "", 0, false, fmt.Errorf("update check: %w", err)
	}
	return billID, version, true, nil
}

// PendingPayment is a payment that the location's POS has not accepted yet.
// Money is in hundredths.
type PendingPayment struct {
	PaymentID   int64
	CheckNumber int64
	Amount      int64 // excluding the tip
	Tip         int64
}

// PendingPayments returns the location's payments with status pending,
// oldest first (payment ids grow with time; the payments_pending index
// (location_id, status, payment_id) serves the scan in that order).
func (tx *Tx) PendingPayments(locationID int64) ([]PendingPayment, error) {
	rows, err := tx.query(`SELECT payment_id, check_number, amount, tip FROM payments
		WHERE location_id = ? AND status = 'pending' ORDER BY payment_id`, locationID)
	if err != nil {
		return nil, fmt.Errorf("pending payments: %w", err)
	}
	defer rows.Close()
	var out []PendingPayment
	for rows.Next() {
		var p PendingPayment
		if err := rows.Scan(&p.PaymentID, &p.CheckNumber, &p.Amount, &p.Tip); err != nil {
			return nil, fmt.Errorf("pending payments: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pending payments: %w", err)
	}
	return out, nil
}

// AcceptPayment marks a payment of the location accepted at the
// transaction's time. Accepting an accepted payment changes nothing and is
// not an error. It returns ErrNotFound for an unknown payment id and for
// one of another location, which the caller must not tell apart.
func (tx *Tx) AcceptPayment(locationID, paymentID int64) error {
	res, err := tx.exec(`UPDATE payments SET status = 'accepted', accepted_at = ?
		WHERE payment_id = ? AND location_id = ? AND status = 'pending'`, tx.Unix(), paymentID, locationID)
	if err != nil {
		return fmt.Errorf("accept payment: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("accept payment: %w", err)
	} else if n == 1 {
		return nil
	}
	var one int
	err = tx.queryRow(`SELECT 1 FROM payments WHERE payment_id = ? AND location_id = ?`, paymentID, locationID).Scan(&one)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return fmt.Errorf("accept payment: %w", err)
	}
	return nil // already accepted
}

// TouchHeartbeat records a POS heartbeat for the location at the
// transaction's time. It returns ErrNotFound for an unknown location.
func (tx *Tx) TouchHeartbeat(locationID int64) error {
	res, err := tx.exec(`UPDATE locations SET last_heartbeat = ? WHERE location_id = ?`, tx.Unix(), locationID)
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}
