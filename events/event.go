package events

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/wallet"
)

// Event is the envelope of every event, as a webhook delivery's body and
// as an element of the event feed. Data holds the type's data undecoded;
// Decode, or the accessor named for the type (Payment, BillClosed, ...),
// decodes it.
//
// The service delivers at least once and in no guaranteed order:
// deduplicate by ID, and order by CreatedAt (or by the feed's order) when
// it matters.
type Event struct {
	// ID identifies the event ("evt_..."); a redelivery has the same ID.
	ID   string `json:"id"`
	Type Type   `json:"type"`
	// CreatedAt is when the change happened, on the service's clock (the
	// sandbox's virtual clock), to the second.
	CreatedAt client.UnixTime `json:"createdAt"`
	// LocationID is the location the event is about, nil for an event
	// about none (a ping).
	LocationID *int64 `json:"locationId"`
	// Data is the type's data, a JSON object.
	Data json.RawMessage `json:"data"`
	// Cursor is the event's position in the feed, set only on events read
	// from it (Service.ListEvents, Feed): pass it as FeedQuery.After to
	// read the events that follow.
	Cursor string `json:"cursor,omitempty"`
}

// BillClosed is the data of a bill.closed event.
type BillClosed struct {
	BillID      string       `json:"billId"`
	LocationID  int64        `json:"locationId"`
	CheckNumber int64        `json:"checkNumber"`
	TotalAmount client.Money `json:"totalAmount"`
	// LastUpdated is the time of the push that closed the bill, to the
	// second: the bill record's lastUpdated (see package bills).
	LastUpdated client.BillTime `json:"lastUpdated"`
}

// OrderStatusChanged is the data of an order.status_changed event.
type OrderStatusChanged struct {
	OrderID    string `json:"orderId"`
	LocationID int64  `json:"locationId"`
	// Status is the order's new status, PreviousStatus the one it left.
	Status         fulfillment.Status `json:"status"`
	PreviousStatus fulfillment.Status `json:"previousStatus"`
	// POSOrderID is the POS's id for the order, once the POS accepted it.
	POSOrderID *string `json:"posOrderId"`
	// Reason says why an order failed; nil otherwise.
	Reason *string `json:"reason"`
}

// LocationStatus is the data of the location.online and location.offline
// events.
type LocationStatus struct {
	LocationID int64 `json:"locationId"`
	// LastHeartbeat is the time of the POS's last heartbeat; nil if it has
	// never sent one.
	LastHeartbeat *client.UnixTime `json:"lastHeartbeat"`
}

// POSHealthChanged is the data of a pos.health_changed event.
type POSHealthChanged struct {
	LocationID int64 `json:"locationId"`
	// Status is the new health of the location's universal POS.
	Status wallet.POSHealth `json:"status"`
	// Message is what the POS said about a failed health, nil when none.
	Message *string `json:"message"`
}

// Ping is the data of a ping event.
type Ping struct {
	// WebhookID is the webhook the ping was asked for.
	WebhookID string `json:"webhookId"`
}

// ErrUnknownType is returned (wrapped) by Decode for an event type this SDK
// does not know; the event's Data is still there to read.
var ErrUnknownType = errors.New("events: unknown event type")

// ErrTypeMismatch is returned (wrapped) by an accessor called on an event
// of another type, such as BillClosed on a payment.created event.
var ErrTypeMismatch = errors.New("events: accessor does not match the event type")

// Decode decodes Data into the type's data and returns it as a value:
// wallet.Payment for the payment events, BillClosed, OrderStatusChanged,
// LocationStatus (online and offline), POSHealthChanged or Ping.
//
//	v, err := ev.Decode()
//	switch d := v.(type) {
//	case wallet.Payment:
//		...
//	case events.BillClosed:
//		...
//	}
//
// An event type this SDK does not know returns an error wrapping
// ErrUnknownType.
func (e Event) Decode() (any, error) {
	switch e.Type {
	case TypePaymentCreated, TypePaymentAccepted:
		return e.Payment()
	case TypeBillClosed:
		return e.BillClosed()
	case TypeOrderStatusChanged:
		return e.OrderStatusChanged()
	case TypeLocationOnline, TypeLocationOffline:
		return e.LocationStatus()
	case TypePOSHealthChanged:
		return e.POSHealthChanged()
	case TypePing:
		return e.Ping()
	}
	return nil, fmt.Errorf("%w %q (event %s)", ErrUnknownType, e.Type, e.ID)
}

// Payment decodes the payment of a payment.created or payment.accepted
// event.
func (e Event) Payment() (wallet.Payment, error) {
	return decodeData[wallet.Payment](e, TypePaymentCreated, TypePaymentAccepted)
}

// BillClosed decodes the data of a bill.closed event.
func (e Event) BillClosed() (BillClosed, error) {
	return decodeData[BillClosed](e, TypeBillClosed)
}

// OrderStatusChanged decodes the data of an order.status_changed event.
func (e Event) OrderStatusChanged() (OrderStatusChanged, error) {
	return decodeData[OrderStatusChanged](e, TypeOrderStatusChanged)
}

// LocationStatus decodes the data of a location.online or location.offline
// event.
func (e Event) LocationStatus() (LocationStatus, error) {
	return decodeData[LocationStatus](e, TypeLocationOnline, TypeLocationOffline)
}

// POSHealthChanged decodes the data of a pos.health_changed event.
func (e Event) POSHealthChanged() (POSHealthChanged, error) {
	return decodeData[POSHealthChanged](e, TypePOSHealthChanged)
}

// Ping decodes the data of a ping event.
func (e Event) Ping() (Ping, error) {
	return decodeData[Ping](e, TypePing)
}

// decodeData decodes e.Data into a T, when e is of one of the types.
func decodeData[T any](e Event, types ...Type) (T, error) {
	var v T
	match := false
	for _, t := range types {
		match = match || e.Type == t
	}
	if !match {
		return v, fmt.Errorf("%w: event %s is %q, not %q", ErrTypeMismatch, e.ID, e.Type, types[0])
	}
	if err := json.Unmarshal(e.Data, &v); err != nil {
		return v, fmt.Errorf("events: decode the data of %s event %s: %w", e.Type, e.ID, err)
	}
	return v, nil
}
