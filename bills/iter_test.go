package bills_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
)

var day = 24 * time.Hour

// t0 is the start of every iterator test's range.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestAllOrderWindowsAndFetchOnce(t *testing.T) {
	t.Parallel()
	// Bills spread over 90 days, with ties in lastUpdated, bills on both
	// window boundaries and on the range's ends, given to the fake in a
	// shuffled order; fetches finish in random order.
	boundary1 := t0.Add(31 * day)             // last second of window 1
	boundary2 := t0.Add(31*day + time.Second) // first second of window 2
	times := []time.Time{
		t0, t0.Add(time.Hour), t0.Add(time.Hour), boundary1, boundary2,
		t0.Add(45 * day), t0.Add(62*day + time.Second), t0.Add(62*day + 2*time.Second),
		t0.Add(80 * day), t0.Add(80 * day), t0.Add(90 * day),
	}
	data := summaries(times...)
	outside := summaries(t0.Add(-time.Second), t0.Add(90*day+time.Second))
	outside[0].BillID, outside[1].BillID = "before", "after"
	all := append(slices.Clone(data), outside...)
	rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })

	f := &fakeServer{t: t, bills: all, hold: func(req *http.Request, _ string) {
		select { // random completion order
		case <-time.After(time.Duration(rand.IntN(3)) * time.Millisecond):
		case <-req.Context().Done():
		}
	}}
	svc := f.service(bills.WithConcurrency(3))
	got, err := collect(svc.All(context.Background(), 7, t0, t0.Add(90*day), []bills.Scope{bills.ScopeItems}))
	if err != nil {
		t.Fatal(err)
	}

	want := slices.Clone(data)
	slices.SortFunc(want, func(a, b bills.Summary) int {
		if c := a.LastUpdated.Compare(b.LastUpdated.Time); c != 0 {
			return c
		}
		return stringsCompare(a.BillID, b.BillID)
	})
	var wantIDs []string
	for _, s := range want {
		wantIDs = append(wantIDs, s.BillID)
	}
	if d := cmp.Diff(wantIDs, got); d != "" {
		t.Errorf("yield order (-want +got):\n%s", d)
	}
	for id, n := range f.fetches() {
		if n != 1 {
			t.Errorf("bill %s fetched %d times", id, n)
		}
	}
	if len(f.lists) != 3 {
		t.Errorf("%d list calls, want 3 windows", len(f.lists))
	}
	if f.maxInFlight > 3 {
		t.Errorf("%d fetches in flight, want at most 3", f.maxInFlight)
	}
}

func stringsCompare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestAllDeduplicatesAcrossWindows(t *testing.T) {
	t.Parallel()
	// A bill re-closed during an export shows up in two windows (the fake
	// lists "moved" in both); it is fetched and yielded once.
	data := summaries(t0.Add(day), t0.Add(40*day))
	moved := data[0]
	moved.LastUpdated = client.BillTime{Time: t0.Add(50 * day)}
	f := &fakeServer{t: t, bills: append(data, moved)}
	got, err := collect(f.service().All(context.Background(), 7, t0, t0.Add(60*day), nil))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"b0", "b1"}, got); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	if n := f.fetches()["b0"]; n != 1 {
		t.Errorf("b0 fetched %d times", n)
	}
}

func TestAllEmptyRange(t *testing.T) {
	t.Parallel()
	f := &fakeServer{t: t}
	got, err := collect(f.service().All(context.Background(), 7, t0, t0.Add(100*day), nil))
	if err != nil || len(got) != 0 {
		t.Fatalf("All = %v, %v; want nothing", got, err)
	}
	if len(f.lists) != 4 {
		t.Errorf("%d list calls for 100 days, want 4", len(f.lists))
	}
}

func TestAllConcurrencyBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 5} {
		times := make([]time.Time, 40)
		for i := range times {
			times[i] = t0.Add(time.Duration(i) * time.Minute)
		}
		f := &fakeServer{t: t, bills: summaries(times...), hold: func(req *http.Request, _ string) {
			select {
			case <-time.After(time.Millisecond):
			case <-req.Context().Done():
			}
		}}
		got, err := collect(f.service(bills.WithConcurrency(n)).All(context.Background(), 7, t0, t0.Add(day), nil))
		if err != nil || len(got) != 40 {
			t.Fatalf("concurrency %d: %d bills, %v", n, len(got), err)
		}
		if f.maxInFlight > n {
			t.Errorf("concurrency %d: %d fetches in flight", n, f.maxInFlight)
		}
	}
}

func TestAllErrorPropagation(t *testing.T) {
	t.Parallel()
	data := summaries(t0.Add(time.Hour), t0.Add(2*time.Hour), t0.Add(40*day))
	t.Run("fetch error ends the iteration after the bills before it", func(t *testing.T) {
		t.Parallel()
		f := &fakeServer{t: t, bills: data, failGet: map[string]client.Code{"b1": client.CodeInternal}}
		got, err := collect(f.service().All(context.Background(), 7, t0, t0.Add(60*day), nil))
		if !errors.Is(err, client.ErrInternal) {
			t.Fatalf("err = %v, want 500001", err)
		}
		if d := cmp.Diff([]string{"b0"}, got); d != "" {
			t.Errorf("ids before the error (-want +got):\n%s", d)
		}
	})
	t.Run("list error of a later window comes after the earlier window's bills", func(t *testing.T) {
		t.Parallel()
		second := client.FormatQueryTime(t0.Add(31*day + time.Second))
		f := &fakeServer{t: t, bills: data, failList: map[string]client.Code{second: client.CodeForbidden}}
		got, err := collect(f.service().All(context.Background(), 7, t0, t0.Add(60*day), nil))
		if !errors.Is(err, client.ErrForbidden) {
			t.Fatalf("err = %v, want 403001", err)
		}
		if d := cmp.Diff([]string{"b0", "b1"}, got); d != "" {
			t.Errorf("ids before the error (-want +got):\n%s", d)
		}
	})
	t.Run("nothing is yielded after the error", func(t *testing.T) {
		t.Parallel()
		f := &fakeServer{t: t, bills: data, failGet: map[string]client.Code{"b0": client.CodeNotFound}}
		n := 0
		for _, err := range f.service().All(context.Background(), 7, t0, t0.Add(60*day), nil) {
			n++
			if err == nil {
				t.Error("a bill was yielded")
			}
		}
		if n != 1 {
			t.Errorf("%d yields, want exactly the error", n)
		}
	})
}

// The leak tests are not parallel: they compare the process's goroutine
// count with a baseline taken before the iteration.

func TestAllEarlyBreak(t *testing.T) {
	times := make([]time.Time, 200)
	for i := range times {
		times[i] = t0.Add(time.Duration(i) * 10 * time.Hour) // spread over ~83 days
	}
	f := &fakeServer{t: t, bills: summaries(times...), hold: func(req *http.Request, _ string) {
		select {
		case <-time.After(time.Millisecond):
		case <-req.Context().Done():
		}
	}}
	svc := f.service(bills.WithConcurrency(4))
	runtime.GC()
	baseline := runtime.NumGoroutine()
	var got []string
	for b, err := range svc.All(context.Background(), 7, t0, t0.Add(90*day), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b.BillID)
		if len(got) == 5 {
			break
		}
	}
	if d := cmp.Diff([]string{"b0", "b1", "b2", "b3", "b4"}, got); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	waitNoIteratorGoroutines(t, baseline)
	// Stopping is prompt: only the look-ahead (a few slots) was fetched,
	// and only the first window was listed.
	fetched := 0
	for _, n := range f.fetches() {
		fetched += n
	}
	if fetched > 5+2*4+1 {
		t.Errorf("%d bills fetched after a break at 5", fetched)
	}
	if len(f.lists) != 1 {
		t.Errorf("%d windows listed, want 1", len(f.lists))
	}
}

func TestAllContextCancel(t *testing.T) {
	times := make([]time.Time, 50)
	for i := range times {
		times[i] = t0.Add(time.Duration(i) * time.Hour)
	}
	// After the first bill every fetch blocks until its request is
	// cancelled, so only cancellation can end the iteration.
	first := make(chan struct{}, 1)
	f := &fakeServer{t: t, bills: summaries(times...), hold: func(req *http.Request, id string) {
		if id == "b0" {
			return
		}
		<-req.Context().Done()
	}}
	svc := f.service()
	runtime.GC()
	baseline := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ids []string
	var errs []error
	for b, err := range svc.All(ctx, 7, t0, t0.Add(10*day), nil) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, b.BillID)
		first <- struct{}{}
		cancel()
	}
	if d := cmp.Diff([]string{"b0"}, ids); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Errorf("errors = %v, want exactly context.Canceled", errs)
	}
	waitNoIteratorGoroutines(t, baseline)
}

func TestAllContextCancelledBeforeStart(t *testing.T) {
	f := &fakeServer{t: t, bills: summaries(t0)}
	runtime.GC()
	baseline := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := collect(f.service().All(ctx, 7, t0, t0.Add(day), nil))
	if len(got) != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("All = %v, %v; want context.Canceled and nothing", got, err)
	}
	waitNoIteratorGoroutines(t, baseline)
}

func TestAllContextCancelWithResultsReady(t *testing.T) {
	// Every fetch answers at once, so results are waiting when the caller
	// cancels: none of them may be yielded after the cancel.
	times := make([]time.Time, 30)
	for i := range times {
		times[i] = t0.Add(time.Duration(i) * time.Minute)
	}
	f := &fakeServer{t: t, bills: summaries(times...)}
	svc := f.service(bills.WithConcurrency(8))
	runtime.GC()
	baseline := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var errs []error
	for _, err := range svc.All(ctx, 7, t0, t0.Add(day), nil) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
		if n == 1 {
			time.Sleep(5 * time.Millisecond) // lets the look-ahead fill; no timing is asserted
			cancel()
		}
	}
	if n != 1 || len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Errorf("%d bills and errors %v after cancelling at the first; want 1 and context.Canceled", n, errs)
	}
	waitNoIteratorGoroutines(t, baseline)
}
