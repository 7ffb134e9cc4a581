package fulfillment

import (
	"context"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// Service calls the ordering endpoints: a location's menu, order creation
// and retrieval, and the four fulfillment methods. It is safe for
// concurrent use. Every call except Menu needs the user's access token
// (client.WithAccessToken, at New or per call).
type Service struct {
	c *client.Client
}

// NewService returns a Service that sends its requests through c.
func NewService(c *client.Client) *Service { return &Service{c: c} }

// API is the set of calls Service makes, so that code using them can be
// tested with a fake.
type API interface {
	Menu(ctx context.Context, locationID int64, opts ...client.Option) (LocationMenu, error)
	CreateOrder(ctx context.Context, req OrderRequest, opts ...client.Option) (CreatedOrder, error)
	Order(ctx context.Context, orderID string, opts ...client.Option) (Order, error)
	Set(ctx context.Context, orderID string, m Method, opts ...client.Option) error
	WaitForStatus(ctx context.Context, orderID string, until func(Order) bool, pollInterval time.Duration, opts ...client.Option) (Order, error)
}

var _ API = (*Service)(nil)
