package bills

import (
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/wallet"
)

// Summary is one element of the closed-bills list. Fetch the full record
// with Get(ctx, summary.BillID, ...).
type Summary struct {
	BillID string `json:"billId"`
	// Status is possync.CheckClosed in the closed-bills list.
	Status possync.CheckStatus `json:"status"`
	// LastUpdated is the time of the push that closed the bill, to the second.
	LastUpdated client.BillTime `json:"lastUpdated"`
}

// Bill is the bill record of GET /v3/bill/{billId}. The members up to
// Discounts are always present; each of the others is present only when its
// scope was requested, so a nil slice or pointer means "not requested" (or,
// for the slices, that the service sent none) and an empty slice means
// "requested, none".
type Bill struct {
	BillID      string `json:"billId"`
	LocationID  int64  `json:"locationId"`
	CheckNumber int64  `json:"checkNumber"`
	// Status is the status of the check as last pushed by the POS: a bill
	// is its check, so it shares possync's type. ListClosed lists only
	// closed bills; Get returns a bill in any state.
	Status possync.CheckStatus `json:"status"`
	// LastUpdated is the time of the latest push that changed the check.
	LastUpdated         client.BillTime `json:"lastUpdated"`
	TotalAmount         client.Money    `json:"totalAmount"`
	OutstandingAmount   client.Money    `json:"outstandingAmount"`
	ServiceChargeAmount client.Money    `json:"serviceChargeAmount"`
	TipsPaid            client.Money    `json:"tipsPaid"`
	// Discounts are the check-level discounts.
	Discounts []possync.Discount `json:"discounts"`

	// Items (ScopeItems) are the check's menu items as the POS pushed them.
	Items []possync.MenuItem `json:"items,omitzero"`
	// Payments (ScopePayments) are the payments made through the service,
	// oldest first.
	Payments []Payment `json:"payments,omitzero"`
	// Users (ScopeUsers) has one entry per user who paid, by user id.
	Users []User `json:"users,omitzero"`
	// Table (ScopeTable) is the table the bill was served at; its Location
	// is filled with ScopeTableLocation.
	Table *Table `json:"table,omitzero"`
	// Staff (ScopeStaff) is the staff member who closed the bill.
	Staff *Staff `json:"staff,omitzero"`
}

// Payment is a payment made through the service towards a bill.
type Payment struct {
	PaymentID int64 `json:"paymentId"`
	// Amount excludes the tip.
	Amount client.Money `json:"amount"`
	Tip    client.Money `json:"tip"`
	// Status is pending until the location's POS accepts the payment.
	Status    wallet.PaymentStatus `json:"status"`
	CreatedAt client.UnixTime      `json:"createdAt"`
	// CardLast4 is the last four digits of the card that paid.
	CardLast4 string `json:"cardLast4"`
}

// User is a user who paid towards a bill.
type User struct {
	UserID int64 `json:"userId"`
}

// Table is the table a bill was served at.
type Table struct {
	TableNumber int `json:"tableNumber"`
	Guests      int `json:"guests"`
	// Location (ScopeTableLocation) has the shape of GET /v1/location/{id}'s
	// location object.
	Location *wallet.Location `json:"location,omitzero"`
}

// Staff is the staff member who closed a bill.
type Staff struct {
	StaffID string `json:"staffId"`
}

// ClosedBillsResponse is the body of GET /v3/location/{locationId}/bills/closed.
// The reference server encodes it too, so both sides share one wire format.
type ClosedBillsResponse struct {
	Bills       []Summary          `json:"bills"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// BillResponse is the body of GET /v3/bill/{billId}. The reference server
// encodes it too, so both sides share one wire format.
type BillResponse struct {
	Bill        Bill               `json:"bill"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}
