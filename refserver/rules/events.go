package rules

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// Events (contract.md section 8). Each change below records its event in
// its own transaction, through recordEvent, so that a change rolled back
// leaves no event and a replayed request (api.Writes answers a replay from
// the stored response without running the change) makes no second one.
// Recording an event also queues its deliveries to the webhooks that want
// it, in the same transaction.

// EventRetention is how long events (and their deliveries) are kept, on
// the virtual clock; the retention sweep deletes them after that.
const EventRetention = store.EventRetention

// EventEnvelope renders a stored event as its envelope (the SDK's
// events.Event: one definition of the wire format).
func EventEnvelope(e store.Event) events.Event {
	return events.Event{
		ID: e.EventID, Type: events.Type(e.Type), CreatedAt: unixTime(e.CreatedAt),
		LocationID: e.LocationID, Data: json.RawMessage(e.DataJSON),
	}
}

// recordEvent records an event of typ about locationID with data, and
// queues its deliveries to the webhooks subscribed to typ whose API keys
// see the location.
func recordEvent(tx *store.Tx, typ events.Type, locationID int64, data any) error {
	seq, err := insertEvent(tx, store.Event{Type: string(typ), LocationID: &locationID}, data)
	if err != nil {
		return err
	}
	_, err = tx.QueueDeliveries(seq, string(typ), locationID)
	return err
}

// insertEvent stores e, of Type and LocationID or OwnerKeyID, with a new
// id and data as its JSON, and returns its seq.
func insertEvent(tx *store.Tx, e store.Event, data any) (int64, error) {
	b, err := eventData(data)
	if err != nil {
		return 0, fmt.Errorf("event %s: %w", e.Type, err)
	}
	e.EventID, e.DataJSON = newEventID(), string(b)
	return tx.InsertEvent(e)
}

// newEventID returns a new event id: "evt_" and 24 hex digits, the time
// in milliseconds (12 digits) and then 48 random bits. Ids in time order
// land at the end of the events table's unique index on event_id, where
// the events of one commit share a page; random ones put each event's
// entry on a page of its own somewhere in the index, and every page a
// commit changes is written to the WAL again.
func newEventID() string { return timeOrderedID("evt_", time.Now()) }

func timeOrderedID(prefix string, now time.Time) string {
	var b [12]byte
	ms := uint64(now.UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	_, _ = rand.Read(b[6:]) // crypto/rand.Read never fails
	return prefix + hex.EncodeToString(b[:])
}

func randomID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return prefix + hex.EncodeToString(b[:])
}

// billClosed records bill.closed for a push that closed a bill.
func billClosed(tx *store.Tx, row store.CheckRow, billID string) error {
	return recordEvent(tx, events.TypeBillClosed, row.LocationID, events.BillClosed{
		BillID:      billID,
		LocationID:  row.LocationID,
		CheckNumber: row.CheckNumber,
		TotalAmount: client.MoneyFromCents(row.TotalAmount),
		LastUpdated: client.BillTime{Time: time.Unix(tx.Unix(), 0).UTC()},
	})
}

// PushCheck stores a pushed check as its bill (POST
// /v1/pos/push-pull/check) and records bill.closed when the push closes
// the bill: a new bill pushed closed, or one pushed closed again after a
// re-open. An unchanged push records nothing.
func PushCheck(tx *store.Tx, row store.CheckRow) (store.CheckPush, error) {
	p, err := tx.PushCheck(row)
	if err != nil || !p.Closed {
		return p, err
	}
	return p, billClosed(tx, row, p.BillID)
}

// OrderStatusChanged records order.status_changed for an order that moved
// from previous to status; posOrderID and reason (a failure's detail) are
// nil when there is none. Every change of an order's status calls it, in
// the transaction of the change.
func OrderStatusChanged(tx *store.Tx, orderID string, locationID int64, previous, status string, posOrderID, reason *string) error {
	return recordEvent(tx, events.TypeOrderStatusChanged, locationID, events.OrderStatusChanged{
		OrderID: orderID, LocationID: locationID,
		Status: fulfillment.Status(status), PreviousStatus: fulfillment.Status(previous),
		POSOrderID: posOrderID, Reason: reason,
	})
}

// RecordPOSHealth records the outcome of a health check of a location's
// universal POS at posURL (see store.SetPOSHealth) and, when the POS went
// from OK to not OK or back, pos.health_changed. The first check of a POS
// records no event: there is no change to tell until it was known once.
// An unreachable POS counts as FAILED, with what went wrong as message.
func RecordPOSHealth(tx *store.Tx, loc store.POSLocation, health, message string) error {
	prev, err := tx.GetPOSStatus(loc.LocationID)
	if err != nil {
		return err
	}
	set, err := tx.SetPOSHealth(loc.LocationID, loc.POSURL, health, message)
	if err != nil || !set || prev.Health == nil {
		return err
	}
	wasOK, isOK := *prev.Health == store.POSHealthOK, health == store.POSHealthOK
	if wasOK == isOK {
		return nil
	}
	d := events.POSHealthChanged{LocationID: loc.LocationID, Status: wallet.POSHealthOK}
	if !isOK {
		d.Status = wallet.POSHealthFailed
		if message != "" {
			d.Message = &message
		}
	}
	return recordEvent(tx, events.TypePOSHealthChanged, loc.LocationID, d)
}
