package outbound

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/hospo-dev/hospo-go/refserver/internal/wake"
)

// Queue is one kind of delivery as a Dispatcher sees it. The database is
// the queue, so deliveries in flight survive a restart: each waits with
// the time its next try is due on the virtual clock.
type Queue interface {
	// Due lists up to limit deliveries whose next try is due, the
	// longest-waiting first, and the time the earliest waiting delivery is
	// due (the zero time when none waits).
	Due(ctx context.Context, limit int) (ids []string, next time.Time, err error)
	// Claim starts a try at delivery id and returns it, or nil when there
	// is nothing to try any more (the delivery was settled, rescheduled or
	// removed since Due listed it).
	Claim(ctx context.Context, id string) (Attempt, error)
}

// Attempt is one claimed try at a delivery.
type Attempt interface {
	// Try is this try's number, counting from 1.
	Try() int
	// Call makes the try: one call out with no retries of its own, so the
	// count of tries is exact.
	Call(ctx context.Context) error
	// Record stores the outcome of the try and schedules the next one, if
	// any, in one transaction. It returns the exact time the next try is
	// due (the zero time when none is): the queue may keep whole seconds
	// only, and sub-second backoffs stay exact in this process.
	Record(ctx context.Context, o Outcome) (retryAt time.Time, err error)
}

// DispatcherConfig configures a Dispatcher.
type DispatcherConfig struct {
	// Name starts the dispatcher's log lines.
	Name string
	// Queue holds the deliveries.
	Queue Queue
	// Policy paces the tries of one delivery.
	Policy Policy
	// Now is the virtual clock.
	Now func() time.Time
	// Logger receives the dispatcher's diagnostics.
	Logger *slog.Logger
	// PollInterval is the longest the dispatcher sleeps between looks at
	// the queue. It bounds how late a retry is picked up after a restart
	// or a jump of the virtual clock.
	PollInterval time.Duration
	// Concurrency bounds the tries in flight, so one slow receiver cannot
	// hold up every other for long.
	Concurrency int
	// Batch is how many due deliveries one look at the queue lists.
	Batch int
	// Meter, when set, counts the tries by outcome (MetricDeliveries).
	Meter metric.Meter
}

// MetricDeliveries counts the tries of outbound deliveries by
// refserver.outbound.dispatcher (the dispatcher's Name) and
// refserver.outbound.outcome: "delivered", "retrying" (a temporary failure,
// tried again later) or "failed" (given up).
const MetricDeliveries = "refserver.outbound.deliveries"

// Dispatcher calls out for the deliveries of one Queue: it tries each due
// delivery, retries temporary failures with backoff on the virtual clock
// and has every try recorded. It polls the queue and is woken at once when
// a delivery becomes due, so a new one does not wait for the poll.
type Dispatcher struct {
	cfg        DispatcherConfig
	wake       wake.Signal
	deliveries metric.Int64Counter // nil without DispatcherConfig.Meter
}

// NewDispatcher returns a Dispatcher; Run starts it.
func NewDispatcher(cfg DispatcherConfig) *Dispatcher {
	d := &Dispatcher{cfg: cfg, wake: wake.NewSignal()}
	if cfg.Meter != nil {
		// An instrument the SDK refuses comes back usable as a no-op, with
		// the error reported to OpenTelemetry's handler.
		d.deliveries, _ = cfg.Meter.Int64Counter(MetricDeliveries,
			metric.WithUnit("{try}"),
			metric.WithDescription("Tries of outbound deliveries by outcome."))
	}
	return d
}

// Wake tells the dispatcher that a delivery became due. It never blocks:
// one pending wake is as good as many.
func (d *Dispatcher) Wake() { d.wake.Wake() }

// tried is what a finished try tells the dispatcher's loop.
type tried struct {
	id string
	// notBefore is the exact time of the next try after a temporary
	// failure (the zero time otherwise).
	notBefore time.Time
}

// Run delivers until ctx ends, then waits for the tries in flight. A try
// cut short by ctx is not counted, and its delivery stays due for the
// next start: receivers must de-duplicate.
func (d *Dispatcher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	inFlight := map[string]bool{}
	notBefore := map[string]time.Time{}
	// Buffered for every try in flight, so a try never blocks on it, not
	// even after the loop has stopped.
	done := make(chan tried, d.cfg.Concurrency)

	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case res := <-done:
			delete(inFlight, res.id)
			if res.notBefore.IsZero() {
				delete(notBefore, res.id)
			} else {
				notBefore[res.id] = res.notBefore
			}
		case <-timer.C:
		}
		// Since Go 1.23 Reset discards a value the timer may already hold.
		timer.Reset(d.startDue(ctx, &wg, inFlight, notBefore, done))
	}
}

// startDue starts a try for each due delivery that is not in flight and
// whose in-process backoff has passed, and returns how long to sleep
// before looking again.
func (d *Dispatcher) startDue(ctx context.Context, wg *sync.WaitGroup, inFlight map[string]bool, notBefore map[string]time.Time, done chan<- tried) time.Duration {
	due, next, err := d.cfg.Queue.Due(ctx, d.cfg.Batch)
	if err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Error(d.cfg.Name+": reading due deliveries", "err", err)
		}
		return d.cfg.PollInterval
	}
	now := d.cfg.Now()
	wait := d.cfg.PollInterval
	if !next.IsZero() {
		if w := next.Sub(now); w > 0 {
			wait = min(wait, w)
		}
	}
	for _, id := range due {
		if inFlight[id] {
			continue
		}
		// The queue keeps whole seconds: a delivery it lists as due may
		// still be short of its exact time by less than a second. Further
		// off, the queue was rescheduled since (a redelivery made it due
		// now), and the old time no longer holds.
		if nb, ok := notBefore[id]; ok && now.Before(nb) && nb.Sub(now) < time.Second {
			wait = min(wait, nb.Sub(now))
			continue
		}
		if len(inFlight) >= d.cfg.Concurrency {
			break
		}
		inFlight[id] = true
		delete(notBefore, id)
		wg.Go(func() { done <- tried{id: id, notBefore: d.try(ctx, id)} })
	}
	return wait
}

// try makes one try at a delivery and has its outcome recorded. It
// returns the exact time of the next try, if one is scheduled.
func (d *Dispatcher) try(ctx context.Context, id string) time.Time {
	a, err := d.cfg.Queue.Claim(ctx, id)
	if err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Error(d.cfg.Name+": starting a try", "id", id, "err", err)
		}
		return time.Time{}
	}
	if a == nil {
		return time.Time{}
	}
	callErr := a.Call(ctx)
	if ctx.Err() != nil {
		// Shutting down: the receiver is not to blame.
		return time.Time{}
	}
	o := d.cfg.Policy.Judge(a.Try(), callErr)
	at, err := a.Record(ctx, o)
	if err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Error(d.cfg.Name+": recording a try", "id", id, "err", err)
		}
		return time.Time{}
	}
	if d.deliveries != nil {
		outcome := "delivered"
		switch {
		case o.Err != nil && o.RetryIn > 0:
			outcome = "retrying"
		case o.Err != nil:
			outcome = "failed"
		}
		d.deliveries.Add(ctx, 1, metric.WithAttributes(
			attribute.String("refserver.outbound.dispatcher", d.cfg.Name),
			attribute.String("refserver.outbound.outcome", outcome)))
	}
	return at
}
