package outbound

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/hospo-dev/hospo-go/refserver/schedule"
)

// Queue is one kind of delivery as a Dispatcher sees it. The database is
// the queue, so deliveries in flight survive a restart: each waits with
// the time its next try is due on the virtual clock.
type Queue interface {
	// Due lists up to limit deliveries whose next try is due, in the order
	// to try them (the longest-waiting first, shared out between groups
	// when the queue has them), and the time the earliest waiting delivery
	// is due (the zero time when none waits).
	Due(ctx context.Context, limit int) (due []Due, next time.Time, err error)
	// Claim starts a try at delivery id and returns it, or nil when there
	// is nothing to try any more (the delivery was settled, rescheduled or
	// removed since Due listed it).
	Claim(ctx context.Context, id string) (Attempt, error)
}

// Due is a delivery whose next try is due.
type Due struct {
	ID string
	// Group is whose delivery it is (a webhook's API key), for
	// DispatcherConfig.PerGroup; "" for a queue without groups.
	Group string
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
	// Concurrency bounds the tries in flight, so one slow receiver cannot
	// hold up every other for long.
	Concurrency int
	// PerGroup, when above zero, bounds the tries in flight of one group
	// (Due.Group), so that one group's slow receivers hold at most that
	// many of the Concurrency places and the others always have some.
	PerGroup int
	// Batch is how many due deliveries one look at the queue lists.
	Batch int
	// Meter, when set, counts the tries by outcome (MetricDeliveries).
	Meter metric.Meter
	// Tracer, when set, traces each try as a root span named
	// "<Name> try", the parent of its transactions and its call out.
	Tracer trace.Tracer
}

// MetricDeliveries counts the tries of outbound deliveries by
// refserver.outbound.dispatcher (the dispatcher's Name) and
// refserver.outbound.outcome: "delivered", "retrying" (a temporary failure,
// tried again later) or "failed" (given up).
const MetricDeliveries = "refserver.outbound.deliveries"

// attrDeliveryID is the attribute of a try's span that names its delivery
// (an order id, a webhook delivery id).
const attrDeliveryID = attribute.Key("refserver.outbound.delivery_id")

// Dispatcher calls out for the deliveries of one Queue: it tries each due
// delivery, retries temporary failures with backoff on the virtual clock
// and has every try recorded. It is a job of the server's scheduler
// (schedule.Job): each run starts the tries that are due and says when
// the next delivery is; the scheduler wakes it at once when a delivery
// becomes due (Wake) or the clock moves.
type Dispatcher struct {
	cfg        DispatcherConfig
	handle     *schedule.Handle    // set by Schedule
	deliveries metric.Int64Counter // nil without DispatcherConfig.Meter

	// tries is the root context of the tries: they outlive the run that
	// started them, and end with the scheduler (Schedule's ctx).
	tries context.Context
	wg    sync.WaitGroup

	mu sync.Mutex
	// inFlight holds the tries under way, by delivery id, with their
	// group: from their start until their outcome is recorded.
	inFlight map[string]string
	// calling counts the tries that hold a place of Concurrency (from
	// their start until their call out ends), groups those per group.
	// Recording an outcome holds none: it waits for the writer, which
	// commits many at once, and a try waiting for it must not keep the
	// next call from starting.
	calling int
	groups  map[string]int
	// notBefore holds the exact times of the next tries after temporary
	// failures: the queue may keep whole seconds only.
	notBefore map[string]time.Time
	// ended counts the tries that ended since the last run.
	ended int
}

// NewDispatcher returns a Dispatcher; Schedule starts it.
func NewDispatcher(cfg DispatcherConfig) *Dispatcher {
	d := &Dispatcher{cfg: cfg, inFlight: map[string]string{}, groups: map[string]int{}, notBefore: map[string]time.Time{}}
	if cfg.Meter != nil {
		// An instrument the SDK refuses comes back usable as a no-op, with
		// the error reported to OpenTelemetry's handler.
		d.deliveries, _ = cfg.Meter.Int64Counter(MetricDeliveries,
			metric.WithUnit("{try}"),
			metric.WithDescription("Tries of outbound deliveries (orders to universal POSes, events to webhooks) by outcome."))
	}
	return d
}

// Schedule adds the dispatcher to s as a job. Its tries run under ctx
// (the scheduler's): when it ends, a try under way is cut short and not
// counted, and its delivery stays due for the next start (receivers must
// de-duplicate). Wait waits for them.
func (d *Dispatcher) Schedule(ctx context.Context, s *schedule.Scheduler) {
	d.tries = ctx
	d.handle = s.Add(schedule.Job{Name: d.cfg.Name, Run: d.run})
}

// Wake tells the dispatcher that a delivery became due. It never blocks:
// one pending wake is as good as many.
func (d *Dispatcher) Wake() { d.handle.Wake() }

// Wait waits for the tries under way to end, once the scheduler's context
// has ended.
func (d *Dispatcher) Wait() { d.wg.Wait() }

// run starts a try for each due delivery that is not in flight and whose
// exact backoff has passed, and says when to look again.
func (d *Dispatcher) run(ctx context.Context) schedule.Result {
	d.mu.Lock()
	worked := d.ended > 0
	d.ended = 0
	d.mu.Unlock()
	now := d.cfg.Now()
	res := schedule.Result{Worked: worked}
	due, next, err := d.cfg.Queue.Due(ctx, d.cfg.Batch)
	if err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Error(d.cfg.Name+": reading due deliveries", "err", err)
		}
		return res
	}
	if next.After(now) {
		res.Next = next
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, dd := range due {
		id := dd.ID
		if _, ok := d.inFlight[id]; ok {
			continue
		}
		// The queue keeps whole seconds: a delivery it lists as due may
		// still be short of its exact time by less than a second. Further
		// off, the queue was rescheduled since (a redelivery made it due
		// now), and the old time no longer holds.
		if nb, ok := d.notBefore[id]; ok && now.Before(nb) && nb.Sub(now) < time.Second {
			if res.Next.IsZero() || nb.Before(res.Next) {
				res.Next = nb
			}
			continue
		}
		if d.calling >= d.cfg.Concurrency || len(d.inFlight) >= maxRecordingFactor*d.cfg.Concurrency {
			res.Busy = true // due, and no room yet: a call's or a try's end wakes the job
			break
		}
		if d.cfg.PerGroup > 0 && d.groups[dd.Group] >= d.cfg.PerGroup {
			res.Busy = true // the group's room is full: one of its calls' end wakes the job
			continue
		}
		d.inFlight[id] = dd.Group
		d.calling++
		d.groups[dd.Group]++
		delete(d.notBefore, id)
		res.Worked = true
		d.wg.Go(func() { d.tryEnded(id, d.try(d.tries, id)) })
	}
	res.Busy = res.Busy || len(d.inFlight) > 0
	return res
}

// maxRecordingFactor bounds the tries in flight, those whose outcome is
// being recorded included, to this many times Concurrency.
const maxRecordingFactor = 16

// callEnded gives back the place of Concurrency that the try at delivery
// id held for its call, and wakes the job.
func (d *Dispatcher) callEnded(id string) {
	d.mu.Lock()
	d.calling--
	if g := d.inFlight[id]; d.groups[g] <= 1 {
		delete(d.groups, g)
	} else {
		d.groups[g]--
	}
	d.mu.Unlock()
	d.handle.Wake()
}

// tryEnded records the end of the try at delivery id, whose next try is due
// at notBefore (the zero time when none is), and wakes the job.
func (d *Dispatcher) tryEnded(id string, notBefore time.Time) {
	d.mu.Lock()
	delete(d.inFlight, id)
	if notBefore.IsZero() {
		delete(d.notBefore, id)
	} else {
		d.notBefore[id] = notBefore
	}
	d.ended++
	d.mu.Unlock()
	d.handle.Wake()
}

// try makes one try at a delivery and has its outcome recorded. It
// returns the exact time of the next try, if one is scheduled. It gives
// back its place of Concurrency (callEnded) once its call has ended.
func (d *Dispatcher) try(ctx context.Context, id string) time.Time {
	calling := true
	endCall := func() {
		if calling {
			calling = false
			d.callEnded(id)
		}
	}
	defer endCall()
	if d.cfg.Tracer != nil {
		var span trace.Span
		ctx, span = d.cfg.Tracer.Start(ctx, d.cfg.Name+" try", trace.WithNewRoot(),
			trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrDeliveryID.String(id)))
		defer span.End()
	}
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
	endCall()
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
