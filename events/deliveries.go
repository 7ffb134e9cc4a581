package events

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
)

// DeliveryStatus is where a delivery is. Unknown values are kept as they
// are.
type DeliveryStatus string

// The delivery statuses.
const (
	// DeliveryPending: not delivered yet; another attempt is due at
	// NextAttemptAt, or is under way when NextAttemptAt is nil.
	DeliveryPending DeliveryStatus = "pending"
	// DeliveryDelivered: the receiver answered 2xx.
	DeliveryDelivered DeliveryStatus = "delivered"
	// DeliveryFailed: every attempt failed; only Redeliver tries again.
	DeliveryFailed DeliveryStatus = "failed"
)

// String returns the status text.
func (s DeliveryStatus) String() string { return string(s) }

// Delivery is the sending of one event to one webhook, with its attempts.
type Delivery struct {
	DeliveryID string         `json:"deliveryId"`
	EventID    string         `json:"eventId"`
	Type       Type           `json:"type"`
	Status     DeliveryStatus `json:"status"`
	// Attempts counts the attempts made so far.
	Attempts int `json:"attempts"`
	// LastStatusCode is the HTTP status of the last attempt; nil before
	// the first, or when the last got no answer.
	LastStatusCode *int `json:"lastStatusCode"`
	// LastError says why the last attempt failed; nil when it did not.
	LastError *string `json:"lastError"`
	// NextAttemptAt is when the next attempt is due; nil when none is, and
	// while an attempt is under way.
	NextAttemptAt *client.UnixTime `json:"nextAttemptAt"`
	CreatedAt     client.UnixTime  `json:"createdAt"`
}

// DeliveryQuery narrows ListDeliveries. The zero value lists every status,
// up to the service's default number.
type DeliveryQuery struct {
	// Status, when set, keeps only the deliveries in that status.
	Status DeliveryStatus
	// Limit, when above zero, is the most deliveries to return.
	Limit int
}

// DeliveriesResponse is the body of the deliveries list.
type DeliveriesResponse struct {
	Deliveries  []Delivery         `json:"deliveries"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// ListDeliveries lists the webhook's deliveries, newest first, among its
// last 1,000.
//
// GET /v1/webhooks/{webhookId}/deliveries?status=&limit=
func (s *Service) ListDeliveries(ctx context.Context, webhookID string, q DeliveryQuery, opts ...client.Option) ([]Delivery, error) {
	if webhookID == "" {
		return nil, ErrEmptyID
	}
	v := url.Values{}
	if q.Status != "" {
		v.Set("status", string(q.Status))
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var out DeliveriesResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/v1/webhooks/{webhookId}/deliveries",
		Params: []string{webhookID},
		Query:  v,
		Auth:   client.AuthAPIKey,
	}, &out, opts...)
	if err != nil {
		return nil, err
	}
	if out.Deliveries == nil {
		out.Deliveries = []Delivery{}
	}
	return out.Deliveries, nil
}

// Redeliver asks for one more attempt of a delivery now, whatever its
// status (a failed delivery included). It returns once the service has
// accepted the request (202).
//
// POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver
func (s *Service) Redeliver(ctx context.Context, webhookID, deliveryID string, opts ...client.Option) error {
	if webhookID == "" || deliveryID == "" {
		return ErrEmptyID
	}
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver",
		Params: []string{webhookID, deliveryID},
		Auth:   client.AuthAPIKey,
	}, nil, opts...)
	return err
}
