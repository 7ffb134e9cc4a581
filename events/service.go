package events

import (
	"context"
	"errors"

	"github.com/hospo-dev/hospo-go/client"
)

// API is the set of calls of the Service, for callers that want to replace
// it with a fake in their tests.
type API interface {
	CreateWebhook(ctx context.Context, req CreateWebhookRequest, opts ...client.Option) (*CreatedWebhook, error)
	ListWebhooks(ctx context.Context, opts ...client.Option) ([]Webhook, error)
	DeleteWebhook(ctx context.Context, webhookID string, opts ...client.Option) error
	PingWebhook(ctx context.Context, webhookID string, opts ...client.Option) error
	ListDeliveries(ctx context.Context, webhookID string, q DeliveryQuery, opts ...client.Option) ([]Delivery, error)
	Redeliver(ctx context.Context, webhookID, deliveryID string, opts ...client.Option) error
	ListEvents(ctx context.Context, q FeedQuery, opts ...client.Option) (*Page, error)
	Feed(q FeedQuery, opts ...client.Option) *Feed
}

var _ API = (*Service)(nil)

// Service calls the webhook subscription endpoints and the event feed.
// They take the vendor API key (client.WithAPIKey) as their credential,
// from the Client or per call, and see only the key's own webhooks and the
// events of the locations in its scope. A Service is safe for concurrent
// use.
//
// Every call takes client options last (opts ...client.Option); they apply
// to that call only, over the Client's settings.
type Service struct {
	c *client.Client
}

// NewService returns a Service that sends its calls through c.
func NewService(c *client.Client) *Service { return &Service{c: c} }

// ErrEmptyID is returned, without a request, by the calls that name a
// webhook or a delivery when the id is empty.
var ErrEmptyID = errors.New("events: empty webhook or delivery id")
