package store

import (
	"database/sql"
	"fmt"
)

// CheckSummary is what a bill keeps of its latest pushed check in columns
// of their own, beside the whole check in check_json: the table, the staff
// and the money, in hundredths. A push writes them (CheckRow), the bill
// endpoint and the console read them (Bill).
type CheckSummary struct {
	TableNumber         int64
	StaffID             string
	Guests              int64
	TotalAmount         int64
	OutstandingAmount   int64
	ServiceChargeAmount int64
	TipsPaid            int64
}

// Bill is a row of the bills table as the bill endpoint needs it. Money is
// in hundredths.
type Bill struct {
	BillID      string
	LocationID  int64
	CheckNumber int64
	Status      string // open, closed or void
	CheckJSON   []byte // the latest pushed check
	CheckSummary
	LastUpdated int64
}

// billColumns are the columns scanBill reads, in its order.
const billColumns = `bill_id, location_id, check_number, status, check_json,
	table_number, staff_id, guests, total_amount, outstanding_amount,
	service_charge_amount, tips_paid, last_updated`

// scanBill reads billColumns into b, and into extra the columns a query
// selects after them.
func scanBill(sc scanner, b *Bill, extra ...any) error {
	return sc.Scan(append([]any{&b.BillID, &b.LocationID, &b.CheckNumber, &b.Status, &b.CheckJSON,
		&b.TableNumber, &b.StaffID, &b.Guests, &b.TotalAmount, &b.OutstandingAmount,
		&b.ServiceChargeAmount, &b.TipsPaid, &b.LastUpdated}, extra...)...)
}

// BillPayment is a payment towards a bill with the last digits of the card
// that made it. Amounts are in hundredths.
type BillPayment struct {
	PaymentID int64
	UserID    int64
	Amount    int64
	Tip       int64
	Status    string
	CreatedAt int64
	CardLast4 string
}

// The statements of the bill read path. Each reaches its rows through an
// index (bills_plan_test.go checks the plans):
//   - listClosedBillsSQL: one range scan of the covering index bills_closed
//     (location_id, last_updated, bill_id) of the closed bills, already in
//     order. The status is written in the statement, not bound: SQLite uses
//     a partial index only when the query's own text implies its WHERE;
//   - getBillSQL: the bills primary key;
//   - billPaymentsSQL: the payments_bill index, then each card by its key.
const (
	listClosedBillsSQL = `SELECT bill_id, last_updated FROM bills
		WHERE location_id = ? AND status = 'closed' AND last_updated BETWEEN ? AND ?
		ORDER BY last_updated, bill_id`
	getBillSQL      = `SELECT ` + billColumns + ` FROM bills WHERE bill_id = ?`
	billPaymentsSQL = `SELECT p.payment_id, p.user_id, p.amount, p.tip, p.status, p.created_at, c.last4
		FROM payments p JOIN cards c ON c.card_id = p.card_id
		WHERE p.bill_id = ?
		ORDER BY p.payment_id`
)

// ClosedBills reads the closed bills of a location whose last_updated
// lies in [from, to] (Unix seconds, both included), ordered by last_updated
// then bill_id, one row at a time: a list of tens of thousands of bills
// goes to the response as it is read, never held whole in memory. It
// stops, with the error, once the transaction's context has ended.
type ClosedBills struct {
	rows        *rows
	billID      sql.RawBytes
	lastUpdated int64
	err         error
}

// ClosedBills starts the read; the caller must Close it.
func (tx *Tx) ClosedBills(locationID, from, to int64) (*ClosedBills, error) {
	rows, err := tx.query(listClosedBillsSQL, locationID, from, to)
	if err != nil {
		return nil, fmt.Errorf("list closed bills: %w", err)
	}
	return &ClosedBills{rows: rows}, nil
}

// Next moves to the next bill, and reports whether there is one.
func (c *ClosedBills) Next() bool {
	if c.err != nil || !c.rows.Next() {
		return false
	}
	// Scanning into RawBytes reuses one buffer for every id.
	if err := c.rows.Scan(&c.billID, &c.lastUpdated); err != nil {
		c.err = err
		return false
	}
	return true
}

// BillID is the current bill's id, valid until the next call of Next.
func (c *ClosedBills) BillID() []byte { return c.billID }

// LastUpdated is the current bill's last_updated, in Unix seconds.
func (c *ClosedBills) LastUpdated() int64 { return c.lastUpdated }

// Err returns the error that ended the read early, if any.
func (c *ClosedBills) Err() error {
	err := c.err
	if err == nil {
		err = c.rows.Err()
	}
	if err != nil {
		return fmt.Errorf("list closed bills: %w", err)
	}
	return nil
}

// Close ends the read.
func (c *ClosedBills) Close() error { return c.rows.Close() }

// GetBill returns one bill by id, in any status, or ErrNotFound.
func (tx *Tx) GetBill(billID string) (Bill, error) {
	var b Bill
	if err := scanBill(tx.queryRow(getBillSQL, billID), &b); err != nil {
		return Bill{}, notFound(err)
	}
	return b, nil
}

// BillPayments returns the payments made towards a bill, oldest first, with
// the last digits of each payment's card.
func (tx *Tx) BillPayments(billID string) ([]BillPayment, error) {
	rows, err := tx.query(billPaymentsSQL, billID)
	if err != nil {
		return nil, fmt.Errorf("bill payments: %w", err)
	}
	defer rows.Close()
	out := []BillPayment{}
	for rows.Next() {
		var p BillPayment
		if err := rows.Scan(&p.PaymentID, &p.UserID, &p.Amount, &p.Tip, &p.Status, &p.CreatedAt, &p.CardLast4); err != nil {
			return nil, fmt.Errorf("bill payments: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
