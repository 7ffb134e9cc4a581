package rules

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// orderRequiredPaths are the fields of an order request that must be
// present and not null, options included down to the deepest nesting
// allowed.
var orderRequiredPaths = func() []string {
	paths := []string{"locationId", "items", "items[].plu", "items[].quantity"}
	prefix := "items[]"
	for range fulfillment.MaxOptionDepth {
		prefix += ".options[]"
		paths = append(paths, prefix+".plu", prefix+".quantity")
	}
	return paths
}()

// CheckOrder returns what is wrong with an order body raw, decoded into
// req, before its location's menu is consulted: the fields missing or
// null, then fulfillment.OrderRequest.Validate's verdict on the rest.
// CreateOrder reports it together with what the menu finds.
func CheckOrder(raw []byte, req *fulfillment.OrderRequest) *fielderr.Set {
	bad := new(fielderr.Set)
	bad.Require(raw, orderRequiredPaths...)
	_ = bad.Merge(req.Validate()) // nil or a *client.ValidationError
	return bad
}

// CreateOrder checks userID's order against the location's synced menu,
// prices it from the menu and stores it in status created (POST
// /ordering/v3/order). bad is CheckOrder's verdict on the body: the order
// is refused with one 400002 naming it and whatever the menu finds.
func CreateOrder(tx *store.Tx, userID int64, req fulfillment.OrderRequest, bad *fielderr.Set) (fulfillment.CreatedOrder, error) {
	var lm *locationMenus // nil: no location to check the lines against
	if !bad.Has("locationId") {
		m, err := loadMenus(tx, req.LocationID)
		if err != nil {
			return fulfillment.CreatedOrder{}, notFound(err, "Location")
		}
		lm = &m
	}
	items, total, lineErrs := priceOrder(lm, req.Items)
	bad.MergeFields(lineErrs)
	if err := invalid(bad); err != nil {
		return fulfillment.CreatedOrder{}, err
	}
	itemsJSON, err := json.Marshal(items)
	if err != nil {
		return fulfillment.CreatedOrder{}, err
	}
	id := newOrderID()
	if err := tx.InsertOrder(id, userID, req.LocationID, string(itemsJSON), total.Cents()); err != nil {
		return fulfillment.CreatedOrder{}, err
	}
	return fulfillment.CreatedOrder{OrderID: id, Total: total}, nil
}

// GetOrder returns one of userID's orders (GET
// /ordering/v3/order/{orderId}); another user's is a 404001, like one that
// does not exist.
func GetOrder(tx *store.Tx, userID int64, orderID string) (fulfillment.Order, error) {
	o, err := userOrder(tx, userID, orderID)
	if err != nil {
		return fulfillment.Order{}, err
	}
	return orderResource(o)
}

// SetFulfillment sets how userID's order reaches the diner (POST
// /ordering/v3/order/{orderId}/fulfillment-type/{method}); m has passed
// DecodeFulfillment. The first fulfillment moves the order to
// fulfillment_set, and set reports it: the order is then due to be sent
// to the location's POS. The same method with the same fields again is
// accepted without effect; anything else is a 409001.
func SetFulfillment(tx *store.Tx, userID int64, orderID string, m fulfillment.Method) (set bool, err error) {
	canonical, err := canonicalFulfillment(m)
	if err != nil {
		return false, err
	}
	o, err := userOrder(tx, userID, orderID)
	if err != nil {
		return false, err
	}
	t := string(m.Type())
	if o.FulfillmentType != nil {
		if *o.FulfillmentType == t && o.FulfillmentJSON != nil && *o.FulfillmentJSON == canonical {
			return false, nil
		}
		return false, api.Err(client.CodeFulfillmentAlreadySet)
	}
	if err := tx.SetOrderFulfillment(o.OrderID, t, canonical); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			// Not in status created without a fulfillment: cannot happen
			// while writes are serialised, but never set twice.
			return false, api.Err(client.CodeFulfillmentAlreadySet)
		}
		return false, err
	}
	if err := OrderStatusChanged(tx, o.OrderID, o.LocationID, store.OrderCreated, store.OrderFulfillmentSet, nil, nil); err != nil {
		return false, err
	}
	return true, nil
}

// userOrder returns the order if it belongs to userID, and a 404001
// otherwise (never telling which).
func userOrder(tx *store.Tx, userID int64, orderID string) (store.Order, error) {
	if orderID == "" || len(orderID) > 64 {
		return store.Order{}, api.NotFound("Order")
	}
	o, err := tx.GetOrder(orderID)
	if err != nil {
		return store.Order{}, notFound(err, "Order")
	}
	if o.UserID != userID {
		return store.Order{}, api.NotFound("Order")
	}
	return o, nil
}

// orderResource turns an orders row into the order of the API.
func orderResource(o store.Order) (fulfillment.Order, error) {
	out := fulfillment.Order{
		OrderID:    o.OrderID,
		LocationID: o.LocationID,
		Total:      client.MoneyFromCents(o.Total),
		Status:     fulfillment.Status(o.Status),
		POSOrderID: o.POSOrderID,
		CreatedAt:  client.UnixTime{Time: time.Unix(o.CreatedAt, 0).UTC()},
	}
	if err := json.Unmarshal([]byte(o.ItemsJSON), &out.Items); err != nil {
		return fulfillment.Order{}, fmt.Errorf("order %s: items_json: %w", o.OrderID, err)
	}
	if out.Items == nil {
		out.Items = []universalpos.OrderItem{}
	}
	if o.FulfillmentType != nil {
		out.FulfillmentType = fulfillment.Type(*o.FulfillmentType)
	}
	if o.FulfillmentJSON != nil {
		out.Fulfillment = json.RawMessage(*o.FulfillmentJSON)
	}
	return out, nil
}

// newOrderID returns a random (version 4) UUID.
func newOrderID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hexdigits = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hexdigits[c>>4], hexdigits[c&0x0f])
	}
	return string(out)
}
