package bills_test

import (
	"cmp"
	"context"
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// seedNinetyDays closes n bills at v spread over about 90 days of the
// virtual clock (pairs of bills share a second, to exercise the bill id
// tie-break) and returns the summaries in the order All must yield them,
// with the range that holds them.
func seedNinetyDays(t testing.TB, env *refservertest.Env, v *venue, n int) (want []bills.Summary, from, to time.Time) {
	t.Helper()
	start := serverNow(t, v)
	step := 90 * 24 * time.Hour / time.Duration(n)
	for i := range n {
		v.PushCheck(t, v.check(int64(1000+i), possync.CheckClosed, "12.00", "0", "0"))
		if i%2 == 1 {
			env.AdvanceClock(t, step*2)
		}
	}
	end := serverNow(t, v)
	// Read what was stored, window by window, as the reference order.
	for w := start.Add(-time.Second); w.Before(end.Add(time.Second)); w = w.Add(bills.MaxRange + time.Second) {
		list, err := v.bills.ListClosed(context.Background(), v.ID, w, minTime(w.Add(bills.MaxRange), end.Add(time.Second)))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, list...)
	}
	slices.SortFunc(want, func(a, b bills.Summary) int {
		return cmp.Or(a.LastUpdated.Compare(b.LastUpdated.Time), cmp.Compare(a.BillID, b.BillID))
	})
	if len(want) != n {
		t.Fatalf("seeded %d bills, listed %d", n, len(want))
	}
	if span := want[n-1].LastUpdated.Sub(want[0].LastUpdated.Time); span < 80*24*time.Hour {
		t.Fatalf("bills span only %v", span)
	}
	return want, start.Add(-time.Second), end.Add(time.Second)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func ids(s []bills.Summary) []string {
	out := make([]string, len(s))
	for i, b := range s {
		out[i] = b.BillID
	}
	return out
}

// TestE2EAllNinetyDays exports a 90-day range with every scope: every bill
// once, in lastUpdated-then-id order, in any time zone of the range.
func TestE2EAllNinetyDays(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	v := newVenue(t, env, "Marina", wallet.ProviderB, bills.WithConcurrency(4))
	want, from, to := seedNinetyDays(t, env, v, 24)

	plus9 := time.FixedZone("+09:00", 9*3600)
	for _, tz := range []*time.Location{time.UTC, plus9} {
		var got []string
		for b, err := range v.bills.All(context.Background(), v.ID, from.In(tz), to.In(tz), bills.AllScopes()) {
			if err != nil {
				t.Fatal(err)
			}
			if b.Table == nil || b.Table.Location == nil || b.Staff == nil || b.Items == nil || b.Payments == nil || b.Users == nil {
				t.Fatalf("bill %s lacks a scoped member: %+v", b.BillID, b)
			}
			got = append(got, b.BillID)
		}
		if d := gocmp.Diff(ids(want), got); d != "" {
			t.Errorf("%v: yielded (-want +got):\n%s", tz, d)
		}
	}
}

// The two tests below are not parallel: they compare the process's
// goroutine count with a baseline.

func TestE2EAllEarlyBreak(t *testing.T) {
	env := refservertest.Start(t, quietWorkers)
	v := newVenue(t, env, "Pier", wallet.ProviderB, bills.WithConcurrency(4))
	want, from, to := seedNinetyDays(t, env, v, 20)

	baseline := quiescentGoroutines(v)
	var got []string
	for b, err := range v.bills.All(context.Background(), v.ID, from, to, []bills.Scope{bills.ScopeItems}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b.BillID)
		if len(got) == 3 {
			break
		}
	}
	if d := gocmp.Diff(ids(want[:3]), got); d != "" {
		t.Errorf("yielded (-want +got):\n%s", d)
	}
	v.client.CloseIdleConnections()
	waitNoIteratorGoroutines(t, baseline)
}

func TestE2EAllContextCancel(t *testing.T) {
	env := refservertest.Start(t, quietWorkers)
	v := newVenue(t, env, "Wharf", wallet.ProviderB, bills.WithConcurrency(4))
	_, from, to := seedNinetyDays(t, env, v, 20)

	baseline := quiescentGoroutines(v)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var last error
	for b, err := range v.bills.All(ctx, v.ID, from, to, bills.AllScopes()) {
		if err != nil {
			last = err
			continue
		}
		if b == nil {
			t.Fatal("nil bill without error")
		}
		n++
		if n == 2 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Errorf("iteration ended with %v, want context.Canceled", last)
	}
	if n != 2 {
		t.Errorf("%d bills yielded, want 2 (none after the cancel)", n)
	}
	v.client.CloseIdleConnections()
	waitNoIteratorGoroutines(t, baseline)
}

// quietWorkers pushes the server's periodic POS health checks and menu
// syncs beyond the test, so that their connections do not move the
// goroutine count.
func quietWorkers(c *refservertest.Options) {
	c.POSHealthInterval = time.Hour
	c.MenuSyncInterval = time.Hour
}

// quiescentGoroutines returns the goroutine count with the bills client's
// idle connections closed (their reader and writer goroutines gone), which
// is what the count returns to after an iteration once its connections are
// closed too.
func quiescentGoroutines(v *venue) int {
	v.client.CloseIdleConnections()
	time.Sleep(50 * time.Millisecond) // let closed connections' goroutines exit; only sharpens the baseline
	runtime.GC()
	return runtime.NumGoroutine()
}
