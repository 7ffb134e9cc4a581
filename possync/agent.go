package possync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/hospo-dev/hospo-go/internal/wake"
)

// Defaults of AgentConfig. The poll and heartbeat intervals are the ones the
// service asks POSes to use.
const (
	DefaultPollInterval      = 30 * time.Second
	DefaultHeartbeatInterval = 5 * time.Minute
	DefaultRetryMin          = time.Second
	DefaultRetryMax          = time.Minute
	DefaultMaxQueued         = 10000
	DefaultRequestTimeout    = 30 * time.Second
	DefaultSendConcurrency   = 4
	DefaultDrainTimeout      = 5 * time.Second
)

// storeTimeout bounds each call to the Store; a local store that takes
// longer is broken.
const storeTimeout = 30 * time.Second

// Errors of the Agent.
var (
	// ErrOutboxFull is returned by Push when MaxQueued distinct checks are
	// already waiting. A push of a check number that is already waiting
	// replaces it and never fails this way.
	ErrOutboxFull = errors.New("possync: outbox full")
	// ErrAgentClosed is returned by Push and Run once the agent has stopped.
	ErrAgentClosed = errors.New("possync: agent closed")
	// ErrAgentRunning is returned by a second call of Run.
	ErrAgentRunning = errors.New("possync: agent already running")
)

// SavePaymentFunc saves a payment made through the service to the POS's
// check. The Agent accepts the payment at the service only after it returns
// nil; an error leaves the payment for the next poll. It should be
// idempotent by payment id if it can: the Agent never calls it twice for a
// payment it has seen saved (across restarts, with a Store), but a
// crash in the instant between it returning and the Agent recording that
// cannot be covered by the Agent alone.
type SavePaymentFunc func(ctx context.Context, checkNumber int64, p PaymentNotification) error

// AgentConfig configures an Agent. LocationID and SavePayment are required;
// a zero value in any other field selects its default.
type AgentConfig struct {
	// LocationID is the location whose POS this is; the POS access token of
	// the API's client must be this location's.
	LocationID int64
	// SavePayment is called for each payment of the poll (see
	// SavePaymentFunc).
	SavePayment SavePaymentFunc
	// Store keeps the checks not yet delivered and the payments saved but
	// not yet accepted, so that both survive a restart or crash; see
	// possync/outbox for one in a SQLite file. nil keeps them in memory
	// only. The Agent owns the Store and closes it when Run returns.
	Store Store
	// MaxQueued is how many distinct checks may wait for delivery before
	// Push returns ErrOutboxFull. Default DefaultMaxQueued.
	MaxQueued int
	// PollInterval is the mean time between payment polls; each wait is
	// jittered by up to 10% either way so that POSes do not poll in step.
	// Default DefaultPollInterval.
	PollInterval time.Duration
	// HeartbeatInterval is the time between heartbeats. Default
	// DefaultHeartbeatInterval.
	HeartbeatInterval time.Duration
	// RetryMin and RetryMax bound the backoff after a failed delivery (or
	// heartbeat): the wait starts at RetryMin and doubles per consecutive
	// failure up to RetryMax, jittered down to between half and all of it.
	// A Retry-After from the service is honoured up to RetryMax. Defaults
	// DefaultRetryMin and DefaultRetryMax.
	RetryMin, RetryMax time.Duration
	// RequestTimeout bounds each call to the service. Default
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// SendConcurrency is how many checks are sent at once while the
	// service is healthy (after a failure, one at a time until a send
	// succeeds). Default DefaultSendConcurrency.
	SendConcurrency int
	// DrainTimeout is how long Run goes on delivering queued checks after
	// its context is cancelled; what is left stays in the Store (or is lost
	// without one). Negative: stop at once. Default
	// DefaultDrainTimeout.
	DrainTimeout time.Duration
	// Logger receives the Agent's log lines; nil discards them.
	Logger *slog.Logger
	// MeterProvider, when set, receives the Agent's metrics (queued
	// checks, sends, send failures, payments saved and accepted, poll lag,
	// heartbeat age; see MetricQueuedChecks and the others), with the
	// location id as an attribute. When nil and the API is a *Service,
	// the Client's provider (client.WithMeterProvider) is used; without
	// either the Agent records none.
	MeterProvider metric.MeterProvider
}

func (c *AgentConfig) applyDefaults() {
	setDefault := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	setDefault(&c.PollInterval, DefaultPollInterval)
	setDefault(&c.HeartbeatInterval, DefaultHeartbeatInterval)
	setDefault(&c.RetryMin, DefaultRetryMin)
	setDefault(&c.RetryMax, DefaultRetryMax)
	setDefault(&c.RequestTimeout, DefaultRequestTimeout)
	if c.DrainTimeout == 0 {
		c.DrainTimeout = DefaultDrainTimeout
	}
	if c.RetryMax < c.RetryMin {
		c.RetryMax = c.RetryMin
	}
	if c.MaxQueued <= 0 {
		c.MaxQueued = DefaultMaxQueued
	}
	if c.SendConcurrency <= 0 {
		c.SendConcurrency = DefaultSendConcurrency
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Agent is the runtime a POS embeds: it delivers checks in the background,
// polls for payments, hands each to SavePayment and accepts it, and sends
// heartbeats. Push never blocks the POS on the network or the disk.
//
// Create it with NewAgent, start Run in a goroutine, and call Push whenever
// a check is saved. Push may be called before Run and from any goroutine.
type Agent struct {
	api   API
	cfg   AgentConfig
	log   *slog.Logger
	store Store // nil: memory only

	svc   *Service     // api when it is one: sends go out as the queued JSON, not decoded again
	state atomic.Int32 // stateNew -> stateRunning -> stateDone

	// bodies recycles the buffers of queued checks' JSON (*checkJSON) that
	// Push replaced, so that a push of a waiting check allocates nothing.
	bodies sync.Pool

	mu       sync.Mutex
	entries  map[int64]*entry // check number -> newest undelivered state
	ready    []int64          // check numbers waiting to be sent, oldest first
	dirty    map[int64]struct{}
	gen      uint64 // last generation handed out by Push
	inflight int    // sends under way
	failures int    // consecutive temporary send failures
	backoff  time.Time
	closed   bool
	saved    map[int64]struct{} // payment ids saved but not accepted
	stats    AgentStats
	waiters  map[*flushWaiter]struct{} // Flush calls under way
	metrics  metric.Registration       // nil without a MeterProvider; agent_metrics.go

	wakeSend    chan struct{}
	wakePersist chan struct{}
	progress    chan struct{}
	pollNow     wake.Signal

	// The payments polls, for WaitPayments (agent_wait.go): pollGen
	// numbers them as they start; paymentWaiters are the calls waiting.
	pollGen        uint64
	paymentWaiters map[*paymentWaiter]struct{}
}

// entry is the newest state of one check that is still to be delivered.
//
// The check is kept as its JSON, exactly the body its push sends (and what
// the outbox file stores): the garbage collector marks one pointer-free
// buffer per queued check instead of a copy of its items, modifiers and
// strings, a send never encodes it again, and a push that replaces a
// waiting state writes into the buffer of the one before.
type entry struct {
	body     *checkJSON
	gen      uint64 // which Push produced body; a send of an older gen does not settle it
	queued   bool   // in Agent.ready
	inflight bool   // being sent
	// lent: body was handed to a send, which can go on reading it after it
	// returns (net/http may still be writing a request's body when the
	// answer arrives), so it is never reused. saving: body is being written
	// to the Store. Either keeps Push from reusing body; both refer to body
	// alone and start false for the next one.
	lent, saving bool
	// invalid is Check.Validate's complaint about a check loaded from the
	// Store (an older version may have queued what this one refuses): the
	// error Service.PushCheck would return without sending it.
	invalid error
}

// checkJSON is the buffer of one queued check's JSON.
type checkJSON struct{ b []byte }

const (
	stateNew int32 = iota
	stateRunning
	stateDone
)

// NewAgent returns an Agent that talks to the service through api
// (normally NewService of a client holding the location's POS token). With
// cfg.Store it loads the checks and saved payments left there by an
// earlier run; if that fails, it closes the Store and returns the error.
func NewAgent(api API, cfg AgentConfig) (*Agent, error) {
	if api == nil {
		return nil, errors.New("possync: NewAgent: nil API")
	}
	if cfg.LocationID <= 0 {
		return nil, errors.New("possync: NewAgent: LocationID is required")
	}
	if cfg.SavePayment == nil {
		return nil, errors.New("possync: NewAgent: SavePayment is required")
	}
	cfg.applyDefaults()
	a := &Agent{
		api:         api,
		cfg:         cfg,
		log:         cfg.Logger.With("component", "possync.Agent", "locationId", cfg.LocationID),
		entries:     make(map[int64]*entry),
		dirty:       make(map[int64]struct{}),
		saved:       make(map[int64]struct{}),
		wakeSend:    make(chan struct{}, 1),
		wakePersist: make(chan struct{}, 1),
		progress:    make(chan struct{}, 1),
		pollNow:     wake.NewSignal(),
	}
	a.svc, _ = api.(*Service)
	if st := cfg.Store; st != nil {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		checks, saved, err := st.Load(ctx)
		cancel()
		if err != nil {
			_ = st.Close()
			return nil, fmt.Errorf("possync: NewAgent: loading the store: %w", err)
		}
		a.store = st
		for _, c := range checks {
			if c == nil || c.CheckNumber <= 0 || a.entries[c.CheckNumber] != nil {
				continue // a store should never return these; do not queue them twice
			}
			body, err := c.MarshalJSON()
			if err != nil {
				// Only a cycle of modifiers or categories, which no check
				// decoded from a file can have.
				a.log.Error("check from the store cannot be encoded; dropped", "checkNumber", c.CheckNumber, "err", err)
				continue
			}
			a.gen++
			a.entries[c.CheckNumber] = &entry{body: &checkJSON{b: body}, gen: a.gen, queued: true, invalid: c.Validate()}
			a.ready = append(a.ready, c.CheckNumber)
		}
		for _, id := range saved {
			a.saved[id] = struct{}{}
		}
		if len(checks) > 0 || len(saved) > 0 {
			a.log.Info("store loaded", "checks", len(checks), "savedPayments", len(saved))
		}
	}
	a.stats.Queued = len(a.entries)
	if mp := meterProvider(api, cfg); mp != nil {
		reg, err := a.registerMetrics(mp)
		if err != nil {
			if a.store != nil {
				_ = a.store.Close()
			}
			return nil, fmt.Errorf("possync: NewAgent: metrics: %w", err)
		}
		a.metrics = reg
	}
	return a, nil
}

// Push queues the current state of a check for delivery and returns at
// once, whether the service is reachable or not. Only the newest state of
// each check number is kept: pushes of a check that is still waiting
// replace it. Push keeps the check's JSON as it will be sent, so the caller
// may go on changing check.
//
// A check whose LocationID is 0 is sent with the agent's location. Push
// returns a *client.ValidationError for a check the service would refuse (see
// Check.Validate), an error for a check of another location,
// ErrOutboxFull when MaxQueued other checks are waiting, and
// ErrAgentClosed after Run has returned.
func (a *Agent) Push(check *Check) error {
	if check == nil {
		return errNilCheck
	}
	if check.LocationID != 0 && check.LocationID != a.cfg.LocationID {
		return fmt.Errorf("possync: check %d is for location %d, the agent's is %d",
			check.CheckNumber, check.LocationID, a.cfg.LocationID)
	}
	// c is a shallow copy, on the stack, that fills in the location: it is
	// what is validated (a valid check then costs no allocation) and
	// encoded. A check it fails for is refused with the error of the
	// caller's own check, which also names a missing location.
	c := *check
	c.LocationID = a.cfg.LocationID
	if c.Validate() != nil {
		return check.Validate()
	}
	// The JSON is written before the lock is taken, into a buffer that an
	// earlier push left over.
	buf, _ := a.bodies.Get().(*checkJSON)
	if buf == nil {
		buf = &checkJSON{b: make([]byte, 0, check.sizeHint())}
	}
	buf.b = c.appendJSON(buf.b[:0])
	n := c.CheckNumber

	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		a.bodies.Put(buf)
		return ErrAgentClosed
	}
	e := a.entries[n]
	var spare *checkJSON // the replaced state's buffer, when nothing else reads it
	if e == nil {
		if len(a.entries) >= a.cfg.MaxQueued {
			a.mu.Unlock()
			a.bodies.Put(buf)
			return ErrOutboxFull
		}
		e = &entry{}
		a.entries[n] = e
		a.stats.Queued = len(a.entries)
	} else if !e.lent && !e.saving {
		spare = e.body
	}
	a.gen++
	e.body, e.gen, e.lent, e.saving, e.invalid = buf, a.gen, false, false, nil
	// The dispatcher needs waking only when the ready list stops being
	// empty. While it is not, the dispatcher already has a wake coming: a
	// signal not yet taken, its backoff timer, or the end of a send. With
	// the service down the list stays full and Push wakes nothing, which
	// would otherwise be a goroutine (and often a thread) woken per push
	// only to find the backoff still running.
	wake := false
	if !e.queued && !e.inflight {
		e.queued = true
		wake = len(a.ready) == 0
		a.ready = append(a.ready, n)
	}
	if a.store != nil {
		a.dirty[n] = struct{}{}
	}
	a.mu.Unlock()

	if spare != nil {
		a.bodies.Put(spare)
	}
	if wake {
		signal(a.wakeSend)
	}
	if a.store != nil {
		signal(a.wakePersist)
	}
	return nil
}

// PollNow asks for a payments poll without waiting for the next interval
// (after the POS has opened a check's payment screen, say). It does not
// block; polls already asked for are not repeated.
func (a *Agent) PollNow() { a.pollNow.Wake() }

// Run delivers checks, polls payments and sends heartbeats until ctx is
// cancelled. It sends a heartbeat and polls at once, then at their
// intervals. On cancellation it goes on delivering queued checks for up to
// DrainTimeout (unless the service is failing), writes what is left to the
// Store, closes it and returns nil. Run may be called once; Push
// returns ErrAgentClosed after it has returned.
func (a *Agent) Run(ctx context.Context) error {
	if !a.state.CompareAndSwap(stateNew, stateRunning) {
		if a.state.Load() == stateRunning {
			return ErrAgentRunning
		}
		return ErrAgentClosed
	}
	defer a.state.Store(stateDone)
	defer a.unregisterMetrics()
	a.log.Info("agent started", "queued", a.Stats().Queued, "durable", a.store != nil)

	// Sends and their dispatcher outlive ctx for the drain, so they run
	// under contexts of their own.
	sendCtx, cancelSends := context.WithCancel(context.WithoutCancel(ctx))
	dispatchCtx, stopDispatch := context.WithCancel(sendCtx)
	var sends, loops sync.WaitGroup
	loops.Add(1)
	go func() { defer loops.Done(); a.dispatch(dispatchCtx, sendCtx, &sends) }()
	persistStop := make(chan struct{})
	var persister sync.WaitGroup
	if a.store != nil {
		persister.Add(1)
		go func() { defer persister.Done(); a.persistLoop(persistStop) }()
	}
	var pollers sync.WaitGroup
	pollers.Add(2)
	go func() { defer pollers.Done(); a.pollLoop(ctx) }()
	go func() { defer pollers.Done(); a.heartbeatLoop(ctx) }()

	<-ctx.Done()
	pollers.Wait()
	a.drain()
	stopDispatch()
	loops.Wait()
	cancelSends()
	sends.Wait()

	a.mu.Lock()
	a.closed = true
	a.releaseWaitersLocked()
	left := len(a.entries)
	a.mu.Unlock()
	if a.store != nil {
		close(persistStop)
		persister.Wait() // its last write saves every remaining check
		if err := a.store.Close(); err != nil {
			a.log.Error("closing the store", "err", err)
		}
	}
	switch {
	case left == 0:
		a.log.Info("agent stopped")
	case a.store != nil:
		a.log.Info("agent stopped; undelivered checks kept in the store", "checks", left)
	default:
		a.log.Warn("agent stopped; undelivered checks dropped (no store)", "checks", left)
	}
	return nil
}

// Close releases the Store of an agent whose Run was never called, writing
// any pushed checks to it first. It does nothing for an agent that is
// running or has run (cancel Run's context to stop one; Run closes the
// Store itself).
func (a *Agent) Close() error {
	if !a.state.CompareAndSwap(stateNew, stateDone) {
		return nil
	}
	a.unregisterMetrics()
	a.mu.Lock()
	a.closed = true
	a.releaseWaitersLocked()
	a.mu.Unlock()
	if a.store == nil {
		return nil
	}
	return errors.Join(a.saveDirty(), a.store.Close())
}

// drain waits, after Run's context is cancelled, until every queued check
// is delivered, DrainTimeout passes, or a delivery fails (the service is
// down: waiting out the backoff would only delay shutdown).
func (a *Agent) drain() {
	if a.cfg.DrainTimeout < 0 {
		return
	}
	timer := time.NewTimer(a.cfg.DrainTimeout)
	defer timer.Stop()
	for {
		a.mu.Lock()
		done := len(a.entries) == 0 || (a.failures > 0 && a.inflight == 0)
		a.mu.Unlock()
		if done {
			return
		}
		select {
		case <-timer.C:
			return
		case <-a.progress:
		}
	}
}

// recordErrorLocked keeps err as the last error for Stats. The caller
// holds a.mu.
func (a *Agent) recordErrorLocked(err error) {
	a.stats.LastError = err
	a.stats.LastErrorAt = time.Now()
}

// recordError is recordErrorLocked for callers that do not hold a.mu.
func (a *Agent) recordError(err error) {
	a.mu.Lock()
	a.recordErrorLocked(err)
	a.mu.Unlock()
}

// signal wakes the goroutine waiting on ch without ever blocking: a wake-up
// already pending covers this one.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
