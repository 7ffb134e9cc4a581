package rules

import (
	"errors"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// CheckPayment checks a payment body raw, decoded into req, and returns a
// 400002 naming every failing field (nil when none fails): the fields
// missing or null, then wallet.CreatePaymentRequest.Validate's rules.
func CheckPayment(raw []byte, req *wallet.CreatePaymentRequest) error {
	var bad fielderr.Set
	bad.Require(raw, "locationId", "checkNumber", "cardId", "amount", "tip")
	_ = bad.Merge(req.Validate()) // nil or a *client.ValidationError
	return invalid(&bad)
}

// CreatePayment makes a pending payment of userID towards a check, which
// the location's POS then sees in its payments poll until it accepts it.
// req has passed CheckPayment. The checks run in this order, each failing
// with its own code:
//
//  1. the location, the card (the user's own) and the check's bill exist
//     (404001; another user's card looks exactly like an unknown one, and
//     a void check cannot be paid);
//  2. the card's status is Live or Temporary (409005);
//  3. the card holds a token for the location's gateway (404006, naming
//     the gateway);
//  4. the location's POS is online (409003, with its last heartbeat);
//  5. amount <= outstanding minus the payments the POS has not accepted
//     yet (409002);
//  6. the provider accepts the token (402001 for the decline test cards,
//     see decline).
//
// The payment records payment.created.
// Run in the write transaction, so two concurrent payments cannot both fit
// into the same outstanding amount.
func CreatePayment(tx *store.Tx, userID int64, req wallet.CreatePaymentRequest) (wallet.Payment, error) {
	loc, err := tx.GetLocationDetails(req.LocationID)
	if err != nil {
		return wallet.Payment{}, notFound(err, "Location")
	}
	card, err := tx.GetCard(req.CardID)
	if err != nil {
		return wallet.Payment{}, notFound(err, "Card")
	}
	if card.UserID != userID {
		return wallet.Payment{}, api.NotFound("Card")
	}
	bill, err := tx.GetPayableBill(req.LocationID, req.CheckNumber)
	if err != nil {
		return wallet.Payment{}, notFound(err, "Check")
	}
	if bill.Status == "void" {
		return wallet.Payment{}, api.NotFound("Check")
	}
	if !wallet.CardStatus(card.CardStatusID).Usable() {
		return wallet.Payment{}, api.Err(client.CodeCardNotUsable)
	}
	token, err := tx.CardToken(card.CardID, loc.Gateway)
	if errors.Is(err, store.ErrNotFound) {
		// The message is interface.md's, word for word; the gateway the
		// card lacks goes in contextData.
		e := api.Err(client.CodeCardNotTokenised)
		e.ContextData = map[string]string{"gateway": loc.Gateway}
		return wallet.Payment{}, e
	}
	if err != nil {
		return wallet.Payment{}, err
	}
	if loc.LastHeartbeat == nil || !heartbeatFresh(*loc.LastHeartbeat, tx.Unix()) {
		return wallet.Payment{}, locationOffline(loc.LastHeartbeat)
	}
	pending, err := tx.PendingPaymentsTotal(bill.BillID)
	if err != nil {
		return wallet.Payment{}, err
	}
	if req.Amount.Cents() > bill.OutstandingAmount-pending {
		return wallet.Payment{}, api.Err(client.CodeAmountExceedsOutstanding)
	}
	pt, err := tx.GetProviderToken(token)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return wallet.Payment{}, err
	}
	if err == nil && pt.Decline {
		return wallet.Payment{}, decline(tx, card.CardID, pt)
	}
	p, err := tx.InsertPaymentRecord(store.PaymentRecord{
		LocationID:  req.LocationID,
		CheckNumber: req.CheckNumber,
		BillID:      bill.BillID,
		UserID:      userID,
		CardID:      card.CardID,
		Amount:      req.Amount.Cents(),
		Tip:         req.Tip.Cents(),
	})
	if err != nil {
		return wallet.Payment{}, err
	}
	out := walletPayment(p)
	if err := recordEvent(tx, events.TypePaymentCreated, req.LocationID, out); err != nil {
		return wallet.Payment{}, err
	}
	return out, nil
}

// GetPayment returns one of userID's payments; another user's is a 404001,
// like an unknown one.
func GetPayment(tx *store.Tx, userID, paymentID int64) (wallet.Payment, error) {
	p, err := tx.GetPaymentRecord(paymentID)
	if err != nil {
		return wallet.Payment{}, notFound(err, "Payment")
	}
	if p.UserID != userID {
		return wallet.Payment{}, api.NotFound("Payment")
	}
	return walletPayment(p), nil
}

// walletPayment renders a stored payment.
func walletPayment(p store.PaymentRecord) wallet.Payment {
	return wallet.Payment{
		PaymentID:   p.PaymentID,
		LocationID:  p.LocationID,
		CheckNumber: p.CheckNumber,
		BillID:      p.BillID,
		CardID:      p.CardID,
		Amount:      client.MoneyFromCents(p.Amount),
		Tip:         client.MoneyFromCents(p.Tip),
		Status:      wallet.PaymentStatus(p.Status),
		CreatedAt:   unixTime(p.CreatedAt),
	}
}

// invalid returns the 400002 naming the fields of bad, or nil when it is
// empty.
func invalid(bad *fielderr.Set) error {
	if bad.Len() == 0 {
		return nil
	}
	return api.InvalidSet(bad)
}
