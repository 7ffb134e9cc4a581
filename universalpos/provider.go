package universalpos

import "context"

// Provider is the business logic of a universal POS: what a POS vendor
// writes. NewHandler turns a Provider into the three HTTP endpoints of the
// contract and takes care of authentication, validation and
// de-duplication, so none of that belongs in a Provider.
//
// Methods are called concurrently, from many requests at once.
type Provider interface {
	// Health reports whether the POS can take orders now. Return
	// HealthStatus{Status: HealthFailed, Message: ...} for a known outage
	// (the message is shown to the operator). An error is answered as
	// FAILED with a generic message; its text is logged, not sent.
	Health(ctx context.Context) (HealthStatus, error)

	// Menus returns the POS's menus mapped to the universal format.
	// ValidateMenus tells what the service expects of them. An error is
	// answered 500, and the service keeps the menus it synced last.
	Menus(ctx context.Context) ([]Menu, error)

	// CreateOrder records a new order and returns the POS's id for it.
	// The order has been validated (see DecodeOrder), and NewHandler
	// calls CreateOrder at most once per Order.OrderID that its OrderStore
	// remembers. Return RejectOrder(...) to refuse the order for good; any
	// other error is a 500, and the service sends the order again later.
	CreateOrder(ctx context.Context, order Order) (posOrderID string, err error)
}
