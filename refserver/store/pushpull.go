package store

import (
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/hospo-dev/hospo-go/possync"
)

// CheckRow is what a POS check push writes to the bills table. Money is in
// hundredths.
type CheckRow struct {
	// NewBillID is the id the bill gets if this push creates it.
	NewBillID   string
	LocationID  int64
	CheckNumber int64
	Status      string // open, closed or void
	// ContentHash identifies CheckJSON's content: a push with the hash
	// already stored changes nothing, not even the version.
	ContentHash string
	// CheckJSON is the check in its canonical encoding. It is stored as
	// TEXT (a []byte would be stored as a BLOB, which SQLite's JSON
	// functions read as JSONB).
	CheckJSON string
	CheckSummary
}

// NewCheckRow returns the row of a pushed check, which must be valid. The
// check is stored and hashed in its canonical encoding
// (possync.Check.MarshalJSON: fixed field order, money with two decimals),
// so that a push that differs only in formatting or field order is the
// same content. It runs outside the write transaction: the encoding, the
// hash and the id cost nothing there.
func NewCheckRow(c *possync.Check) (CheckRow, error) {
	canonical, err := c.MarshalJSON()
	if err != nil {
		return CheckRow{}, err
	}
	sum := sha256.Sum256(canonical)
	return CheckRow{
		NewBillID:   newBillID(time.Now()),
		LocationID:  c.LocationID,
		CheckNumber: c.CheckNumber,
		Status:      string(c.Status),
		ContentHash: hex.EncodeToString(sum[:]),
		CheckJSON:   string(canonical),
		CheckSummary: CheckSummary{
			TableNumber:         int64(c.TableNumber),
			StaffID:             c.StaffID,
			Guests:              int64(c.Guests),
			TotalAmount:         c.TotalAmount.Cents(),
			OutstandingAmount:   c.OutstandingAmount.Cents(),
			ServiceChargeAmount: c.ServiceChargeAmount.Cents(),
			TipsPaid:            c.TipsPaid.Cents(),
		},
	}, nil
}

// newBillID returns the id of a new bill: a UUID of version 7 (RFC 9562),
// the time of now in milliseconds followed by 74 random bits. Ids in time
// order land at the end of the bills table's primary key index, where a
// batch of new bills shares a few pages, rather than one page each
// scattered across it: every page a transaction changes is written to the
// WAL again.
func newBillID(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[6:]) // crypto/rand.Read never fails
	ms := uint64(now.UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// The check push's statements. The push runs them in the write
// transaction, which holds SQLite's write lock from BEGIN IMMEDIATE, so a
// read followed by a write of the same bill cannot race another push. A
// lookup and then a plain INSERT or UPDATE costs less than one INSERT ...
// ON CONFLICT DO UPDATE ... RETURNING, which SQLite runs through a
// temporary table (BENCHMARKS.md), and an unchanged push writes nothing
// at all.
const (
	lookupBillSQL = `SELECT rowid, bill_id, version, content_hash, status FROM bills WHERE location_id = ? AND check_number = ?`
	insertBillSQL = `INSERT INTO bills (bill_id, location_id, check_number, status, version, content_hash, check_json,
	table_number, staff_id, guests, total_amount, outstanding_amount, service_charge_amount, tips_paid,
	created_at, last_updated)
VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	updateBillSQL = `UPDATE bills SET status = ?, version = ?, content_hash = ?, check_json = ?,
	table_number = ?, staff_id = ?, guests = ?, total_amount = ?, outstanding_amount = ?,
	service_charge_amount = ?, tips_paid = ?, last_updated = ?
WHERE rowid = ?`
)

// CheckPush is what storing a pushed check did.
type CheckPush struct {
	BillID  string
	Version int64
	// Changed reports whether anything was written.
	Changed bool
	// Closed reports whether the push turned the bill's status to closed
	// (a new bill pushed closed, or an open or void one closed).
	Closed bool
}

// UpsertCheck stores a pushed check as the bill of (LocationID,
// CheckNumber) (see PushCheck) and returns the bill's id and version and
// whether anything was written.
func (tx *Tx) UpsertCheck(c CheckRow) (billID string, version int64, changed bool, err error) {
	p, err := tx.PushCheck(c)
	return p.BillID, p.Version, p.Changed, err
}

// PushCheck stores a pushed check as the bill of (LocationID,
// CheckNumber). A new bill gets NewBillID and version 1; a push whose
// content differs from the stored one bumps the version and sets
// last_updated to the transaction's time; an identical push changes
// nothing. tx must be a write transaction.
//
// A check this process has not seen stored is inserted at once, with no
// lookup first: most such checks are new, and a lookup that finds nothing
// cost a query, about a tenth of a push. If the check was stored after
// all (before this process started, or the set of seen checks was full),
// the insert fails on the unique (location_id, check_number) and the push
// goes on as for a seen check: a lookup, then an update if the content
// changed.
func (tx *Tx) PushCheck(c CheckRow) (CheckPush, error) {
	now := tx.Unix()
	key := billKey{c.LocationID, c.CheckNumber}
	if !tx.db.bills.seen(key) {
		p, err := tx.insertCheck(c, now)
		if !isUniqueViolation(err) {
			if err == nil {
				tx.db.bills.add(key)
			}
			return p, err
		}
		tx.db.bills.add(key)
	}
	var (
		rowid      int64
		hash, prev string
		p          CheckPush
	)
	err := tx.queryRow(lookupBillSQL, c.LocationID, c.CheckNumber).
		Scan(&rowid, &p.BillID, &p.Version, &hash, &prev)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// Seen, but its insert was rolled back since.
		return tx.insertCheck(c, now)
	case err != nil:
		return CheckPush{}, fmt.Errorf("look up check: %w", err)
	case hash == c.ContentHash:
		return p, nil
	}
	p.Version++
	_, err = tx.exec(updateBillSQL,
		c.Status, p.Version, c.ContentHash, c.CheckJSON,
		c.TableNumber, c.StaffID, c.Guests, c.TotalAmount, c.OutstandingAmount, c.ServiceChargeAmount, c.TipsPaid,
		now, rowid)
	if err != nil {
		return CheckPush{}, fmt.Errorf("update check: %w", err)
	}
	p.Changed = true
	p.Closed = c.Status == billClosed && prev != billClosed
	return p, nil
}

// insertCheck stores c as a new bill, created and last updated at now.
func (tx *Tx) insertCheck(c CheckRow, now int64) (CheckPush, error) {
	_, err := tx.exec(insertBillSQL,
		c.NewBillID, c.LocationID, c.CheckNumber, c.Status, c.ContentHash, c.CheckJSON,
		c.TableNumber, c.StaffID, c.Guests, c.TotalAmount, c.OutstandingAmount, c.ServiceChargeAmount, c.TipsPaid,
		now, now)
	if err != nil {
		return CheckPush{}, fmt.Errorf("insert check: %w", err)
	}
	return CheckPush{BillID: c.NewBillID, Version: 1, Changed: true, Closed: c.Status == billClosed}, nil
}

// isUniqueViolation reports whether err is SQLite's refusal of a row
// whose UNIQUE columns another row holds.
func isUniqueViolation(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintUnique
}

// billKey is a bill's (location_id, check_number).
type billKey struct{ location, check int64 }

// billKeysMax bounds the checks billKeys remembers: about 10 MB of map.
// Past it, the set starts again empty, which costs the checks pushed
// again a failed insert each.
const billKeysMax = 1 << 18

// billKeys is the set of the checks this process has seen stored (Tx.PushCheck).
// It is a hint, right or wrong: a check it lacks is tried as an insert
// first, one it holds is looked up first, and either way the push ends
// right. So a rollback, a restore or a wipe needs nothing from it.
type billKeys struct {
	mu sync.Mutex
	m  map[billKey]struct{}
}

func (k *billKeys) seen(key billKey) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.m[key]
	return ok
}

func (k *billKeys) add(key billKey) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil || len(k.m) >= billKeysMax {
		k.m = make(map[billKey]struct{})
	}
	k.m[key] = struct{}{}
}

// billClosed is the status of a closed bill.
const billClosed = "closed"

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
// not an error; accepted reports whether this call accepted it. It returns
// ErrNotFound for an unknown payment id and for one of another location,
// which the caller must not tell apart.
func (tx *Tx) AcceptPayment(locationID, paymentID int64) (accepted bool, err error) {
	res, err := tx.exec(`UPDATE payments SET status = 'accepted', accepted_at = ?
		WHERE payment_id = ? AND location_id = ? AND status = 'pending'`, tx.Unix(), paymentID, locationID)
	if err != nil {
		return false, fmt.Errorf("accept payment: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return false, fmt.Errorf("accept payment: %w", err)
	} else if n == 1 {
		return true, nil
	}
	var one int
	err = tx.queryRow(`SELECT 1 FROM payments WHERE payment_id = ? AND location_id = ?`, paymentID, locationID).Scan(&one)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return false, ErrNotFound
		}
		return false, fmt.Errorf("accept payment: %w", err)
	}
	return false, nil // already accepted
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
