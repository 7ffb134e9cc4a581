package store

import (
	"path/filepath"
	"testing"
	"time"
)

// TestQueueDeliveriesFindsWebhooks: an event queues a delivery to every
// webhook that wants it however the webhook came to be in the database:
// none at first, one inserted after events found none, one brought back by
// a restore after events found none.
func TestQueueDeliveriesFindsWebhooks(t *testing.T) {
	t.Parallel()
	for name, newCopier := range copiers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			now := func() time.Time { return time.Unix(1_900_000_000, 0) }
			db := openTest(t, filepath.Join(t.TempDir(), "hooks.db"), now)
			var loc, key int64
			write := func(db *DB, fn func(tx *Tx) error) {
				t.Helper()
				if err := db.Write(t.Context(), fn); err != nil {
					t.Fatal(err)
				}
			}
			write(db, func(tx *Tx) (err error) {
				if loc, err = tx.InsertLocation("Hooks", "providerB"); err != nil {
					return err
				}
				key, err = tx.InsertAPIKey(HashSecret("vendor-key"), []int64{loc})
				return err
			})
			n := 0
			queue := func(db *DB) int64 {
				t.Helper()
				n++
				var queued int64
				write(db, func(tx *Tx) error {
					seq, err := tx.InsertEvent(Event{EventID: "evt_" + string(rune('a'+n)), Type: "bill.closed",
						LocationID: &loc, DataJSON: "{}"})
					if err != nil {
						return err
					}
					queued, err = tx.QueueDeliveries(seq, "bill.closed", loc)
					return err
				})
				return queued
			}
			if got := queue(db); got != 0 {
				t.Fatalf("no webhook: %d deliveries queued", got)
			}
			c := newCopier()
			if err := c.copy(db); err != nil { // a copy without webhooks
				t.Fatal(err)
			}
			write(db, func(tx *Tx) error {
				return tx.InsertWebhook(Webhook{WebhookID: "wh_1", KeyID: key, URL: "https://example.com/hook",
					EventsJSON: `["*"]`, SecretSealed: []byte("sealed")})
			})
			if got := queue(db); got != 1 {
				t.Fatalf("after a webhook was added: %d deliveries queued, want 1", got)
			}
			withHook := newCopier()
			if err := withHook.copy(db); err != nil {
				t.Fatal(err)
			}
			if err := c.restore(db, nil); err != nil {
				t.Fatal(err)
			}
			if got := queue(db); got != 0 {
				t.Fatalf("after restoring a copy without webhooks: %d deliveries queued", got)
			}
			if err := withHook.restore(db, nil); err != nil {
				t.Fatal(err)
			}
			if got := queue(db); got != 1 {
				t.Fatalf("after restoring a copy with a webhook: %d deliveries queued, want 1", got)
			}
			// A database whose events found no webhook, then restored
			// from a copy that has one.
			other := openTest(t, filepath.Join(t.TempDir(), "other.db"), now)
			if got := queue(other); got != 0 {
				t.Fatalf("another database: %d deliveries queued", got)
			}
			if err := withHook.restore(other, nil); err != nil {
				t.Fatal(err)
			}
			if got := queue(other); got != 1 {
				t.Fatalf("another database, after restoring a copy with a webhook: %d deliveries queued, want 1", got)
			}
		})
	}
}
