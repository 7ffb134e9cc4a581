package fulfillment

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// Limits the service applies to an order request; OrderRequest.Validate
// applies them too.
const (
	// MaxOrderLines is the most item lines in one order.
	MaxOrderLines = 200
	// MaxQuantity is the largest quantity of one item or option line.
	MaxQuantity = 999
	// MaxOptionDepth is how deeply options may nest under an item.
	MaxOptionDepth = 8
)

// OrderRequest is the body of POST /ordering/v3/order: what to order, by
// PLU, at one location. Prices are not sent: the service prices the order
// from the location's synced menu.
type OrderRequest struct {
	LocationID int64       `json:"locationId"`
	Items      []OrderLine `json:"items"`
}

// OrderLine is one line of an order: an item (or a deal) with its chosen
// options, or, nested in Options, one chosen option with its own options.
//
// An item line names a menu item's PLU; its Options name options of the
// item's modifier groups, each group's min and max applying to the sum of
// the option quantities chosen from it. An option's Quantity is per one
// unit of its parent, and option lines nest the same way for options that
// have modifier groups of their own.
//
// A deal is ordered as a line whose PLU is the deal's PLU, with one option
// line per item chosen for the deal: each option PLU must be an item listed
// in one of the deal's groups, and each group's min and max apply to the
// sum of the quantities chosen from it. A chosen item's own options nest
// under it. The deal's price covers the chosen items; their options are
// charged on top.
type OrderLine struct {
	PLU      string      `json:"plu"`
	Quantity int         `json:"quantity"`
	Options  []OrderLine `json:"options"`
}

// MarshalJSON writes Options as [] rather than null when there are none.
func (l OrderLine) MarshalJSON() ([]byte, error) {
	type line OrderLine // no MarshalJSON: avoids recursion
	if l.Options == nil {
		l.Options = []OrderLine{}
	}
	return json.Marshal(line(l))
}

// Validate checks what can be checked without the menu: a positive
// location id, and the items as ValidateItems does. It returns a
// *client.ValidationError with the paths and reasons the service would
// report ("items[1].options[0].plu": "required"), or nil. Whether the
// PLUs exist, are available and respect the modifier groups is checked by
// the service.
func (r OrderRequest) Validate() error {
	var c checker
	if r.LocationID <= 0 {
		c.Add("locationId", "must be a positive id")
	}
	c.items(r.Items)
	return c.Err()
}

// ValidateItems checks the items of an order request the way Validate
// does, for a caller that builds them before it knows the location: at
// least one and at most MaxOrderLines lines, and on every line and option
// a PLU, a quantity from 1 to MaxQuantity, and options nested at most
// MaxOptionDepth deep. Paths are those of the request ("items[0].plu").
func ValidateItems(items []OrderLine) error {
	var c checker
	c.items(items)
	return c.Err()
}

func (c *checker) items(items []OrderLine) {
	switch {
	case len(items) == 0:
		c.Add("items", "must not be empty")
	case len(items) > MaxOrderLines:
		c.Add("items", "must have at most "+strconv.Itoa(MaxOrderLines)+" lines")
	}
	for i, it := range items {
		c.line(fielderr.Index("items", i), it, 0)
	}
}

// line checks the line at path, nested depth levels under an item line.
func (c *checker) line(path string, l OrderLine, depth int) {
	if l.PLU == "" {
		c.Add(path+".plu", ReasonRequired)
	}
	switch {
	case l.Quantity < 1:
		c.Add(path+".quantity", "must be at least 1")
	case l.Quantity > MaxQuantity:
		c.Add(path+".quantity", "must be at most "+strconv.Itoa(MaxQuantity))
	}
	if depth >= MaxOptionDepth && len(l.Options) > 0 {
		c.Add(path+".options", "nested too deeply")
		return
	}
	for i, o := range l.Options {
		c.line(fielderr.Index(path+".options", i), o, depth+1)
	}
}

// CreatedOrder is the answer to POST /ordering/v3/order.
type CreatedOrder struct {
	// OrderID identifies the order (a UUID).
	OrderID string `json:"orderId"`
	// Total is the order's price, computed by the service from the menu.
	Total       client.Money       `json:"total"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// Status is where an order is on its way to the location's POS:
// created -> fulfillment_set -> sent_to_pos -> accepted_by_pos or failed.
// A status the SDK does not know decodes without error and is kept as is.
type Status string

// Order statuses.
const (
	// StatusCreated: the order exists; no fulfillment has been set.
	StatusCreated Status = "created"
	// StatusFulfillmentSet: a fulfillment is set; the order waits to be sent.
	StatusFulfillmentSet Status = "fulfillment_set"
	// StatusSentToPOS: the service is sending the order to the POS,
	// retrying after temporary failures.
	StatusSentToPOS Status = "sent_to_pos"
	// StatusAcceptedByPOS: the POS took the order (final).
	StatusAcceptedByPOS Status = "accepted_by_pos"
	// StatusFailed: the POS refused the order, or every try failed (final).
	StatusFailed Status = "failed"
)

// String returns the wire name.
func (s Status) String() string { return string(s) }

// Final reports whether the status can no longer change.
func (s Status) Final() bool { return s == StatusAcceptedByPOS || s == StatusFailed }

// Order is an order as GET /ordering/v3/order/{orderId} returns it.
type Order struct {
	OrderID    string `json:"orderId"`
	LocationID int64  `json:"locationId"`
	// Items are the ordered lines with the names and unit prices the menu
	// had when the order was created (the shape sent to the POS).
	Items []universalpos.OrderItem `json:"items"`
	// Total is the order's price.
	Total client.Money `json:"total"`
	// FulfillmentType is the zero Type until a fulfillment is set.
	FulfillmentType Type `json:"fulfillmentType"`
	// Fulfillment is the fulfillment body as set, or null; Method decodes it.
	Fulfillment json.RawMessage `json:"fulfillment"`
	Status      Status          `json:"status"`
	// POSOrderID is the POS's id for the order, once the POS accepted it.
	POSOrderID *string `json:"posOrderId"`
	// CreatedAt is when the order was created.
	CreatedAt client.UnixTime `json:"createdAt"`
}

// Method decodes the order's fulfillment, or returns nil, nil when none is
// set yet. The Method is a pointer to one of the four types
// (*CollectionByCustomer, ...).
func (o Order) Method() (Method, error) {
	if o.FulfillmentType == "" || len(o.Fulfillment) == 0 || string(o.Fulfillment) == "null" {
		return nil, nil
	}
	return DecodeMethod(o.FulfillmentType, o.Fulfillment)
}

// OrderResponse is the body of GET /ordering/v3/order/{orderId}.
type OrderResponse struct {
	Order       Order              `json:"order"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// CreateOrder creates an order at a location and returns its id and total.
// It checks req with Validate first and sends nothing when that fails.
//
// POST /ordering/v3/order
func (s *Service) CreateOrder(ctx context.Context, req OrderRequest, opts ...client.Option) (CreatedOrder, error) {
	if err := req.Validate(); err != nil {
		return CreatedOrder{}, fmt.Errorf("fulfillment: create order: %w", err)
	}
	var out CreatedOrder
	_, err := s.c.Do(ctx, &client.Request{
		Method: "POST",
		Route:  "/ordering/v3/order",
		Body:   req,
		Auth:   client.AuthAccessToken,
	}, &out, opts...)
	if err != nil {
		return CreatedOrder{}, fmt.Errorf("fulfillment: create order: %w", err)
	}
	return out, nil
}

// Order returns one of the user's orders. Another user's order is
// client.ErrNotFound.
//
// GET /ordering/v3/order/{orderId}
func (s *Service) Order(ctx context.Context, orderID string, opts ...client.Option) (Order, error) {
	if orderID == "" {
		return Order{}, fmt.Errorf("fulfillment: get order: empty order id")
	}
	var out OrderResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: "GET",
		Route:  "/ordering/v3/order/{orderId}",
		Params: []string{orderID},
		Auth:   client.AuthAccessToken,
	}, &out, opts...)
	if err != nil {
		return Order{}, fmt.Errorf("fulfillment: get order: %w", err)
	}
	return out.Order, nil
}

// Settled reports whether the order's status is final (accepted_by_pos or
// failed). It is the usual condition for WaitForStatus.
func Settled(o Order) bool { return o.Status.Final() }

// StatusIn returns a condition for WaitForStatus that holds once the order
// has one of the given statuses.
func StatusIn(statuses ...Status) func(Order) bool {
	return func(o Order) bool {
		for _, s := range statuses {
			if o.Status == s {
				return true
			}
		}
		return false
	}
}

// DefaultPollInterval is the pause between polls of WaitForStatus when
// pollInterval is not positive.
const DefaultPollInterval = time.Second

// WaitForStatus polls the order every pollInterval until until(order) is
// true, and returns that order. A nil until waits for Settled. It stops
// with the error of a failed poll (after the client's own retries), or
// with ctx's error, together with the last order seen, when ctx ends first.
//
// A kiosk uses it to wait until the POS has accepted an order:
//
//	o, err := svc.WaitForStatus(ctx, id, fulfillment.Settled, time.Second)
//	if err == nil && o.Status == fulfillment.StatusAcceptedByPOS { ... }
func (s *Service) WaitForStatus(ctx context.Context, orderID string, until func(Order) bool, pollInterval time.Duration, opts ...client.Option) (Order, error) {
	if until == nil {
		until = Settled
	}
	if pollInterval <= 0 {
		pollInterval = DefaultPollInterval
	}
	var (
		t    *time.Timer
		last Order
	)
	for {
		o, err := s.Order(ctx, orderID, opts...)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return last, fmt.Errorf("fulfillment: wait for order: %w", ctxErr)
			}
			return last, err
		}
		last = o
		if until(o) {
			return o, nil
		}
		if t == nil {
			t = time.NewTimer(pollInterval)
			defer t.Stop()
		} else {
			t.Reset(pollInterval)
		}
		select {
		case <-ctx.Done():
			return o, fmt.Errorf("fulfillment: wait for order: %w", ctx.Err())
		case <-t.C:
		}
	}
}
