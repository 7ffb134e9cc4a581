package rules

import (
	"context"
	"encoding/json"
	"path/filepath"
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
