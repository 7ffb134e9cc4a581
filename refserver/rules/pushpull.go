package rules

import (
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// CheckAccept checks an accept-payment body raw, decoded into req: a
// 400002 when paymentId is missing, or when possync.AcceptRequest.Validate
// refuses it.
func CheckAccept(raw []byte, req *possync.AcceptRequest) error {
	if bad := fielderr.Missing(raw, "paymentId"); len(bad) > 0 {
		return api.Invalid(bad)
	}
	var bad fielderr.Set
	if err := bad.Merge(req.Validate()); err != nil {
		return err
	}
	return invalid(&bad)
}

// PendingPayments lists the location's payments that its POS has not
// accepted yet, oldest first, keyed by check number (GET
// /v1/pos/push-pull/payments/{locationId}); the caller has checked that
// the POS token is the location's.
func PendingPayments(tx *store.Tx, locationID int64) (map[int64][]possync.PaymentNotification, error) {
	pending, err := tx.PendingPayments(locationID)
	if err != nil {
		return nil, err
	}
	checks := make(map[int64][]possync.PaymentNotification)
	for _, p := range pending {
		checks[p.CheckNumber] = append(checks[p.CheckNumber], possync.PaymentNotification{
			PaymentID:    p.PaymentID,
			PaymentExTip: client.MoneyFromCents(p.Amount),
			Tip:          client.MoneyFromCents(p.Tip),
		})
	}
	return checks, nil
}

// AcceptPayment marks a payment of the POS's location accepted (POST
// /v1/pos/push-pull/accept-payment). Accepting an accepted payment
// succeeds like the first time; a payment of another location is a
// 404001, the same as an unknown one. The first acceptance records
// payment.accepted.
func AcceptPayment(tx *store.Tx, locationID, paymentID int64) (possync.AcceptResult, error) {
	accepted, err := tx.AcceptPayment(locationID, paymentID)
	if err != nil {
		return possync.AcceptResult{}, notFound(err, "Payment")
	}
	if accepted {
		p, err := tx.GetPaymentRecord(paymentID)
		if err != nil {
			return possync.AcceptResult{}, err
		}
		if err := recordEvent(tx, events.TypePaymentAccepted, locationID, walletPayment(p)); err != nil {
			return possync.AcceptResult{}, err
		}
	}
	return possync.AcceptResult{PaymentID: paymentID, Status: "accepted"}, nil
}

// Heartbeat records that the location's POS is online (POST
// /v1/pos/push-pull/heartbeat/{locationId}); the caller has checked that
// the POS token is the location's. The first heartbeat, and the first
// after the location went offline, records location.online.
func Heartbeat(tx *store.Tx, locationID int64) (possync.HeartbeatResult, error) {
	if err := heartbeatPresence(tx, locationID); err != nil {
		return possync.HeartbeatResult{}, err // the token's location exists: ErrNotFound is a bug, a 500001
	}
	return possync.HeartbeatResult{Status: "ok"}, nil
}
