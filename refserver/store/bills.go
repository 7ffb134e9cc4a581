package store

import (
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
//   - closedBillsFirstSQL and closedBillsNextSQL: a page of the closed
//     bills list (see ClosedBills), one range scan of the covering index
//     bills_closed (location_id, last_updated, bill_id) of the closed
//     bills, already in order. The status is written in the statement, not
//     bound: SQLite uses a partial index only when the query's own text
//     implies its WHERE;
//   - getBillSQL: the bills primary key;
//   - billPaymentsSQL: the payments_bill index, then each card by its key.
const (
	// closedBillsPageSQL packs the bills of the subquery that follows it
	// into one text, each bill as "<last_updated>,<bytes in
	// bill_id>,<bill_id>" one after the other (ClosedBills.unpack reads
	// them back, so an id may hold anything). concat makes each bill's
	// text at once, where || would make a string of every step.
	// group_concat takes the rows in the order the subquery yields them,
	// the index's; ORDER BY inside the aggregate would say so, but SQLite
	// then sorts every page in a temporary b-tree, which made the list
	// cost more than reading a row per bill. unpack checks the order
	// instead.
	closedBillsPageSQL = `SELECT coalesce(group_concat(
			concat(last_updated, ',', octet_length(bill_id), ',', bill_id), ''), '')
		FROM (SELECT bill_id, last_updated FROM bills `
	// closedBillsFirstSQL is the first page: ?1 location, from ?2 to ?3
	// (both included), at most ?4 bills.
	closedBillsFirstSQL = closedBillsPageSQL + `
		WHERE location_id = ?1 AND status = 'closed' AND last_updated BETWEEN ?2 AND ?3
		ORDER BY last_updated, bill_id LIMIT ?4)`
	// closedBillsNextSQL is any page after it: the bills after the last
	// one read, (?2 last_updated, ?5 bill_id), up to ?3.
	closedBillsNextSQL = closedBillsPageSQL + `
		WHERE location_id = ?1 AND status = 'closed' AND (last_updated, bill_id) > (?2, ?5)
			AND last_updated <= ?3
		ORDER BY last_updated, bill_id LIMIT ?4)`
	getBillSQL      = `SELECT ` + billColumns + ` FROM bills WHERE bill_id = ?`
	billPaymentsSQL = `SELECT p.payment_id, p.user_id, p.amount, p.tip, p.status, p.created_at, c.last4
		FROM payments p JOIN cards c ON c.card_id = p.card_id
		WHERE p.bill_id = ?
		ORDER BY p.payment_id`
)

// ClosedBillsPerPage is how many bills a page of ClosedBills holds: a
// page of the server's ids is about 26 KB of text.
const ClosedBillsPerPage = 512

// ClosedBills reads the closed bills of a location whose last_updated
// lies in [from, to] (Unix seconds, both included), ordered by last_updated
// then bill_id, a page at a time: a list of tens of thousands of bills
// goes to the response as it is read, never held whole in memory. A page
// is one row of SQLite's packing up to ClosedBillsPerPage bills (the
// statements above): read a row per bill, the list cost six cgo calls and
// three allocations a bill in go-sqlite3, most of its time (BENCHMARKS.md,
// "Round 3, continued"). Every page is read in the same transaction, so
// the list is one snapshot. It stops, with the error, once the
// transaction's context has ended (checked at every page).
type ClosedBills struct {
	tx             *Tx
	locationID, to int64
	page           string // the rest of the current page, packed
	inPage         int    // bills read from the current page
	billID         string // the current bill's id, within page
	lastUpdated    int64
	unpacked       int // bills read so far
	err            error
}

// ClosedBills starts the read, reading its first page: an error of the
// query comes back here. The caller must Close it.
func (tx *Tx) ClosedBills(locationID, from, to int64) (*ClosedBills, error) {
	c := &ClosedBills{tx: tx, locationID: locationID, to: to}
	if err := c.fetch(closedBillsFirstSQL, locationID, from, to, ClosedBillsPerPage); err != nil {
		return nil, fmt.Errorf("list closed bills: %w", err)
	}
	return c, nil
}

// fetch runs the statement of a page and keeps its packed bills in c.page.
func (c *ClosedBills) fetch(query string, args ...any) error {
	rows, err := c.tx.query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return fmt.Errorf("a page read no row")
	}
	// Scanned into a string, the page is the driver's own copy of the
	// text: a []byte or sql.RawBytes would be copied once more.
	if err := rows.Scan(&c.page); err != nil {
		return err
	}
	c.inPage = 0
	return rows.Close()
}

// Next moves to the next bill, and reports whether there is one.
func (c *ClosedBills) Next() bool {
	if c.err != nil {
		return false
	}
	if c.page == "" {
		// A page that is not full was the last.
		if c.inPage < ClosedBillsPerPage {
			return false
		}
		if c.err = c.fetch(closedBillsNextSQL, c.locationID, c.lastUpdated, c.to, ClosedBillsPerPage, c.billID); c.err != nil || c.page == "" {
			return false
		}
	}
	if c.err = c.unpack(); c.err != nil {
		return false
	}
	c.inPage++
	return true
}

// unpack reads the next bill of c.page into billID and lastUpdated.
func (c *ClosedBills) unpack() error {
	p := c.page
	at, p, ok := packedInt(p)
	if !ok {
		return fmt.Errorf("a page's bill has no last_updated")
	}
	n, p, ok := packedInt(p)
	if !ok || n < 0 || n > int64(len(p)) {
		return fmt.Errorf("a page's bill has no id")
	}
	id := p[:n]
	if c.unpacked > 0 && (at < c.lastUpdated || at == c.lastUpdated && id <= c.billID) {
		return fmt.Errorf("bill %q came out of the list's order", id)
	}
	c.lastUpdated, c.billID, c.page = at, id, p[n:]
	c.unpacked++
	return nil
}

// packedInt reads the decimal integer that starts p, and the comma after it.
func packedInt(p string) (v int64, rest string, ok bool) {
	neg := len(p) > 0 && p[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	start := i
	for ; i < len(p) && '0' <= p[i] && p[i] <= '9'; i++ {
		v = v*10 + int64(p[i]-'0')
	}
	if i == start || i == len(p) || p[i] != ',' {
		return 0, "", false
	}
	if neg {
		v = -v
	}
	return v, p[i+1:], true
}

// BillID is the current bill's id.
func (c *ClosedBills) BillID() string { return c.billID }

// LastUpdated is the current bill's last_updated, in Unix seconds.
func (c *ClosedBills) LastUpdated() int64 { return c.lastUpdated }

// Err returns the error that ended the read early, if any.
func (c *ClosedBills) Err() error {
	if c.err != nil {
		return fmt.Errorf("list closed bills: %w", c.err)
	}
	return nil
}

// Close ends the read. (Each page's rows are closed once read: nothing is
// left open between calls of Next.)
func (c *ClosedBills) Close() error { return nil }

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
