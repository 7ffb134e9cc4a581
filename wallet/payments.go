package wallet

import (
	"context"
	"net/http"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// PaymentStatus is the state of a payment. Unknown values are kept as they
// are.
type PaymentStatus string

// The payment statuses: a payment is pending until the location's POS has
// saved it to the check and accepted it.
const (
	PaymentPending  PaymentStatus = "pending"
	PaymentAccepted PaymentStatus = "accepted"
)

// String returns the status text.
func (s PaymentStatus) String() string { return string(s) }

// Payment is a payment towards a check, made with a wallet card.
type Payment struct {
	PaymentID   int64  `json:"paymentId"`
	LocationID  int64  `json:"locationId"`
	CheckNumber int64  `json:"checkNumber"`
	BillID      string `json:"billId"`
	CardID      int64  `json:"cardId"`
	// Amount excludes the tip.
	Amount    client.Money    `json:"amount"`
	Tip       client.Money    `json:"tip"`
	Status    PaymentStatus   `json:"status"`
	CreatedAt client.UnixTime `json:"createdAt"`
}

// CreatePaymentRequest is the body of a payment.
type CreatePaymentRequest struct {
	LocationID  int64 `json:"locationId"`
	CheckNumber int64 `json:"checkNumber"`
	CardID      int64 `json:"cardId"`
	// Amount is what is paid off the check, tip excluded: more than zero
	// and at most the check's outstanding amount minus the payments the
	// POS has not accepted yet.
	Amount client.Money `json:"amount"`
	// Tip is zero or more.
	Tip client.Money `json:"tip"`
}

// maxTip bounds a payment's tip (1,000,000.00, like an order's total).
// The amount is bounded by the check's outstanding amount; the tip has no
// such bound, and a POS adding an absurd tip to a check's tipsPaid would
// overflow.
var maxTip = client.MoneyFromCents(100_000_000)

// Validate checks the request the way the service does before it looks at
// the location, the card or the check: an amount above zero and a tip from
// zero to 1,000,000.00. It returns nil or a *client.ValidationError with
// the service's paths and reasons.
func (r CreatePaymentRequest) Validate() error {
	var s fielderr.Set
	if r.Amount.Cmp(client.Money{}) <= 0 {
		s.Add("amount", "must be greater than 0")
	}
	switch {
	case r.Tip.IsNegative():
		s.Add("tip", fielderr.ReasonNegative)
	case r.Tip.Cmp(maxTip) > 0:
		s.Add("tip", "must be at most "+maxTip.String())
	}
	return s.Err()
}

// PaymentResponse is the body of the payment endpoints.
type PaymentResponse struct {
	Payment     Payment            `json:"payment"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// CreatePayment pays towards a check with a wallet card. The payment is
// pending until the location's POS accepts it.
//
// Errors to expect: client.ErrCardNotTokenised (404006) when the card has
// no token for the location's provider (see PayWithRecovery),
// client.ErrNotFound (unknown location, check or card),
// client.ErrAmountExceedsOutstanding, client.ErrLocationOffline,
// client.ErrCardNotUsable, client.ErrPaymentDeclined and
// client.ErrValidation.
//
// The call carries an Idempotency-Key (generated, or the one of
// client.WithIdempotencyKey), so retries never pay twice; pass your own key
// to make a re-run of your program safe too.
//
// POST /payments/v1/payment
func (s *Service) CreatePayment(ctx context.Context, req CreatePaymentRequest, opts ...client.Option) (Payment, error) {
	var out PaymentResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/payments/v1/payment",
		Body:   req,
		Auth:   client.AuthAccessToken,
	}, &out, opts...)
	if err != nil {
		return Payment{}, err
	}
	return out.Payment, nil
}

// GetPayment returns one of the user's payments.
//
// GET /payments/v1/payment/{paymentId}
func (s *Service) GetPayment(ctx context.Context, paymentID int64, opts ...client.Option) (Payment, error) {
	var out PaymentResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/payments/v1/payment/{paymentId}",
		Params: []string{strconv.FormatInt(paymentID, 10)},
		Auth:   client.AuthAccessToken,
	}, &out, opts...)
	if err != nil {
		return Payment{}, err
	}
	return out.Payment, nil
}
