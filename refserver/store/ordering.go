package store

import (
	"database/sql"
	"errors"
	"fmt"
)

// Order statuses of the orders table, in the order an order moves through
// them.
const (
	OrderCreated        = "created"
	OrderFulfillmentSet = "fulfillment_set"
	OrderSentToPOS      = "sent_to_pos"
	OrderAcceptedByPOS  = "accepted_by_pos"
	OrderFailed         = "failed"
)

// Order is a row of the orders table.
type Order struct {
	OrderID    string
	UserID     int64
	LocationID int64
	// ItemsJSON is the priced items, as sent to the POS.
	ItemsJSON string
	// Total in hundredths.
	Total int64
	// FulfillmentType and FulfillmentJSON are nil until a fulfillment is set.
	FulfillmentType *string
	FulfillmentJSON *string
	Status          string
	POSOrderID      *string
	// Attempts counts finished sends to the POS.
	Attempts int
	// NextAttemptAt is when the next send is due (Unix seconds); nil when
	// nothing is due.
	NextAttemptAt *int64
	LastError     *string
	CreatedAt     int64
	UpdatedAt     int64
}

// OrderEvent is a row of order_events: one step of an order's timeline.
type OrderEvent struct {
	EventID int64
	OrderID string
	Status  string
	Detail  string
	At      int64
}

// LocationMenu is the menu cache of a location.
type LocationMenu struct {
	// MenuJSON is the last menus synced from the POS; nil before the first sync.
	MenuJSON *string
	// SyncedAt is the time of that sync; nil before the first sync.
	SyncedAt *int64
}

// OrderTarget is where an order goes: the POS registered for its location.
type OrderTarget struct {
	Order
	// POSURL is nil when the location has no universal POS;
	// POSTokenSealed, its bearer token as POSTokens sealed it, is nil when
	// it has no POS or no token.
	POSURL         *string
	POSTokenSealed []byte
}

// GetLocationMenu returns the menu cache of a location, or ErrNotFound for
// an unknown location.
func (tx *Tx) GetLocationMenu(locationID int64) (LocationMenu, error) {
	var m LocationMenu
	err := tx.queryRow(`SELECT menu_json, menu_synced_at FROM locations WHERE location_id = ?`, locationID).
		Scan(&m.MenuJSON, &m.SyncedAt)
	return m, notFound(err)
}

const orderColumns = `order_id, user_id, location_id, items_json, total, fulfillment_type, fulfillment_json,
	status, pos_order_id, attempts, next_attempt_at, last_error, created_at, updated_at`

func scanOrder(sc scanner, o *Order, extra ...any) error {
	return sc.Scan(append([]any{&o.OrderID, &o.UserID, &o.LocationID, &o.ItemsJSON, &o.Total,
		&o.FulfillmentType, &o.FulfillmentJSON, &o.Status, &o.POSOrderID, &o.Attempts,
		&o.NextAttemptAt, &o.LastError, &o.CreatedAt, &o.UpdatedAt}, extra...)...)
}

// InsertOrder stores a new order in status created, stamped with the
// transaction's time, and records the first event of its timeline.
func (tx *Tx) InsertOrder(orderID string, userID, locationID int64, itemsJSON string, total int64) error {
	now := tx.Unix()
	if _, err := tx.exec(`INSERT INTO orders (order_id, user_id, location_id, items_json, total, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, orderID, userID, locationID, itemsJSON, total, OrderCreated, now, now); err != nil {
		return fmt.Errorf("insert order: %w", err)
	}
	return tx.InsertOrderEvent(orderID, OrderCreated, "")
}

// GetOrder returns one order or ErrNotFound.
func (tx *Tx) GetOrder(orderID string) (Order, error) {
	var o Order
	err := scanOrder(tx.queryRow(`SELECT `+orderColumns+` FROM orders WHERE order_id = ?`, orderID), &o)
	return o, notFound(err)
}

// GetOrderTarget returns an order together with its location's universal
// POS, or ErrNotFound.
func (tx *Tx) GetOrderTarget(orderID string) (OrderTarget, error) {
	var t OrderTarget
	err := scanOrder(tx.queryRow(`SELECT o.order_id, o.user_id, o.location_id, o.items_json, o.total, o.fulfillment_type,
		o.fulfillment_json, o.status, o.pos_order_id, o.attempts, o.next_attempt_at, o.last_error, o.created_at, o.updated_at,
		l.pos_url, l.pos_token_sealed
		FROM orders o JOIN locations l ON l.location_id = o.location_id WHERE o.order_id = ?`, orderID),
		&t.Order, &t.POSURL, &t.POSTokenSealed)
	return t, notFound(err)
}

// SetOrderFulfillment records the fulfillment of an order in status
// created, moves it to fulfillment_set and makes its first send due at
// once. It returns ErrNotFound when the order is not in status created
// (another request set a fulfillment first).
func (tx *Tx) SetOrderFulfillment(orderID, fulfillmentType, fulfillmentJSON string) error {
	now := tx.Unix()
	res, err := tx.exec(`UPDATE orders SET fulfillment_type = ?, fulfillment_json = ?, status = ?, next_attempt_at = ?, updated_at = ?
		WHERE order_id = ? AND status = ?`, fulfillmentType, fulfillmentJSON, OrderFulfillmentSet, now, now, orderID, OrderCreated)
	if err != nil {
		return fmt.Errorf("set order fulfillment: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNotFound
	}
	return tx.InsertOrderEvent(orderID, OrderFulfillmentSet, fulfillmentType)
}

// DueOrders returns up to limit orders waiting to be sent to their POS
// (status fulfillment_set or sent_to_pos) whose next attempt is due at the
// transaction's time, the longest-waiting first.
func (tx *Tx) DueOrders(limit int) ([]string, error) {
	rows, err := tx.query(`SELECT order_id FROM orders
		WHERE status IN (?, ?) AND next_attempt_at <= ?
		ORDER BY next_attempt_at, order_id LIMIT ?`, OrderFulfillmentSet, OrderSentToPOS, tx.Unix(), limit)
	if err != nil {
		return nil, fmt.Errorf("due orders: %w", err)
	}
	return collect(rows, scanString)
}

// NextOrderAttempt returns the earliest next_attempt_at of the orders still
// waiting to be sent; ok is false when none is waiting.
func (tx *Tx) NextOrderAttempt() (at int64, ok bool, err error) {
	var v sql.NullInt64
	err = tx.queryRow(`SELECT min(next_attempt_at) FROM orders WHERE status IN (?, ?)`,
		OrderFulfillmentSet, OrderSentToPOS).Scan(&v)
	if err != nil {
		return 0, false, fmt.Errorf("next order attempt: %w", err)
	}
	return v.Int64, v.Valid, nil
}

// MarkOrderSending moves an order from fulfillment_set to sent_to_pos as its
// first send starts; an order already past fulfillment_set is left alone.
func (tx *Tx) MarkOrderSending(orderID string) error {
	res, err := tx.exec(`UPDATE orders SET status = ?, updated_at = ? WHERE order_id = ? AND status = ?`,
		OrderSentToPOS, tx.Unix(), orderID, OrderFulfillmentSet)
	if err != nil {
		return fmt.Errorf("mark order sending: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	return tx.InsertOrderEvent(orderID, OrderSentToPOS, "")
}

// ScheduleOrderRetry records a failed send that will be tried again at
// nextAttemptAt (Unix seconds). detail (the failure, never a secret) goes
// to last_error and to the timeline.
func (tx *Tx) ScheduleOrderRetry(orderID string, attempts int, nextAttemptAt int64, detail string) error {
	if err := tx.updateSendingOrder(`attempts = ?, next_attempt_at = ?, last_error = ?`, orderID, attempts, nextAttemptAt, detail); err != nil {
		return fmt.Errorf("schedule order retry: %w", err)
	}
	return tx.InsertOrderEvent(orderID, OrderSentToPOS, detail)
}

// MarkOrderAccepted records that the POS accepted the order.
func (tx *Tx) MarkOrderAccepted(orderID string, attempts int, posOrderID string) error {
	if err := tx.updateSendingOrder(`status = '`+OrderAcceptedByPOS+`', attempts = ?, pos_order_id = ?, next_attempt_at = NULL, last_error = NULL`,
		orderID, attempts, posOrderID); err != nil {
		return fmt.Errorf("mark order accepted: %w", err)
	}
	return tx.InsertOrderEvent(orderID, OrderAcceptedByPOS, "posOrderId "+posOrderID)
}

// MarkOrderFailed records that the order will not reach the POS.
func (tx *Tx) MarkOrderFailed(orderID string, attempts int, detail string) error {
	if err := tx.updateSendingOrder(`status = '`+OrderFailed+`', attempts = ?, next_attempt_at = NULL, last_error = ?`,
		orderID, attempts, detail); err != nil {
		return fmt.Errorf("mark order failed: %w", err)
	}
	return tx.InsertOrderEvent(orderID, OrderFailed, detail)
}

// ErrOrderNotSending is returned by the dispatcher's updates when the order
// is no longer on its way to the POS; they apply only to such an order.
var ErrOrderNotSending = errors.New("order is not being sent")

func (tx *Tx) updateSendingOrder(set, orderID string, args ...any) error {
	args = append(args, tx.Unix(), orderID, OrderFulfillmentSet, OrderSentToPOS)
	res, err := tx.exec(`UPDATE orders SET `+set+`, updated_at = ? WHERE order_id = ? AND status IN (?, ?)`, args...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrOrderNotSending
	}
	return nil
}

// InsertOrderEvent appends a step to an order's timeline.
func (tx *Tx) InsertOrderEvent(orderID, status, detail string) error {
	_, err := tx.exec(`INSERT INTO order_events (order_id, status, detail, at) VALUES (?, ?, ?, ?)`,
		orderID, status, detail, tx.Unix())
	if err != nil {
		return fmt.Errorf("insert order event: %w", err)
	}
	return nil
}

// OrderEvents returns an order's timeline, oldest first.
func (tx *Tx) OrderEvents(orderID string) ([]OrderEvent, error) {
	rows, err := tx.query(`SELECT event_id, order_id, status, detail, at FROM order_events
		WHERE order_id = ? ORDER BY event_id`, orderID)
	if err != nil {
		return nil, fmt.Errorf("order events: %w", err)
	}
	defer rows.Close()
	var out []OrderEvent
	for rows.Next() {
		var e OrderEvent
		if err := rows.Scan(&e.EventID, &e.OrderID, &e.Status, &e.Detail, &e.At); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
