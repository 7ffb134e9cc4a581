package fulfillment

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// Type names a fulfillment method. Its value is the method's path segment
// in POST /ordering/v3/order/{orderId}/fulfillment-type/{type}, and the
// fulfillmentType of an order.
//
// The zero value means "no fulfillment set yet"; on the wire it is null.
// A value the SDK does not know decodes without error and stays visible
// through String, so a newer server cannot break an older client.
type Type string

// The four fulfillment methods.
const (
	// TypeDeliveryByOperator: the merchant's own driver delivers.
	TypeDeliveryByOperator Type = "delivery-by-operator"
	// TypeDeliveryByDeliveryPartner: a third-party delivery service collects.
	TypeDeliveryByDeliveryPartner Type = "delivery-by-delivery-partner"
	// TypeCollectionByCustomer: the customer collects the order.
	TypeCollectionByCustomer Type = "collection-by-customer"
	// TypeOrderAtTable: the order is served at a table.
	TypeOrderAtTable Type = "order-at-table"
)

// Types lists the four fulfillment methods.
func Types() []Type {
	return []Type{TypeDeliveryByOperator, TypeDeliveryByDeliveryPartner, TypeCollectionByCustomer, TypeOrderAtTable}
}

// String returns the wire name, or "none" for the zero Type.
func (t Type) String() string {
	if t == "" {
		return "none"
	}
	return string(t)
}

// Known reports whether t is one of the four methods.
func (t Type) Known() bool {
	switch t {
	case TypeDeliveryByOperator, TypeDeliveryByDeliveryPartner, TypeCollectionByCustomer, TypeOrderAtTable:
		return true
	}
	return false
}

// MarshalJSON writes the wire name, or null for the zero Type.
func (t Type) MarshalJSON() ([]byte, error) {
	if t == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(t))
}

// UnmarshalJSON reads a wire name; null is the zero Type.
func (t *Type) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("fulfillment type: %w", err)
	}
	*t = Type(s)
	return nil
}

// Method is one of the four fulfillment methods, ready to be applied to an
// order with Service.Set. The interface is sealed: the only
// implementations are DeliveryByOperator, DeliveryByDeliveryPartner,
// CollectionByCustomer and OrderAtTable (as values or pointers).
type Method interface {
	// Type names the method (and the endpoint it is sent to).
	Type() Type
	// Validate checks the method's fields the way the service does and
	// returns a *client.ValidationError naming every bad field by its JSON path,
	// or nil.
	Validate() error
	sealed()
}

// Coordinates is a point on the map in decimal degrees (WGS 84).
type Coordinates struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

// DeliveryByOperator is the fulfillment where the merchant's own driver
// delivers the order (interface 4.13). CustomerEmail and Coordinates are the
// only nullable fields; when nil they are sent as JSON null.
type DeliveryByOperator struct {
	// DeliveryTime is the driver's delivery deadline; sent as ISO 8601.
	DeliveryTime time.Time `json:"deliveryTime"`
	// DeliveryNotes are the customer's notes for the driver (may be empty).
	DeliveryNotes string `json:"deliveryNotes"`
	// DeliveryCharge is the delivery charge applied to the order, >= 0.
	DeliveryCharge client.Money `json:"deliveryCharge"`
	CustomerName   string       `json:"customerName"`
	CustomerPhone  string       `json:"customerPhone"`
	// CustomerEmail is optional: nil is sent as null.
	CustomerEmail  *string `json:"customerEmail"`
	AddressLineOne string  `json:"addressLineOne"`
	// AddressLineTwo may be empty.
	AddressLineTwo string `json:"addressLineTwo"`
	City           string `json:"city"`
	PostCode       string `json:"postCode"`
	// KitchenNotes are the customer's notes for the kitchen (may be empty).
	KitchenNotes string `json:"kitchenNotes"`
	// Coordinates of the delivery address, optional: nil is sent as null.
	Coordinates *Coordinates `json:"coordinates"`
}

// DeliveryByDeliveryPartner is the fulfillment where a third-party delivery
// service collects the order from the restaurant (interface 4.14). Name and
// Phone are the collecting driver's; Customer, the only nullable field, is
// the person the partner delivers to and is sent as null when nil.
type DeliveryByDeliveryPartner struct {
	// CollectionTime is when the partner's driver collects; sent as ISO 8601.
	CollectionTime time.Time `json:"collectionTime"`
	// CollectionNotes are notes for the driver (may be empty).
	CollectionNotes string `json:"collectionNotes"`
	// Name is the collecting driver's name.
	Name string `json:"name"`
	// Phone is the collecting driver's phone.
	Phone string `json:"phone"`
	// OrderReference is the partner's reference; the restaurant uses it to
	// pick the order to hand over, and it is printed on the receipt.
	OrderReference string `json:"orderReference"`
	// KitchenNotes may be empty.
	KitchenNotes string `json:"kitchenNotes"`
	// Customer is optional: nil is sent as null.
	Customer *Customer `json:"customer"`
}

// Customer is the recipient of a partner delivery. Every field is required
// once a Customer is given.
type Customer struct {
	Name    string  `json:"name"`
	Phone   string  `json:"phone"`
	Email   string  `json:"email"`
	Address Address `json:"address"`
}

// Address is a delivery address. LineTwo may be empty; the rest is required.
type Address struct {
	LineOne     string      `json:"lineOne"`
	LineTwo     string      `json:"lineTwo"`
	City        string      `json:"city"`
	Postcode    string      `json:"postcode"`
	Coordinates Coordinates `json:"coordinates"`
}

// CollectionByCustomer is the fulfillment where the customer collects the
// order (interface 4.15).
type CollectionByCustomer struct {
	// CollectionTime is when the customer collects; sent as ISO 8601.
	CollectionTime time.Time `json:"collectionTime"`
	// CollectionNotes may be empty.
	CollectionNotes string `json:"collectionNotes"`
	// Name is the customer's name.
	Name string `json:"name"`
	// Phone is the customer's phone.
	Phone string `json:"phone"`
	// OrderReference tells the restaurant which customer collects; it is
	// printed on the receipt.
	OrderReference string `json:"orderReference"`
	// KitchenNotes may be empty.
	KitchenNotes string `json:"kitchenNotes"`
}

// OrderAtTable is the fulfillment where the order is served at a table
// (interface 4.15).
type OrderAtTable struct {
	// KitchenNotes may be empty.
	KitchenNotes string `json:"kitchenNotes"`
	// TableNumber is the table to serve, >= 1.
	TableNumber int `json:"tableNumber"`
}

// Type implements Method.
func (DeliveryByOperator) Type() Type { return TypeDeliveryByOperator }

// Type implements Method.
func (DeliveryByDeliveryPartner) Type() Type { return TypeDeliveryByDeliveryPartner }

// Type implements Method.
func (CollectionByCustomer) Type() Type { return TypeCollectionByCustomer }

// Type implements Method.
func (OrderAtTable) Type() Type { return TypeOrderAtTable }

func (DeliveryByOperator) sealed()        {}
func (DeliveryByDeliveryPartner) sealed() {}
func (CollectionByCustomer) sealed()      {}
func (OrderAtTable) sealed()              {}

var (
	_ Method = DeliveryByOperator{}
	_ Method = DeliveryByDeliveryPartner{}
	_ Method = CollectionByCustomer{}
	_ Method = OrderAtTable{}
)

// NewMethod returns a zero Method of type t, ready to be decoded into, or
// nil for an unknown type. It returns a pointer (for example
// *CollectionByCustomer), which also implements Method.
func NewMethod(t Type) Method {
	switch t {
	case TypeDeliveryByOperator:
		return &DeliveryByOperator{}
	case TypeDeliveryByDeliveryPartner:
		return &DeliveryByDeliveryPartner{}
	case TypeCollectionByCustomer:
		return &CollectionByCustomer{}
	case TypeOrderAtTable:
		return &OrderAtTable{}
	}
	return nil
}

// DecodeMethod decodes the JSON fulfillment body of a method of type t.
// It is how an Order's Fulfillment is read back (see Order.Method).
func DecodeMethod(t Type, data []byte) (Method, error) {
	m := NewMethod(t)
	if m == nil {
		return nil, fmt.Errorf("fulfillment: unknown type %q", string(t))
	}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("fulfillment: decode %s: %w", t, err)
	}
	return m, nil
}
