package universalpos

import (
	"encoding/json"

	"github.com/hospo-dev/hospo-go/client"
)

// FulfillmentType says how an order reaches the customer. It is the name of
// the fulfillment method the customer chose in the service.
//
// Unknown values decode without error and keep their text; Known reports
// whether the value is one of the constants.
type FulfillmentType string

// The fulfillment types of the service.
const (
	FulfillmentDeliveryByOperator        FulfillmentType = "delivery-by-operator"
	FulfillmentDeliveryByDeliveryPartner FulfillmentType = "delivery-by-delivery-partner"
	FulfillmentCollectionByCustomer      FulfillmentType = "collection-by-customer"
	FulfillmentOrderAtTable              FulfillmentType = "order-at-table"
)

// String returns the wire form of t.
func (t FulfillmentType) String() string { return string(t) }

// Known reports whether t is one of the four fulfillment types.
func (t FulfillmentType) Known() bool {
	switch t {
	case FulfillmentDeliveryByOperator, FulfillmentDeliveryByDeliveryPartner,
		FulfillmentCollectionByCustomer, FulfillmentOrderAtTable:
		return true
	}
	return false
}

// Order is the body of POST /orders: an order the service sends to the POS
// once its fulfillment is set.
//
// Prices are unit prices. An item's quantity counts whole items; an option's
// quantity counts per one unit of its parent (two burgers each with one
// fries is item quantity 2, option quantity 1). Total is what the customer
// pays for the items, computed that way; see ComputeTotal.
type Order struct {
	// OrderID is the service's order id (a UUID). It is the de-duplication
	// key: the service may send the same order again after a timeout.
	OrderID string `json:"orderId"`
	// POSLocationID is the service's location id in decimal, so one POS
	// deployment can serve several locations.
	POSLocationID   string          `json:"posLocationId"`
	FulfillmentType FulfillmentType `json:"fulfillmentType"`
	// Fulfillment is the fulfillment object the customer set, exactly as the
	// service's fulfillment endpoint for FulfillmentType takes it (for
	// order-at-table: {"kitchenNotes", "tableNumber"}). It is kept raw so the
	// POS can decode the shape of the type it handles.
	Fulfillment json.RawMessage `json:"fulfillment"`
	Items       []OrderItem     `json:"items"`
	Total       client.Money    `json:"total"`
	// CreatedAt is when the customer created the order (Unix seconds on the
	// wire).
	CreatedAt client.UnixTime `json:"createdAt"`
}

// OrderItem is one line of an order: an item (or deal) of the menu by PLU.
type OrderItem struct {
	PLU      string       `json:"plu"`
	Name     string       `json:"name"`
	Quantity int          `json:"quantity"`
	Price    client.Money `json:"price"`
	// Options are the options chosen for each unit of the item.
	Options []OrderOption `json:"options"`
}

// OrderOption is a chosen modifier option; it nests like the menu's options.
type OrderOption struct {
	PLU      string        `json:"plu"`
	Name     string        `json:"name"`
	Quantity int           `json:"quantity"`
	Price    client.Money  `json:"price"`
	Options  []OrderOption `json:"options"`
}

// UnitTotal returns the price of one unit of the item with its options.
func (it OrderItem) UnitTotal() client.Money {
	return it.Price.Add(optionsTotal(it.Options))
}

// LineTotal returns Quantity units of the item with their options.
func (it OrderItem) LineTotal() client.Money {
	return it.UnitTotal().Mul(int64(it.Quantity))
}

// LineTotal returns Quantity units of the option with its own options, for
// one unit of the parent.
func (o OrderOption) LineTotal() client.Money {
	return o.Price.Add(optionsTotal(o.Options)).Mul(int64(o.Quantity))
}

func optionsTotal(opts []OrderOption) client.Money {
	var sum client.Money
	for _, o := range opts {
		sum = sum.Add(o.LineTotal())
	}
	return sum
}

// ComputeTotal returns the sum of the line totals of o's items: the value
// Total should hold. The service fills Total this way; a POS may compare.
func (o Order) ComputeTotal() client.Money {
	var sum client.Money
	for _, it := range o.Items {
		sum = sum.Add(it.LineTotal())
	}
	return sum
}

// MarshalJSON writes o with empty arrays in place of nil slices and an
// empty object in place of a missing fulfillment.
func (o Order) MarshalJSON() ([]byte, error) {
	type plain Order
	o.Items = nonNil(o.Items)
	if len(o.Fulfillment) == 0 {
		o.Fulfillment = json.RawMessage(`{}`)
	}
	return json.Marshal(plain(o))
}

// MarshalJSON writes it with empty arrays in place of nil slices.
func (it OrderItem) MarshalJSON() ([]byte, error) {
	type plain OrderItem
	it.Options = nonNil(it.Options)
	return json.Marshal(plain(it))
}

// MarshalJSON writes o with empty arrays in place of nil slices.
func (o OrderOption) MarshalJSON() ([]byte, error) {
	type plain OrderOption
	o.Options = nonNil(o.Options)
	return json.Marshal(plain(o))
}
