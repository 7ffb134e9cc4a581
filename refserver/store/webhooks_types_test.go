package store

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// lookedForSubscribers reports whether the writer ever ran the statement
// of QueueDeliveries that looks for an event's subscribers.
func lookedForSubscribers(tx *Tx) bool {
	tx.stmts.mu.Lock()
	defer tx.stmts.mu.Unlock()
	for q := range tx.stmts.m {
		if strings.HasPrefix(q, "INSERT INTO webhook_deliveries") && strings.Contains(q, "JOIN api_key_locations") {
			return true
		}
	}
	return false
}

// An event of a type that no webhook is subscribed to is queued for no
// webhook without a look at the table; one of a type some webhook wants
// goes to exactly the webhooks that want it, including those added since,
// and after the known types are forgotten (a restore) they are read again.
func TestQueueDeliveriesSkipsTypesNoWebhookWants(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "types.db"), nil)
	var loc, key int64
	events := 0
	queue := func(typ string, want int64, looks bool) {
		t.Helper()
		events++
		mustWrite(t, db, func(tx *Tx) error {
			seq, err := tx.InsertEvent(Event{EventID: "evt_" + strconv.Itoa(events), Type: typ, LocationID: &loc, DataJSON: "{}"})
			if err != nil {
				return err
			}
			n, err := tx.QueueDeliveries(seq, typ, loc)
			if err != nil || n != want {
				t.Errorf("QueueDeliveries(%s) = %d, %v; want %d", typ, n, err, want)
			}
			if got := lookedForSubscribers(tx); got != looks {
				t.Errorf("after QueueDeliveries(%s): looked for subscribers %v, want %v", typ, got, looks)
			}
			return nil
		})
	}
	mustWrite(t, db, func(tx *Tx) (err error) {
		if loc, err = tx.InsertLocation("Types", "providerB"); err != nil {
			return err
		}
		key, err = tx.InsertAPIKey("types", []int64{loc})
		return err
	})
	queue("bill.closed", 0, false) // no webhook at all
	mustWrite(t, db, func(tx *Tx) error { return insertTestWebhook(tx, "wh_orders", key, `["order.status_changed"]`) })
	queue("bill.closed", 0, false) // no webhook wants it
	queue("order.status_changed", 1, true)
	mustWrite(t, db, func(tx *Tx) error { return insertTestWebhook(tx, "wh_bills", key, `["bill.closed"]`) })
	queue("bill.closed", 1, true)
	queue("payment.accepted", 0, true)

	db.webhooks.forget()
	queue("payment.accepted", 0, true) // read from the table: still nobody
	if known := db.webhooks.types.Load(); known == nil || known.all || !known.wants("bill.closed") || !known.wants("order.status_changed") || known.wants("payment.accepted") {
		t.Errorf("types read from the table: %+v, want bill.closed and order.status_changed", known)
	}
	mustWrite(t, db, func(tx *Tx) error { return insertTestWebhook(tx, "wh_all", key, `["*"]`) })
	queue("payment.accepted", 1, true)
	queue("bill.closed", 2, true)
}
