package store

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
			w.URL, w.EventsJSON, w.SecretSealed = "http://127.0.0.1:9/", `["*"]`, []byte("x")
			if err := tx.InsertWebhook(w); err != nil {
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

	var due []DueDelivery
	if err := db.Read(t.Context(), func(tx *Tx) (err error) { due, err = tx.DueDeliveries(3, 5); return err }); err != nil {
		t.Fatal(err)
	}
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
}
