package events

import "slices"

// Type is the type of an event, such as "payment.accepted". A type this
// SDK does not know decodes without error and keeps its text, so an event
// type the service adds later stays visible (Known reports false).
type Type string

// The event types of the service.
const (
	// TypePaymentCreated: a payment was made (status pending). Data: the
	// payment (Event.Payment).
	TypePaymentCreated Type = "payment.created"
	// TypePaymentAccepted: the location's POS accepted a payment, the first
	// time only. Data: the payment (Event.Payment).
	TypePaymentAccepted Type = "payment.accepted"
	// TypeBillClosed: a push turned a bill's status to closed, again after
	// a re-open. Data: BillClosed.
	TypeBillClosed Type = "bill.closed"
	// TypeOrderStatusChanged: an order moved from one status to another.
	// Data: OrderStatusChanged.
	TypeOrderStatusChanged Type = "order.status_changed"
	// TypeLocationOnline: a location's POS sent a heartbeat after being
	// offline (a new location starts offline). Data: LocationStatus.
	TypeLocationOnline Type = "location.online"
	// TypeLocationOffline: a location's POS sent no heartbeat for 6
	// minutes. Data: LocationStatus.
	TypeLocationOffline Type = "location.offline"
	// TypePOSHealthChanged: a location's universal POS changed health.
	// Data: POSHealthChanged.
	TypePOSHealthChanged Type = "pos.health_changed"
	// TypePing: a ping was asked for (Service.PingWebhook). Data: Ping.
	TypePing Type = "ping"
)

// AllTypes is the wildcard of a subscription: every event type, including
// those the service adds later.
const AllTypes Type = "*"

// Types returns every event type this SDK knows, in the order the service
// documents them. The wildcard AllTypes is not among them.
func Types() []Type { return slices.Clone(knownTypes) }

var knownTypes = []Type{
	TypePaymentCreated, TypePaymentAccepted, TypeBillClosed, TypeOrderStatusChanged,
	TypeLocationOnline, TypeLocationOffline, TypePOSHealthChanged, TypePing,
}

// Known reports whether t is one of the event types this SDK knows (the
// wildcard AllTypes is not a type of event, so it is not known).
func (t Type) Known() bool { return slices.Contains(knownTypes, t) }

// String returns the wire name of the type.
func (t Type) String() string { return string(t) }
