package possync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// API is the set of push-pull calls. *Service implements it; the Agent
// takes an API so that tests (yours and ours) can stand in for the service.
type API interface {
	PushCheck(ctx context.Context, check *Check, opts ...client.Option) (PushResult, error)
	Payments(ctx context.Context, locationID int64, opts ...client.Option) (map[int64][]PaymentNotification, error)
	AcceptPayment(ctx context.Context, paymentID int64, opts ...client.Option) (AcceptResult, error)
	Heartbeat(ctx context.Context, locationID int64, opts ...client.Option) (HeartbeatResult, error)
}

var _ API = (*Service)(nil)

// Service makes the POS push-pull calls. Its Client must carry the
// location's POS access token (client.WithAccessToken), at New or per call.
type Service struct {
	c *client.Client
}

// NewService returns a Service that sends its calls through c.
func NewService(c *client.Client) *Service { return &Service{c: c} }

// PushResult is the answer to a check push.
type PushResult struct {
	// BillID identifies the bill the check is stored as; it is the same for
	// every push of the check.
	BillID string `json:"billId"`
	// Version is the stored version of the check. It moves only when a push
	// changes the check's content, so a repeated push keeps it.
	Version     int64              `json:"version"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// PaymentsResponse is the body of the payments poll: the payments not yet
// accepted, oldest first, keyed by check number.
type PaymentsResponse struct {
	Checks      map[int64][]PaymentNotification `json:"checks"`
	RequestInfo client.RequestInfo              `json:"requestInfo"`
}

// AcceptResult is the answer to accept-payment.
type AcceptResult struct {
	PaymentID int64 `json:"paymentId"`
	// Status is "accepted".
	Status      string             `json:"status"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// HeartbeatResult is the answer to a heartbeat.
type HeartbeatResult struct {
	// Status is "ok".
	Status      string             `json:"status"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// AcceptRequest is the body of accept-payment.
type AcceptRequest struct {
	PaymentID int64 `json:"paymentId"`
}

// Validate checks the request the way the service does: a positive
// paymentId. It returns nil or a *client.ValidationError.
func (r AcceptRequest) Validate() error {
	var s fielderr.Set
	if r.PaymentID <= 0 {
		s.Add("paymentId", fielderr.ReasonPositive)
	}
	return s.Err()
}

// errNilCheck is returned by PushCheck for a nil check, before sending.
var errNilCheck = errors.New("possync: nil check")

// PushCheck sends the full current state of a check. The service stores it
// as a bill, keyed by (locationId, checkNumber); pushing the same state again
// is harmless and keeps the version.
//
// POST /v1/pos/push-pull/check
//
// A check the service would refuse is refused here, as Agent.Push does:
// PushCheck returns the error of Check.Validate (errors.Is(err,
// client.ErrValidation) holds) and sends nothing. Unlike Agent.Push, it
// does not fill in a LocationID of 0.
//
// PushCheck blocks for the round trip; a POS user interface should use an
// Agent, whose Push never blocks.
func (s *Service) PushCheck(ctx context.Context, check *Check, opts ...client.Option) (PushResult, error) {
	var out PushResult
	if check == nil {
		return out, errNilCheck
	}
	if err := check.Validate(); err != nil {
		return out, err
	}
	// Encoded here rather than by Do: json.Marshal would re-scan the
	// whole of Check.MarshalJSON's output, a sizeable share of a push's
	// client-side CPU.
	body, err := check.MarshalJSON()
	if err != nil {
		return out, fmt.Errorf("hospo: encode POST %s body: %w", pushCheckRoute[1:], err)
	}
	return s.pushCheckJSON(ctx, body, opts...)
}

const pushCheckRoute = "/v1/pos/push-pull/check"

// pushCheckJSON is PushCheck of a check already encoded and validated: the
// Agent's sends, whose checks are queued as their JSON.
func (s *Service) pushCheckJSON(ctx context.Context, body []byte, opts ...client.Option) (PushResult, error) {
	var out PushResult
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  pushCheckRoute,
		Body:   json.RawMessage(body),
		Auth:   client.AuthAccessToken,
	}, &out, opts...)
	return out, err
}

// Payments returns the location's payments that the POS has not accepted
// yet, keyed by check number, each check's payments oldest first. The map
// is empty, never nil, when there are none.
//
// GET /v1/pos/push-pull/payments/{locationId}
func (s *Service) Payments(ctx context.Context, locationID int64, opts ...client.Option) (map[int64][]PaymentNotification, error) {
	var out PaymentsResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/v1/pos/push-pull/payments/{locationId}",
		Params: []string{strconv.FormatInt(locationID, 10)},
		Auth:   client.AuthAccessToken,
	}, &out, opts...)
	if err != nil {
		return nil, err
	}
	if out.Checks == nil {
		out.Checks = map[int64][]PaymentNotification{}
	}
	return out.Checks, nil
}

// AcceptPayment confirms that the POS has saved a payment to its check; the
// payment then leaves the payments poll. Accepting a payment twice is not an
// error. Call it only after the payment is saved on the POS.
//
// POST /v1/pos/push-pull/accept-payment
func (s *Service) AcceptPayment(ctx context.Context, paymentID int64, opts ...client.Option) (AcceptResult, error) {
	var out AcceptResult
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/v1/pos/push-pull/accept-payment",
		Body:   AcceptRequest{PaymentID: paymentID},
		Auth:   client.AuthAccessToken,
	}, &out, opts...)
	return out, err
}

// Heartbeat tells the service that the location's POS is online. The
// service treats the location as offline (and refuses payments there) once
// the last heartbeat is more than 6 minutes old; send one every 5 minutes.
//
// POST /v1/pos/push-pull/heartbeat/{locationId}
func (s *Service) Heartbeat(ctx context.Context, locationID int64, opts ...client.Option) (HeartbeatResult, error) {
	var out HeartbeatResult
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/v1/pos/push-pull/heartbeat/{locationId}",
		Params: []string{strconv.FormatInt(locationID, 10)},
		Auth:   client.AuthAccessToken,
	}, &out, opts...)
	return out, err
}
