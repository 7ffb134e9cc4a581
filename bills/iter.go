package bills

import (
	"cmp"
	"context"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// All yields every bill of a location closed with lastUpdated in [from, to],
// fetched with the given scopes, for ranges of any length. opts apply to
// every request of the iteration, lists and fetches alike.
//
// It lists the range in consecutive windows of at most MaxRange (ListClosed
// once per window, oldest window first) and fetches each listed bill once
// with Get, up to the Service's concurrency (WithConcurrency, default
// DefaultConcurrency) at a time.
//
// Order: bills are yielded by the lastUpdated of their list entry, then by
// bill id (byte-wise), whatever order the fetches finish in. A bill is
// fetched and yielded at most once, even if it shows up in two windows (the
// windows do not overlap, and ids already seen are skipped, so a bill that is
// re-closed while the export runs is not repeated).
//
// Errors end the iteration: the first error (a failed list or fetch, or
// ctx's error once ctx is done) is yielded as (nil, err) and nothing follows
// it. Breaking out of the loop, or cancelling ctx, stops the outstanding
// requests; All returns only after every goroutine it started has exited.
//
//	for b, err := range svc.All(ctx, locationID, from, to, []bills.Scope{bills.ScopeItems}) {
//		if err != nil {
//			return err
//		}
//		// use b
//	}
func (s *Service) All(ctx context.Context, locationID int64, from, to time.Time, scopes []Scope, opts ...client.Option) iter.Seq2[*Bill, error] {
	scopes = NormalizeScopes(scopes)
	return func(yield func(*Bill, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		// Cancel first so that every request in flight returns at once,
		// then wait: nothing started here outlives the iteration.
		defer wg.Wait()
		defer cancel()

		// futures carries one result slot per bill, in yield order. Its
		// capacity bounds how far fetching runs ahead of a slow consumer;
		// sem bounds the requests in flight.
		futures := make(chan chan result, s.concurrency)
		sem := make(chan struct{}, s.concurrency)
		complete := false // written before close(futures), read after it
		wg.Go(func() {
			defer close(futures)
			complete = s.produce(ctx, locationID, from, to, scopes, opts, futures, sem, &wg)
		})

		for f := range futures {
			// A cancelled ctx wins over results that are already in: the
			// caller asked to stop, so nothing more is yielded but the error.
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			var r result
			select {
			case r = <-f:
			case <-ctx.Done():
				yield(nil, ctx.Err())
				return
			}
			if r.err != nil {
				// A fetch aborted because ctx ended reports ctx's error, not
				// the transport's wrapping of it.
				if ctx.Err() != nil {
					r.err = ctx.Err()
				}
				yield(nil, r.err)
				return
			}
			if !yield(r.bill, nil) {
				return
			}
		}
		// The producer stops early only when ctx ends; say so rather than
		// ending as if the range were exhausted.
		if !complete {
			yield(nil, cmp.Or(ctx.Err(), context.Canceled))
		}
	}
}

// result is the outcome of one list or fetch.
type result struct {
	bill *Bill
	err  error
}

// produce lists the windows in order and starts one fetch per new bill id,
// handing the result slots to the consumer in yield order. It returns true
// when everything is queued, including a list error (queued as a failed
// result), and false when ctx ended first.
func (s *Service) produce(ctx context.Context, locationID int64, from, to time.Time, scopes []Scope, opts []client.Option,
	futures chan<- chan result, sem chan struct{}, wg *sync.WaitGroup) bool {
	// send queues a result slot; false when ctx ended first.
	send := func(f chan result) bool {
		select {
		case futures <- f:
			return true
		case <-ctx.Done():
			return false
		}
	}
	seen := make(map[string]struct{})
	for _, w := range windows(from, to) {
		list, err := s.ListClosed(ctx, locationID, w.from, w.to, opts...)
		if err != nil {
			f := make(chan result, 1)
			f <- result{err: err}
			return send(f)
		}
		slices.SortStableFunc(list, func(a, b Summary) int {
			return cmp.Or(a.LastUpdated.Compare(b.LastUpdated.Time), cmp.Compare(a.BillID, b.BillID))
		})
		for _, sum := range list {
			if _, dup := seen[sum.BillID]; dup {
				continue
			}
			seen[sum.BillID] = struct{}{}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return false
			}
			f := make(chan result, 1) // buffered: the fetch never waits for the consumer
			if !send(f) {
				<-sem
				return false
			}
			id := sum.BillID
			wg.Go(func() {
				defer func() { <-sem }()
				b, err := s.Get(ctx, id, scopes, opts...)
				f <- result{bill: b, err: err}
			})
		}
	}
	return true
}

// window is one inclusive [from, to] range of a ListClosed call.
type window struct{ from, to time.Time }

// windows splits [from, to] into consecutive windows of at most MaxRange.
// lastUpdated is a whole second, so each window starts one second after the
// previous one ends: a bill stamped on a boundary falls in exactly one
// window. A range with from at or after to is returned as one window, so
// that the service judges it (from after to is its 400003).
func windows(from, to time.Time) []window {
	from, to = ceilSecond(from), to.Truncate(time.Second)
	if !from.Before(to) {
		return []window{{from, to}}
	}
	var ws []window
	for start := from; ; {
		end := start.Add(MaxRange)
		if !end.Before(to) {
			return append(ws, window{start, to})
		}
		ws = append(ws, window{start, end})
		start = end.Add(time.Second) // still <= to, since end < to
	}
}
