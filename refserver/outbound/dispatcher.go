package outbound

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
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
	// is due (the zero time when none waits). room says how many tries of
	// a group the dispatcher has room for now: the queue lists at most that
	// many of the group's deliveries, and need not read more.
	Due(ctx context.Context, limit int, room func(group string) int) (due []Due, next time.Time, err error)
	// Claim starts a try at each of the deliveries ids, all in one write
	// where the queue can, and returns the tries in the same order: nil
	// for a delivery there is nothing to try at any more (it was settled,
	// rescheduled or removed since Due listed it). An error claims none.
	Claim(ctx context.Context, ids []string) ([]Attempt, error)
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
	// ClaimAhead is how many times Concurrency (and PerGroup) the tries
	// claimed and not yet called may reach with those calling; 0 or 1
	// claims only what has a place. Claiming ahead lets one write claim
	// many and the calls go on while it waits; a queue whose claim shows
	// (an order marked sent) should not.
	ClaimAhead int
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
// (schedule.Job): each run takes the due deliveries it has room for and
// claims them in one write, and their calls start as places free up; the
// scheduler wakes it at once when a delivery becomes due (Wake) or the
// clock moves.
//
// A try goes through three stages: claimed (listed by a run and claimed
// with the others of its batch, then waiting for a place), calling
// (holding one of the Concurrency places, PerGroup of its group's) and
// recording (its outcome waiting for the writer, which commits many at
// once, holding no place). Claims may run ahead of the calls, up to
// ClaimAhead times the places, so that a call never waits for a write:
// with one claim per try, each place stood idle for a whole write's
// latency per delivery, and under load that latency, not the receiver,
// set the pace.
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
	// group: from the run that took them until their outcome is recorded.
	inFlight map[string]string
	// ahead counts the tries from the run that took them until their call
	// ends (claimed or calling), aheadOf those per group.
	ahead   int
	aheadOf map[string]int
	// calling counts the calls under way, each holding a place of
	// Concurrency, callsOf those per group.
	calling int
	callsOf map[string]int
	// ready holds the claimed tries waiting for a place, oldest first.
	ready []claimedTry
	// roomWanted reports that the last run left due deliveries behind for
	// want of room: the end of a call or a try that makes room for a new
	// batch wakes the job, and only such an end does. Each run reads the
	// queue, and a wake at every call's end kept the job running without
	// pause under load, reading the same backlog over and over.
	roomWanted bool
	// notBefore holds the exact times of the next tries after temporary
	// failures: the queue may keep whole seconds only.
	notBefore map[string]time.Time
	// ended counts the tries that ended since the last run.
	ended int
}

// claimedTry is a claimed try waiting for a place.
type claimedTry struct {
	id, group string
	a         Attempt
}

// claimChunk bounds the deliveries one write claims, so that a large
// claim does not hold up the other writes of its batch for long.
const claimChunk = 128

// maxInFlightFactor bounds the tries in flight, those whose outcome is
// being recorded included, to this many times Concurrency. A try in flight
// costs a few words of memory; the bound only keeps a writer that stopped
// answering from piling up goroutines.
const maxInFlightFactor = 256

// NewDispatcher returns a Dispatcher; Schedule starts it.
func NewDispatcher(cfg DispatcherConfig) *Dispatcher {
	d := &Dispatcher{cfg: cfg, inFlight: map[string]string{}, aheadOf: map[string]int{}, callsOf: map[string]int{},
		notBefore: map[string]time.Time{}}
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

// maxAhead and maxGroupAhead bound the tries claimed or calling, in all
// and per group; maxInFlight those in flight.
func (d *Dispatcher) maxAhead() int      { return d.claimAhead() * d.cfg.Concurrency }
func (d *Dispatcher) maxGroupAhead() int { return d.claimAhead() * d.cfg.PerGroup }
func (d *Dispatcher) maxInFlight() int   { return maxInFlightFactor * d.cfg.Concurrency }

func (d *Dispatcher) claimAhead() int { return max(d.cfg.ClaimAhead, 1) }

// full reports that there is no room for another try: as many are claimed
// or calling as maxAhead allows, or in flight as maxInFlight does. d.mu is
// held.
func (d *Dispatcher) full() bool {
	return d.ahead >= d.maxAhead() || len(d.inFlight) >= d.maxInFlight()
}

// refill is how far below its bound of m a count of tries claimed ahead
// falls before a run claims more: half of m when claiming ahead (so that
// each claim covers many), 1 when claiming only what has a place.
func (d *Dispatcher) refill(m int) int {
	if d.claimAhead() == 1 {
		return 1
	}
	return max(m/2, 1)
}

// run takes each due delivery that is not in flight and whose exact
// backoff has passed, as far as there is room, claims them in one batch
// and says when to look again.
func (d *Dispatcher) run(ctx context.Context) schedule.Result {
	d.mu.Lock()
	worked := d.ended > 0
	d.ended = 0
	d.roomWanted = false
	full := d.full()
	// What each group has taken, for the queue to read no more of its
	// backlog than there is room for.
	var taken map[string]int
	if d.cfg.PerGroup > 0 {
		taken = maps.Clone(d.aheadOf)
		for _, n := range taken {
			if n >= d.maxGroupAhead() {
				d.roomWanted = true
			}
		}
	}
	if full {
		// No room for a single try: reading the queue would find nothing
		// to take. The end that makes room wakes the job.
		d.roomWanted = true
	}
	d.mu.Unlock()
	res := schedule.Result{Worked: worked}
	if full {
		res.Busy = true
		return res
	}
	now := d.cfg.Now()
	room := func(string) int { return d.cfg.Batch }
	if taken != nil {
		room = func(g string) int { return max(d.maxGroupAhead()-taken[g], 0) }
	}
	due, next, err := d.cfg.Queue.Due(ctx, d.cfg.Batch, room)
	if err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Error(d.cfg.Name+": reading due deliveries", "err", err)
		}
		d.mu.Lock()
		res.Busy = len(d.inFlight) > 0
		d.mu.Unlock()
		return res
	}
	if next.After(now) {
		res.Next = next
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var batch []claimedTry
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
		if d.full() {
			res.Busy, d.roomWanted = true, true // due, and no room yet
			break
		}
		if d.cfg.PerGroup > 0 && d.aheadOf[dd.Group] >= d.maxGroupAhead() {
			res.Busy, d.roomWanted = true, true // the group's room is full
			continue
		}
		d.inFlight[id] = dd.Group
		d.ahead++
		d.aheadOf[dd.Group]++
		delete(d.notBefore, id)
		batch = append(batch, claimedTry{id: id, group: dd.Group})
	}
	if len(batch) > 0 {
		res.Worked = true
	}
	for len(batch) > 0 {
		chunk := batch[:min(len(batch), claimChunk)]
		batch = batch[len(chunk):]
		d.wg.Go(func() { d.claim(chunk) })
	}
	res.Busy = res.Busy || len(d.inFlight) > 0
	return res
}

// claim claims the tries of batch in one go and queues them for a place.
func (d *Dispatcher) claim(batch []claimedTry) {
	ids := make([]string, len(batch))
	for i, c := range batch {
		ids[i] = c.id
	}
	attempts, err := d.cfg.Queue.Claim(d.tries, ids)
	if err == nil && len(attempts) != len(ids) {
		err = fmt.Errorf("%d tries claimed for %d deliveries", len(attempts), len(ids))
	}
	if err != nil && d.tries.Err() == nil {
		d.cfg.Logger.Error(d.cfg.Name+": starting tries", "deliveries", len(ids), "err", err)
	}
	d.mu.Lock()
	wake := false
	for i, c := range batch {
		if err != nil || attempts[i] == nil {
			d.release(c.group)
			wake = d.end(c.id, time.Time{}) || wake
			continue
		}
		c.a = attempts[i]
		d.ready = append(d.ready, c)
	}
	d.startCalls()
	d.mu.Unlock()
	if wake {
		d.handle.Wake()
	}
}

// startCalls starts the calls of the ready tries that have a place, oldest
// first. d.mu is held.
func (d *Dispatcher) startCalls() {
	kept := d.ready[:0]
	for _, c := range d.ready {
		if d.calling >= d.cfg.Concurrency || (d.cfg.PerGroup > 0 && d.callsOf[c.group] >= d.cfg.PerGroup) {
			kept = append(kept, c)
			continue
		}
		d.calling++
		d.callsOf[c.group]++
		d.wg.Go(func() { d.tryEnded(c.id, d.try(d.tries, c)) })
	}
	clear(d.ready[len(kept):])
	d.ready = kept
}

// release gives back the room a try of group took until its call's end.
// d.mu is held.
func (d *Dispatcher) release(group string) {
	d.ahead--
	if d.aheadOf[group] <= 1 {
		delete(d.aheadOf, group)
	} else {
		d.aheadOf[group]--
	}
}

// end forgets the try at delivery id, whose next try is due at notBefore
// (the zero time when none is), and reports whether the job must run: the
// last try ended (the job is then caught up), a retry is to be scheduled,
// or a run left deliveries behind and there is room for a batch.
// d.mu is held.
func (d *Dispatcher) end(id string, notBefore time.Time) bool {
	delete(d.inFlight, id)
	if notBefore.IsZero() {
		delete(d.notBefore, id)
	} else {
		d.notBefore[id] = notBefore
	}
	d.ended++
	return len(d.inFlight) == 0 || !notBefore.IsZero() || d.wantsRun("")
}

// wantsRun reports whether a run left due deliveries behind and there is
// now room for a batch (refill), in all or in group; it then takes the wish
// back, so one end wakes the job for it. d.mu is held.
func (d *Dispatcher) wantsRun(group string) bool {
	if !d.roomWanted || len(d.inFlight) > d.maxInFlight()/2 {
		return false
	}
	ma, mg := d.maxAhead(), d.maxGroupAhead()
	if d.ahead <= ma-d.refill(ma) || (d.cfg.PerGroup > 0 && group != "" && d.aheadOf[group] <= mg-d.refill(mg)) {
		d.roomWanted = false
		return true
	}
	return false
}

// callEnded gives back the place the try c held for its call, starts the
// call of a ready try in its stead and wakes the job if it has room for
// more.
func (d *Dispatcher) callEnded(c claimedTry) {
	d.mu.Lock()
	d.calling--
	if d.callsOf[c.group] <= 1 {
		delete(d.callsOf, c.group)
	} else {
		d.callsOf[c.group]--
	}
	d.release(c.group)
	d.startCalls()
	wake := d.wantsRun(c.group)
	d.mu.Unlock()
	if wake {
		d.handle.Wake()
	}
}

// tryEnded records the end of the try at delivery id, whose next try is due
// at notBefore (the zero time when none is), and wakes the job when it
// must run.
func (d *Dispatcher) tryEnded(id string, notBefore time.Time) {
	d.mu.Lock()
	wake := d.end(id, notBefore)
	d.mu.Unlock()
	if wake {
		d.handle.Wake()
	}
}

// try makes the claimed try c and has its outcome recorded. It returns
// the exact time of the next try, if one is scheduled. It gives back its
// place of Concurrency (callEnded) once its call has ended.
func (d *Dispatcher) try(ctx context.Context, c claimedTry) time.Time {
	calling := true
	endCall := func() {
		if calling {
			calling = false
			d.callEnded(c)
		}
	}
	defer endCall()
	if d.cfg.Tracer != nil {
		var span trace.Span
		ctx, span = d.cfg.Tracer.Start(ctx, d.cfg.Name+" try", trace.WithNewRoot(),
			trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrDeliveryID.String(c.id)))
		defer span.End()
	}
	a := c.a
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
			d.cfg.Logger.Error(d.cfg.Name+": recording a try", "id", c.id, "err", err)
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
