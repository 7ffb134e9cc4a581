package store

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// Delivery ids start with the time they were made at, so that the primary
// key index of webhook_deliveries grows at its end: "dlv_", the time in
// milliseconds as 12 hex digits, then 12 random ones. The ids of one
// event's deliveries (one statement) differ, and so do a ping's.
func TestDeliveryIDsStartWithTheTime(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "ids.db"), nil)
	before := time.Now().UnixMilli()
	err := db.Write(t.Context(), func(tx *Tx) error {
		loc, err := tx.InsertLocation("Ids", "providerB")
		if err != nil {
			return err
		}
		key, err := tx.InsertAPIKey("ids", []int64{loc})
		if err != nil {
			return err
		}
		for _, id := range []string{"wh_1", "wh_2", "wh_3"} {
			if err := insertTestWebhook(tx, id, key, `["*"]`); err != nil {
				return err
			}
		}
		seq, err := tx.InsertEvent(Event{EventID: "evt_1", Type: "bill.closed", LocationID: &loc, DataJSON: "{}"})
		if err != nil {
			return err
		}
		if n, err := tx.QueueDeliveries(seq, "bill.closed", loc); err != nil || n != 3 {
			t.Errorf("QueueDeliveries = %d, %v; want 3 deliveries", n, err)
		}
		return tx.QueueDelivery(seq, "wh_1")
	})
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now().UnixMilli()
	var ids []string
	mustRead(t, db, func(tx *Tx) error {
		rows, err := tx.query(`SELECT delivery_id FROM webhook_deliveries`)
		if err != nil {
			return err
		}
		ids, err = collect(rows, scanString)
		return err
	})
	format := regexp.MustCompile(`^dlv_[0-9a-f]{24}$`)
	seen := map[string]bool{}
	for _, id := range ids {
		if !format.MatchString(id) || seen[id] {
			t.Fatalf("delivery id %q: not a fresh dlv_ and 24 hex digits", id)
		}
		seen[id] = true
		ms, _ := strconv.ParseInt(id[4:16], 16, 64)
		if ms < before || ms > after {
			t.Errorf("delivery id %q starts with %d, not a time in [%d, %d]", id, ms, before, after)
		}
	}
	if len(ids) != 4 {
		t.Errorf("%d deliveries, want 4", len(ids))
	}
}

func TestDeliveryIDPrefix(t *testing.T) {
	t.Parallel()
	if got := deliveryIDPrefix(time.UnixMilli(0x0123456789ab)); got != "dlv_0123456789ab" {
		t.Errorf("deliveryIDPrefix = %q, want dlv_0123456789ab", got)
	}
}
