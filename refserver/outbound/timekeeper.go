package outbound

import (
	"context"
	"log/slog"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/internal/wake"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// The timekeeper does the event work that the passing of virtual time
// drives, rather than a request (contract.md section 8): a location whose
// POS has sent no heartbeat for 6 minutes goes offline (location.offline).
// Events older than their retention go with the server's retention sweep
// (store.Retentions).
//
// It sleeps until the next location is due to go offline (at most
// timekeeperMaxSleep); moving the virtual clock wakes it (Wake), so that a
// jump past a deadline is noticed at once. A location that comes online
// meanwhile is due 6 minutes later, after the longest sleep, so it needs no
// wake of its own.
const (
	timekeeperMaxSleep = time.Minute
	// offlineBatch bounds the locations one transaction puts offline, so
	// that it does not hold the writer for long; a full batch is followed
	// by another at once.
	offlineBatch = 100
)

// TimekeeperConfig is what the timekeeper needs.
type TimekeeperConfig struct {
	DB *store.DB
	// Now is the virtual clock.
	Now    func() time.Time
	Logger *slog.Logger
}

// Timekeeper puts stale locations offline.
type Timekeeper struct {
	cfg  TimekeeperConfig
	wake wake.Signal
}

// NewTimekeeper returns a Timekeeper; Run starts it.
func NewTimekeeper(cfg TimekeeperConfig) *Timekeeper {
	return &Timekeeper{cfg: cfg, wake: wake.NewSignal()}
}

// Wake tells the timekeeper that the virtual clock moved. It never blocks.
func (k *Timekeeper) Wake() { k.wake.Wake() }

// Run keeps time until ctx ends.
func (k *Timekeeper) Run(ctx context.Context) { wake.Loop(ctx, k.wake, k.markOffline) }

// markOffline puts the stale locations offline and returns how long to
// sleep until the next one is due.
func (k *Timekeeper) markOffline(ctx context.Context) time.Duration {
	for {
		var (
			next time.Time
			ok   bool
		)
		err := k.cfg.DB.Read(ctx, func(tx *store.Tx) error {
			var err error
			next, ok, err = rules.NextOffline(tx)
			return err
		})
		if err != nil {
			if ctx.Err() == nil {
				k.cfg.Logger.Error("timekeeper: reading heartbeats", "err", err)
			}
			return timekeeperMaxSleep
		}
		if !ok {
			return timekeeperMaxSleep
		}
		if wait := next.Sub(k.cfg.Now()); wait > 0 {
			return min(wait, timekeeperMaxSleep)
		}
		var n int
		err = k.cfg.DB.Write(ctx, func(tx *store.Tx) error {
			var err error
			n, err = rules.MarkStaleOffline(tx, offlineBatch)
			return err
		})
		if err != nil {
			if ctx.Err() == nil {
				k.cfg.Logger.Error("timekeeper: marking locations offline", "err", err)
			}
			return timekeeperMaxSleep
		}
		if n == 0 {
			// Due by the read but not by the write's look: a heartbeat
			// came in between. Look again shortly rather than spin.
			return time.Second
		}
	}
}
