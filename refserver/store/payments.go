package store

import "fmt"

// PaymentRecord is a row of payments.
type PaymentRecord struct {
	PaymentID   int64
	LocationID  int64
	CheckNumber int64
	BillID      string
	UserID      int64
	CardID      int64
	Amount      int64 // cents, tip excluded
	Tip         int64 // cents
	Status      string
	CreatedAt   int64
	AcceptedAt  *int64
}

// PayableBill is what a payment needs to know of the bill of a check.
type PayableBill struct {
	BillID            string
	Status            string // open, closed or void
	OutstandingAmount int64  // cents, as the POS last pushed it
}

// GetPayableBill returns the bill of (locationID, checkNumber) or
// ErrNotFound when the POS never pushed that check.
func (tx *Tx) GetPayableBill(locationID, checkNumber int64) (PayableBill, error) {
	var b PayableBill
	err := tx.queryRow(`SELECT bill_id, status, outstanding_amount FROM bills
		WHERE location_id = ? AND check_number = ?`, locationID, checkNumber).
		Scan(&b.BillID, &b.Status, &b.OutstandingAmount)
	return b, notFound(err)
}

// PendingPaymentsTotal returns the sum of the amounts (tips excluded) of
// the bill's payments that the POS has not accepted yet, in cents.
func (tx *Tx) PendingPaymentsTotal(billID string) (int64, error) {
	var sum int64
	err := tx.queryRow(`SELECT COALESCE(SUM(amount), 0) FROM payments WHERE bill_id = ? AND status = 'pending'`, billID).Scan(&sum)
	if err != nil {
		return 0, fmt.Errorf("pending payments total: %w", err)
	}
	return sum, nil
}

// InsertPaymentRecord stores a new pending payment and returns it with its
// id and creation time.
func (tx *Tx) InsertPaymentRecord(p PaymentRecord) (PaymentRecord, error) {
	p.Status = "pending"
	p.CreatedAt = tx.Unix()
	p.AcceptedAt = nil
	res, err := tx.exec(`INSERT INTO payments (location_id, check_number, bill_id, user_id, card_id, amount, tip, status, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.LocationID, p.CheckNumber, p.BillID, p.UserID, p.CardID, p.Amount, p.Tip, p.Status, p.CreatedAt)
	if err != nil {
		return PaymentRecord{}, fmt.Errorf("insert payment: %w", err)
	}
	if p.PaymentID, err = res.LastInsertId(); err != nil {
		return PaymentRecord{}, fmt.Errorf("insert payment: %w", err)
	}
	return p, nil
}

// GetPaymentRecord returns a payment, whoever made it, or ErrNotFound.
func (tx *Tx) GetPaymentRecord(paymentID int64) (PaymentRecord, error) {
	var p PaymentRecord
	err := tx.queryRow(`SELECT payment_id, location_id, check_number, bill_id, user_id, card_id, amount, tip, status, created_at, accepted_at
		FROM payments WHERE payment_id = ?`, paymentID).
		Scan(&p.PaymentID, &p.LocationID, &p.CheckNumber, &p.BillID, &p.UserID, &p.CardID, &p.Amount, &p.Tip, &p.Status, &p.CreatedAt, &p.AcceptedAt)
	return p, notFound(err)
}
