package store

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// dueDeliveries reads db's due deliveries (Tx.DueDeliveries).
func dueDeliveries(t *testing.T, db *DB, limit int, perKey func(keyID int64) int) []DueDelivery {
	t.Helper()
	var due []DueDelivery
	mustRead(t, db, func(tx *Tx) (err error) {
		due, _, _, err = tx.DueDeliveries(limit, perKey)
		return err
	})
	return due
}

// insertTestWebhook adds webhook id of API key key, subscribed to
// eventsJSON, at an address nothing is called at in these tests.
func insertTestWebhook(tx *Tx, id string, key int64, eventsJSON string) error {
	return tx.InsertWebhook(Webhook{WebhookID: id, KeyID: key, URL: "http://127.0.0.1:9/", EventsJSON: eventsJSON, SecretSealed: []byte("x")})
}

// One key's backlog does not keep another key's deliveries out of the
// due list: each key gives at most perKey, oldest first, and the keys take
// turns, the one waiting longest first.
func TestDueDeliveriesShareOutTheKeys(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "d.db"), nil)
	var busy, quiet int64
	ids := map[string]string{} // delivery id -> "<webhook>:<n>"
	err := db.Write(t.Context(), func(tx *Tx) error {
		var err error
		if busy, err = tx.InsertAPIKey("busy", nil); err != nil {
			return err
		}
		if quiet, err = tx.InsertAPIKey("quiet", nil); err != nil {
			return err
		}
		for _, w := range []Webhook{{WebhookID: "wh_a1", KeyID: busy}, {WebhookID: "wh_a2", KeyID: busy}, {WebhookID: "wh_b", KeyID: quiet}} {
			if err := insertTestWebhook(tx, w.WebhookID, w.KeyID, `["*"]`); err != nil {
				return err
			}
		}
		queue := func(webhookID string, n int) error {
			seq, err := tx.InsertEvent(Event{EventID: "evt_" + webhookID + strconv.Itoa(n), Type: "ping", OwnerKeyID: &busy, DataJSON: "{}"})
			if err != nil {
				return err
			}
			return tx.QueueDelivery(seq, webhookID)
		}
		// The busy key's two webhooks have 50 deliveries each before the
		// quiet key's one.
		for n := range 50 {
			if err := queue("wh_a1", n); err != nil {
				return err
			}
			if err := queue("wh_a2", n); err != nil {
				return err
			}
		}
		return queue("wh_b", 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Read(t.Context(), func(tx *Tx) error {
		rows, err := tx.query(`SELECT d.delivery_id, d.webhook_id, e.event_id FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, wh, ev string
			if err := rows.Scan(&id, &wh, &ev); err != nil {
				return err
			}
			ids[id] = ev
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}

	due := dueDeliveries(t, db, 5, func(int64) int { return 3 })
	var got []string
	for _, d := range due {
		got = append(got, ids[d.DeliveryID])
	}
	// Turn 1: the busy key (waiting longest), then the quiet one; then the
	// busy key's next two, oldest first: at most three of it.
	want := []string{"evt_wh_a10", "evt_wh_b0", "evt_wh_a20", "evt_wh_a11"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("due deliveries (-want +got):\n%s", d)
	}
	if due[1].KeyID != quiet || due[0].KeyID != busy {
		t.Errorf("keys %+v", due)
	}

	// A key the dispatcher has no room for is left out.
	due = dueDeliveries(t, db, 5, func(key int64) int {
		if key == busy {
			return 0
		}
		return 3
	})
	if len(due) != 1 || ids[due[0].DeliveryID] != "evt_wh_b0" {
		t.Errorf("due deliveries with the busy key left out: %+v", due)
	}
}

// A delivery whose attempt is under way is not due, so a look at the queue
// reads past none of them; one whose outcome was never recorded (the
// server stopped, or a copy was made meanwhile) is due again once the
// database is opened again, or the copy restored.
func TestDeliveryUnderWayIsDueAgainAfterReopenOrRestore(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "d.db")
	db := openTest(t, path, nil)
	var ids []string
	err := db.Write(t.Context(), func(tx *Tx) error {
		key, err := tx.InsertAPIKey("k", nil)
		if err != nil {
			return err
		}
		if err := insertTestWebhook(tx, "wh_a", key, `["*"]`); err != nil {
			return err
		}
		for n := range 2 {
			seq, err := tx.InsertEvent(Event{EventID: "evt_" + strconv.Itoa(n), Type: "ping", OwnerKeyID: &key, DataJSON: "{}"})
			if err != nil {
				return err
			}
			if err := tx.QueueDelivery(seq, "wh_a"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	due := func(db *DB) []string {
		t.Helper()
		var out []string
		for _, d := range dueDeliveries(t, db, 10, func(int64) int { return 10 }) {
			out = append(out, d.DeliveryID)
		}
		slices.Sort(out)
		return out
	}
	ids = due(db)
	if len(ids) != 2 {
		t.Fatalf("due before any attempt: %v", ids)
	}
	if err := db.Write(t.Context(), func(tx *Tx) error { return tx.StartDeliveryAttempt(ids[0]) }); err != nil {
		t.Fatal(err)
	}
	if got := due(db); !slices.Equal(got, ids[1:]) {
		t.Errorf("due with %s under way: %v", ids[0], got)
	}
	copied, err := db.CopyToMemory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()

	// The attempt is recorded; the copy, made before, restored.
	if err := db.Write(t.Context(), func(tx *Tx) error {
		return tx.RecordDeliveryAttempt(ids[0], DeliveryAttempt{Attempts: 1, Status: DeliveryDelivered})
	}); err != nil {
		t.Fatal(err)
	}
	if got := due(db); !slices.Equal(got, ids[1:]) {
		t.Errorf("due with %s delivered: %v", ids[0], got)
	}
	if err := db.RestoreMemory(t.Context(), copied, nil); err != nil {
		t.Fatal(err)
	}
	if got := due(db); !slices.Equal(got, ids) {
		t.Errorf("due after restoring a copy made while %s was under way: %v", ids[0], got)
	}

	// Under way again, and the server stops before recording it.
	if err := db.Write(t.Context(), func(tx *Tx) error { return tx.StartDeliveryAttempt(ids[1]) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openTest(t, path, nil)
	if got := due(db); !slices.Equal(got, ids) {
		t.Errorf("due after reopening with %s under way: %v", ids[1], got)
	}
}

// A look at the due deliveries also tells the next attempt: the earliest
// due time of any webhook's pending deliveries, those under way (no due
// time) left out, read with one index seek per webhook rather than a step
// through every pending delivery.
func TestDueDeliveriesTellTheNextAttempt(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "d.db"), func() time.Time { return time.Unix(1000, 0) })
	next := func() (int64, bool) {
		t.Helper()
		var (
			at int64
			ok bool
		)
		mustRead(t, db, func(tx *Tx) (err error) {
			_, at, ok, err = tx.DueDeliveries(10, func(int64) int { return 10 })
			return err
		})
		return at, ok
	}
	if at, ok := next(); ok {
		t.Errorf("no delivery, next attempt at %d", at)
	}
	ids := map[string]string{} // webhook -> its delivery
	mustWrite(t, db, func(tx *Tx) error {
		key, err := tx.InsertAPIKey("k", nil)
		if err != nil {
			return err
		}
		for _, wh := range []string{"wh_a", "wh_b"} {
			if err := insertTestWebhook(tx, wh, key, `["*"]`); err != nil {
				return err
			}
			seq, err := tx.InsertEvent(Event{EventID: "evt_" + wh, Type: "ping", OwnerKeyID: &key, DataJSON: "{}"})
			if err != nil {
				return err
			}
			if err := tx.QueueDelivery(seq, wh); err != nil {
				return err
			}
		}
		return nil
	})
	for _, d := range dueDeliveries(t, db, 10, func(int64) int { return 10 }) {
		mustRead(t, db, func(tx *Tx) error {
			target, err := tx.GetDeliveryTarget(d.DeliveryID)
			ids[target.WebhookID] = d.DeliveryID
			return err
		})
	}
	if at, ok := next(); !ok || at != 1000 {
		t.Errorf("two deliveries due now: next attempt at %d, %v; want 1000", at, ok)
	}
	mustWrite(t, db, func(tx *Tx) error {
		for _, id := range ids {
			if err := tx.StartDeliveryAttempt(id); err != nil {
				return err
			}
		}
		return nil
	})
	if at, ok := next(); ok {
		t.Errorf("both under way: next attempt at %d", at)
	}
	retry := func(wh string, at int64) {
		mustWrite(t, db, func(tx *Tx) error {
			return tx.RecordDeliveryAttempt(ids[wh], DeliveryAttempt{Attempts: 1, Status: DeliveryPending, NextAttemptAt: &at})
		})
	}
	retry("wh_a", 1004)
	retry("wh_b", 1002)
	if at, ok := next(); !ok || at != 1002 {
		t.Errorf("retries at 1004 and 1002: next attempt at %d, %v; want 1002", at, ok)
	}
	mustWrite(t, db, func(tx *Tx) error {
		return tx.RecordDeliveryAttempt(ids["wh_b"], DeliveryAttempt{Attempts: 2, Status: DeliveryDelivered})
	})
	if at, ok := next(); !ok || at != 1004 {
		t.Errorf("one retry left, at 1004: next attempt at %d, %v", at, ok)
	}

	mustRead(t, db, func(tx *Tx) error {
		rows, err := tx.query("EXPLAIN QUERY PLAN " + dueWebhooksSQL)
		if err != nil {
			return err
		}
		defer rows.Close()
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				return err
			}
			plan = append(plan, detail)
		}
		joined := strings.Join(plan, " | ")
		if !strings.Contains(joined, "SEARCH d USING") || !strings.Contains(joined, "webhook_deliveries_webhook_due (webhook_id=?)") {
			t.Errorf("plan %q: want one seek of webhook_deliveries_webhook_due per webhook", joined)
		}
		return rows.Err()
	})
}
