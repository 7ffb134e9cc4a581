package main

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
)

// billsReader is a reporting vendor: with its API key it lists the closed
// bills of one location over the longest window the service allows (31
// days) ending at the server's now, and fetches a few of the listed bills
// with every scope, as an export would. Its requests go through the meter,
// so the list and the bill fetch get their own lines in the report.
type billsReader struct {
	svc        *bills.Service
	locationID int64
	gets       int           // bills fetched after each list
	interval   time.Duration // between lists
	rng        *rand.Rand

	// The server's virtual clock at a local instant: the window ends at
	// the server's now, which the sandbox clock may have moved.
	serverAt, localAt time.Time

	lists, listed, fetched, failed atomic.Int64
}

// run lists and fetches until ctx ends.
func (b *billsReader) run(ctx context.Context) {
	for ctx.Err() == nil {
		next := time.Now().Add(b.interval)
		b.once(ctx)
		sleep(ctx, time.Until(next))
	}
}

// once lists the window once and fetches up to b.gets of its bills.
func (b *billsReader) once(ctx context.Context) {
	to := b.serverAt.Add(time.Since(b.localAt))
	list, err := b.svc.ListClosed(ctx, b.locationID, to.Add(-bills.MaxRange), to)
	if err != nil {
		if ctx.Err() == nil {
			b.failed.Add(1)
		}
		return
	}
	b.lists.Add(1)
	b.listed.Add(int64(len(list)))
	for range min(b.gets, len(list)) {
		id := list[b.rng.IntN(len(list))].BillID
		if _, err := b.svc.Get(ctx, id, bills.AllScopes()); err != nil {
			if ctx.Err() == nil {
				b.failed.Add(1)
			}
			continue
		}
		b.fetched.Add(1)
	}
}
