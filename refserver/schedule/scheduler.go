package schedule

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hospo-dev/hospo-go/internal/wake"
)

// DefaultMaxSleep is the longest a job sleeps when Config.MaxSleep is 0.
const DefaultMaxSleep = time.Minute

// Result is what one run of a job tells the scheduler.
type Result struct {
	// Next is when the job is next due on the virtual clock. The zero
	// time, or one further off than Config.MaxSleep, means a look after
	// MaxSleep; a time already past means at once.
	Next time.Time
	// Busy reports that the run left work behind that was due when it
	// started: calls it started and that are still under way, or due work
	// it had no room for. Such a job has not caught up; it wakes itself
	// (Handle.Wake) when its calls end.
	Busy bool
	// Worked reports that the run changed something that may have made
	// other jobs' work due (a payment's events queue webhook deliveries).
	Worked bool
}

// Job is one kind of work the virtual clock drives.
type Job struct {
	// Name names the job's runs: their log lines and their root spans.
	Name string
	// Run does what is due now on the virtual clock and says when it is
	// due next. A failure is for Run to log: the job has caught up as far
	// as it could, and its next run tries again.
	Run func(ctx context.Context) Result
}

// Config configures a Scheduler.
type Config struct {
	// Now is the virtual clock.
	Now func() time.Time
	// Tracer, when set, traces each run of a job as one root span named
	// after the job, so the work it does (its write transactions, its
	// calls out) shows as one trace.
	Tracer trace.Tracer
	// Logger receives the scheduler's diagnostics.
	Logger *slog.Logger
	// MaxSleep bounds how long a job sleeps between runs whatever it
	// says (default DefaultMaxSleep): the look that catches what nobody
	// announced with a wake.
	MaxSleep time.Duration
}

// Scheduler runs the jobs the virtual clock drives, each in a goroutine
// of its own so that one slow job never holds up another, and knows when
// every one of them has caught up with the clock (CatchUp).
type Scheduler struct {
	cfg  Config
	jobs []*Handle

	// gen counts the catch-ups asked for; each run notes the gen it
	// started under. worked counts the runs that reported Worked.
	gen    atomic.Uint64
	worked atomic.Uint64

	mu      sync.Mutex
	changed chan struct{} // closed and replaced when a job catches up
	stopped chan struct{} // closed when Run returns

	// waiting, when set (by tests), is called each time CatchUp waits,
	// with the gen it waits under and the names of the jobs behind.
	waiting func(gen uint64, behind []string)
}

// New returns a Scheduler; add its jobs with Add, then start it with Run.
func New(cfg Config) *Scheduler {
	if cfg.MaxSleep <= 0 {
		cfg.MaxSleep = DefaultMaxSleep
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Scheduler{cfg: cfg, changed: make(chan struct{}), stopped: make(chan struct{})}
}

// Handle is a job added to a Scheduler.
type Handle struct {
	s    *Scheduler
	job  Job
	wake wake.Signal
	// caughtUp is the gen under which the job last started a run that
	// left nothing behind (guarded by Scheduler.mu).
	caughtUp uint64
}

// Add adds a job; call it before Run.
func (s *Scheduler) Add(j Job) *Handle {
	h := &Handle{s: s, job: j, wake: wake.NewSignal()}
	s.jobs = append(s.jobs, h)
	return h
}

// Wake runs the job at once (or as soon as its run under way ends): work
// became due, or calls it started have ended. It never blocks.
func (h *Handle) Wake() { h.wake.Wake() }

// Wake runs every job at once: the virtual clock moved.
func (s *Scheduler) Wake() {
	for _, h := range s.jobs {
		h.Wake()
	}
}

// Run runs the jobs until ctx ends and waits for their runs to end.
func (s *Scheduler) Run(ctx context.Context) {
	defer close(s.stopped)
	var wg sync.WaitGroup
	for _, h := range s.jobs {
		wg.Go(func() { wake.Loop(ctx, h.wake, h.run) })
	}
	wg.Wait()
}

// run is one run of the job, and returns how long to sleep after it.
func (h *Handle) run(ctx context.Context) time.Duration {
	s := h.s
	gen := s.gen.Load()
	var span trace.Span
	if s.cfg.Tracer != nil {
		ctx, span = s.cfg.Tracer.Start(ctx, h.job.Name, trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindInternal))
	}
	res := h.job.Run(ctx)
	if span != nil {
		span.End()
	}
	if res.Worked {
		s.worked.Add(1)
	}
	if !res.Busy {
		s.mu.Lock()
		if gen > h.caughtUp {
			h.caughtUp = gen
			close(s.changed)
			s.changed = make(chan struct{})
		}
		s.mu.Unlock()
	}
	wait := s.cfg.MaxSleep
	if !res.Next.IsZero() {
		wait = min(wait, max(res.Next.Sub(s.cfg.Now()), 0))
	}
	return wait
}

// CatchUp returns once every job has done all its work due by the virtual
// clock at the call, and everything that work made due in turn: each job
// runs at least once after the call, and the rounds go on until one in
// which no job worked. It returns ctx's error if ctx ends first, and at
// once when the scheduler has stopped. Before Run it waits for Run.
//
// Time runs on while it waits, so work that comes due during the wait
// (a retry a second later) may be done too; work due later is not waited
// for.
func (s *Scheduler) CatchUp(ctx context.Context) error {
	for {
		worked := s.worked.Load()
		gen := s.gen.Add(1)
		s.Wake()
		if err := s.waitCaughtUp(ctx, gen); err != nil {
			return err
		}
		if s.worked.Load() == worked {
			return nil
		}
	}
}

// waitCaughtUp waits until every job has caught up under gen.
func (s *Scheduler) waitCaughtUp(ctx context.Context, gen uint64) error {
	for {
		s.mu.Lock()
		var behind []string
		for _, h := range s.jobs {
			if h.caughtUp < gen {
				behind = append(behind, h.job.Name)
			}
		}
		changed := s.changed
		s.mu.Unlock()
		if len(behind) == 0 {
			return nil
		}
		if s.waiting != nil {
			s.waiting(gen, behind)
		}
		select {
		case <-changed:
		case <-s.stopped:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
