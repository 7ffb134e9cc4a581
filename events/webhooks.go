package events

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// Webhook is a subscription: the service POSTs the events of the listed
// types to URL, signed with the webhook's secret.
type Webhook struct {
	WebhookID string `json:"webhookId"`
	URL       string `json:"url"`
	// Events are the subscribed types, or [AllTypes] for every type.
	Events      []Type          `json:"events"`
	Description string          `json:"description"`
	CreatedAt   client.UnixTime `json:"createdAt"`
}

// CreateWebhookRequest is the body of CreateWebhook.
type CreateWebhookRequest struct {
	// URL receives the deliveries: an absolute http or https URL.
	URL string `json:"url"`
	// Events lists the types to deliver, or is [AllTypes] for every type,
	// including those the service adds later.
	Events []Type `json:"events"`
	// Description is a note for people, such as what the endpoint is.
	Description string `json:"description,omitempty"`
}

// The bounds of a webhook request.
const (
	// MaxURLLength is the longest CreateWebhookRequest.URL, in bytes.
	MaxURLLength = 2048
	// MaxDescriptionLength is the longest CreateWebhookRequest.Description,
	// in characters.
	MaxDescriptionLength = 500
)

// Validate checks the request the way the service does: url is an
// absolute http or https URL with a host, no user name or password, a
// port from 1 to 65535 if any, and at most MaxURLLength bytes; events is a non-empty list of known types
// (Type.Known), or AllTypes alone; description has at most
// MaxDescriptionLength characters. It returns nil or a
// *client.ValidationError with the service's paths and reasons ("url",
// "events", "events[2]", "description").
func (r CreateWebhookRequest) Validate() error {
	var s fielderr.Set
	switch u, err := url.Parse(r.URL); {
	case r.URL == "":
		s.Add("url", fielderr.ReasonRequired)
	case len(r.URL) > MaxURLLength:
		s.Add("url", "must be at most "+strconv.Itoa(MaxURLLength)+" characters")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "":
		s.Add("url", "must be an absolute http or https URL")
	case u.User != nil:
		// A credential in the URL would be shown by every list.
		s.Add("url", "must not hold a user name or password")
	case !validPort(u.Port()):
		s.Add("url", "must have a port from 1 to 65535, or none")
	}
	switch {
	case len(r.Events) == 0:
		s.Add("events", `must name at least one event type, or be ["*"]`)
	case len(r.Events) > 1 && slices.Contains(r.Events, AllTypes):
		s.Add("events", `"*" must be the only element`)
	}
	for i, t := range r.Events {
		if t != AllTypes && !t.Known() {
			s.Add(fielderr.Index("events", i), reasonUnknownType)
		}
	}
	if utf8.RuneCountInString(r.Description) > MaxDescriptionLength {
		s.Add("description", "must be at most "+strconv.Itoa(MaxDescriptionLength)+" characters")
	}
	return s.Err()
}

// validPort reports whether port, a URL's port ("" when it has none), is
// none or a TCP port.
func validPort(port string) bool {
	if port == "" {
		return true
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}

// reasonUnknownType is the reason of an unknown type in a subscription.
var reasonUnknownType = func() string {
	names := make([]string, 0, len(Types()))
	for _, t := range Types() {
		names = append(names, string(t))
	}
	return "must be one of " + strings.Join(names, ", ") + ` or "*"`
}()

// CreatedWebhook is the answer of CreateWebhook.
type CreatedWebhook struct {
	Webhook Webhook `json:"webhook"`
	// Secret ("whsec_...") signs the webhook's deliveries. It is shown
	// only here, once: keep it where the receiver can read it (NewHandler,
	// NewVerifier) and nowhere else.
	Secret      string             `json:"secret"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// CreateWebhook subscribes a URL to event types. The request is checked
// with Validate first; a request that fails is not sent. The answer holds
// the webhook's signing secret, which no other call returns.
//
// The call carries an Idempotency-Key (generated, or the one of
// client.WithIdempotencyKey), so a retry never creates a second webhook.
//
// POST /v1/webhooks
func (s *Service) CreateWebhook(ctx context.Context, req CreateWebhookRequest, opts ...client.Option) (*CreatedWebhook, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var out CreatedWebhook
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/v1/webhooks",
		Body:   req,
		Auth:   client.AuthAPIKey,
	}, &out, opts...)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// WebhooksResponse is the body of GET /v1/webhooks.
type WebhooksResponse struct {
	Webhooks    []Webhook          `json:"webhooks"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// ListWebhooks lists the API key's own webhooks.
//
// GET /v1/webhooks
func (s *Service) ListWebhooks(ctx context.Context, opts ...client.Option) ([]Webhook, error) {
	var out WebhooksResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/v1/webhooks",
		Auth:   client.AuthAPIKey,
	}, &out, opts...)
	if err != nil {
		return nil, err
	}
	if out.Webhooks == nil {
		out.Webhooks = []Webhook{}
	}
	return out.Webhooks, nil
}

// DeleteWebhook deletes one of the key's webhooks; nothing more is
// delivered to it. Another key's webhook, or an unknown one, is 404001
// (client.ErrNotFound).
//
// DELETE /v1/webhooks/{webhookId}
func (s *Service) DeleteWebhook(ctx context.Context, webhookID string, opts ...client.Option) error {
	if webhookID == "" {
		return ErrEmptyID
	}
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodDelete,
		Route:  "/v1/webhooks/{webhookId}",
		Params: []string{webhookID},
		Auth:   client.AuthAPIKey,
	}, nil, opts...)
	return err
}

// PingWebhook asks the service to deliver a ping event to the webhook, to
// test the receiving end. It returns once the service has accepted the
// request (202); the delivery follows, and shows in ListDeliveries.
//
// POST /v1/webhooks/{webhookId}/ping
func (s *Service) PingWebhook(ctx context.Context, webhookID string, opts ...client.Option) error {
	if webhookID == "" {
		return ErrEmptyID
	}
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/v1/webhooks/{webhookId}/ping",
		Params: []string{webhookID},
		Auth:   client.AuthAPIKey,
	}, nil, opts...)
	return err
}
