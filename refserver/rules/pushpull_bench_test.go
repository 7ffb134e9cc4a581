package rules

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/internal/checkfixture"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/internal/storetest"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// BenchmarkPushCheck stores pushes of new checks through PushCheck on a
// database file, from many goroutines at once so that the writer shares
// transactions among them as it does under load. Every push of "closed"
// records bill.closed; "open" records nothing, so the difference is the
// cost of an event in the push.
//
//	go test -run '^$' -bench PushCheck -benchtime 20000x ./refserver/rules/
func BenchmarkPushCheck(b *testing.B) {
	for _, status := range []possync.CheckStatus{possync.CheckOpen, possync.CheckClosed} {
		b.Run(string(status), func(b *testing.B) { benchPushCheck(b, status) })
	}
}

func benchPushCheck(b *testing.B, status possync.CheckStatus) {
	db := storetest.Open(b, filepath.Join(b.TempDir(), "bench.db"), func() time.Time { return testNow })
	var loc int64
	write(b, db, func(tx *store.Tx) (err error) {
		loc, err = tx.InsertLocation("Bench", "providerB")
		return err
	})
	raw := checkfixture.JSON()
	var number atomic.Int64
	b.SetParallelism(16)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var c possync.Check
		if err := json.Unmarshal(raw, &c); err != nil {
			b.Error(err)
			return
		}
		c.LocationID, c.Status = loc, status
		for pb.Next() {
			c.CheckNumber = number.Add(1)
			row, err := store.NewCheckRow(&c)
			if err != nil {
				b.Error(err)
				return
			}
			err = db.Write(context.Background(), func(tx *store.Tx) error {
				_, err := PushCheck(tx, row)
				return err
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkPushCheckBatches is BenchmarkPushCheck made repeatable enough
// for instruction counts (callgrind): one goroutine, 16 pushes per
// transaction, check numbers from a fixed sequence in 1..200000 as
// check-push.sh draws them. Besides open and closed checks it pushes
// closed ones with a webhook subscribed to every event (each bill.closed
// queues a delivery) and with one subscribed to order events only (no
// delivery). wchar/op is what the process wrote per push (Linux: the WAL
// and the checkpoints' copies), a measure of the pages each push dirties.
//
//	go test -run '^$' -bench PushCheckBatches -benchtime 3008x ./refserver/rules/
func BenchmarkPushCheckBatches(b *testing.B) {
	for _, v := range []struct {
		name   string
		status possync.CheckStatus
		events string // the webhook's events_json; "": no webhook
	}{
		{"open", possync.CheckOpen, ""},
		{"closed", possync.CheckClosed, ""},
		{"closed-webhook-all", possync.CheckClosed, `["*"]`},
		{"closed-webhook-orders", possync.CheckClosed, `["order.status_changed"]`},
	} {
		b.Run(v.name, func(b *testing.B) { benchPushCheckBatches(b, v.status, v.events) })
	}
}

func benchPushCheckBatches(b *testing.B, status possync.CheckStatus, events string) {
	db := storetest.Open(b, filepath.Join(b.TempDir(), "bench.db"), func() time.Time { return testNow })
	var loc int64
	write(b, db, func(tx *store.Tx) (err error) {
		if loc, err = tx.InsertLocation("Bench", "providerB"); err != nil || events == "" {
			return err
		}
		key, err := tx.InsertAPIKey("bench", []int64{loc})
		if err != nil {
			return err
		}
		return tx.InsertWebhook(store.Webhook{WebhookID: "wh_bench", KeyID: key, URL: "http://127.0.0.1:9/",
			EventsJSON: events, SecretSealed: []byte("x")})
	})
	var c possync.Check
	if err := json.Unmarshal(checkfixture.JSON(), &c); err != nil {
		b.Fatal(err)
	}
	c.LocationID, c.Status = loc, status
	x := uint64(12345)
	rows := make([]store.CheckRow, 0, 16)
	written := processWritten()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 16 {
		rows = rows[:0]
		for k := 0; k < 16 && i+k < b.N; k++ {
			x = x*6364136223846793005 + 1442695040888963407 // Knuth's MMIX generator
			c.CheckNumber = int64(x>>33)%200000 + 1
			row, err := store.NewCheckRow(&c)
			if err != nil {
				b.Fatal(err)
			}
			rows = append(rows, row)
		}
		err := db.Write(context.Background(), func(tx *store.Tx) error {
			for _, row := range rows {
				if _, err := PushCheck(tx, row); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if written >= 0 {
		b.ReportMetric(float64(processWritten()-written)/float64(b.N), "wchar/op")
	}
}

// processWritten returns the bytes the process has written (wchar of
// /proc/self/io), or -1 where there is no such file.
func processWritten() int64 {
	io, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(io)) {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return -1
			}
			return n
		}
	}
	return -1
}
