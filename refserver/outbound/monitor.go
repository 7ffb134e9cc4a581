package outbound

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/schedule"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// The universal POS monitor (contract.md section 7). For every location
// with a registered POS it records the POS's health in locations.pos_health
// every HealthInterval, and copies its menus into locations.menu_json every
// MenuSyncInterval. Everything is checked once at start, and a location is
// checked at once, in the background, when its POS is registered. A menu
// sync that fails keeps the menus synced before; while a location has no
// menu at all, a failed sync is retried after 1 s, 2 s, 4 s ... (at most
// MenuSyncInterval), so a POS that comes up a moment after the server (the
// demo POS is this very server) gets its menu soon.
const (
	// posCheckConcurrency bounds the calls to POSes in flight, so many
	// slow POSes cannot exhaust the server.
	posCheckConcurrency = 4
	// maxPOSHealthMessage bounds the text kept in pos_health_message.
	maxPOSHealthMessage = 500
	// menuRetryBase is the first wait before retrying a location's first
	// menu sync.
	menuRetryBase = time.Second
)

// posJob says what to do for a location; jobs combine with |.
type posJob uint8

const (
	jobHealth posJob = 1 << iota
	jobMenu
)

// MonitorConfig is what the universal POS monitor needs.
type MonitorConfig struct {
	DB *store.DB
	// Now is the virtual clock, which paces the checks.
	Now func() time.Time
	// HTTPClient calls the POSes.
	HTTPClient *http.Client
	// Tokens opens the POSes' sealed bearer tokens.
	Tokens store.POSTokens
	Logger *slog.Logger
	// HealthInterval and MenuSyncInterval pace the checks of every POS.
	HealthInterval   time.Duration
	MenuSyncInterval time.Duration
	// Tracer, when set, traces each check of a POS as a root span.
	Tracer trace.Tracer
}

// Monitor checks the health of the locations' universal POSes and syncs
// their menus. It is a job of the server's scheduler: its checks are due
// on the virtual clock, so advancing the clock past HealthInterval checks
// every POS at once.
type Monitor struct {
	cfg    MonitorConfig
	sem    chan struct{} // posCheckConcurrency slots
	handle *schedule.Handle
	// checks is the root context of the checks, which outlive the run
	// that started them; wg tracks them.
	checks context.Context
	wg     sync.WaitGroup

	mu       sync.Mutex
	pending  map[int64]posJob    // registrations and retries not yet picked up
	inFlight map[int64]posJob    // jobs running per location
	retries  map[int64]int       // failed first menu syncs per location
	retryAt  map[int64]time.Time // when a location's first menu sync is retried
	ended    int                 // checks ended since the last run
	// nextHealth and nextMenu are when every POS is next checked; the
	// zero time: at the first run.
	nextHealth, nextMenu time.Time
}

// NewMonitor returns a Monitor; Schedule starts it.
func NewMonitor(cfg MonitorConfig) *Monitor {
	return &Monitor{
		cfg:      cfg,
		sem:      make(chan struct{}, posCheckConcurrency),
		pending:  map[int64]posJob{},
		inFlight: map[int64]posJob{},
		retries:  map[int64]int{},
		retryAt:  map[int64]time.Time{},
	}
}

// Schedule adds the monitor to s as a job; its checks run under ctx (the
// scheduler's). Wait waits for them once ctx has ended.
func (m *Monitor) Schedule(ctx context.Context, s *schedule.Scheduler) {
	m.checks = ctx
	m.handle = s.Add(schedule.Job{Name: "pos monitor", Run: m.run})
}

// Wait waits for the checks under way to end, once the scheduler's
// context has ended.
func (m *Monitor) Wait() { m.wg.Wait() }

// Registered is called after a location with a universal POS has been
// committed. It only queues the location: the checks run in the monitor's
// goroutines, never in the caller's request.
func (m *Monitor) Registered(locationID int64) {
	m.mu.Lock()
	m.pending[locationID] |= jobHealth | jobMenu
	m.mu.Unlock()
	m.handle.Wake()
}

// run starts the checks that are due: every POS's health and menus at
// their intervals, registrations, and retries of first menu syncs. It
// says when the next is due.
func (m *Monitor) run(ctx context.Context) schedule.Result {
	now := m.cfg.Now()
	var all posJob
	m.mu.Lock()
	res := schedule.Result{Worked: m.ended > 0}
	m.ended = 0
	if !now.Before(m.nextHealth) {
		all |= jobHealth
		m.nextHealth = now.Add(m.cfg.HealthInterval)
	}
	if !now.Before(m.nextMenu) {
		all |= jobMenu
		m.nextMenu = now.Add(m.cfg.MenuSyncInterval)
	}
	res.Next = m.nextHealth
	if m.nextMenu.Before(res.Next) {
		res.Next = m.nextMenu
	}
	for id, at := range m.retryAt {
		if !now.Before(at) {
			m.pending[id] |= jobMenu
			delete(m.retryAt, id)
		} else if at.Before(res.Next) {
			res.Next = at
		}
	}
	pending := m.pending
	m.pending = map[int64]posJob{}
	m.mu.Unlock()

	if all != 0 {
		m.runAll(ctx, all)
	}
	for id, job := range pending {
		m.start(id, job, true)
	}
	m.mu.Lock()
	res.Busy = len(m.inFlight) > 0 || len(m.pending) > 0
	res.Worked = res.Worked || res.Busy
	m.mu.Unlock()
	return res
}

// runAll starts job for every location with a POS.
func (m *Monitor) runAll(ctx context.Context, job posJob) {
	var locs []store.POSLocation
	err := m.cfg.DB.Read(ctx, func(tx *store.Tx) error {
		var err error
		locs, err = tx.POSLocations()
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			m.cfg.Logger.Error("pos monitor: listing locations", "err", err)
		}
		return
	}
	for _, l := range locs {
		m.start(l.LocationID, job, false)
	}
}

// start runs job for one location in its own goroutine, skipping the parts
// already running for it (a slow POS must not pile up checks). Those parts
// of a registration (again) are kept pending instead and run when the
// running ones end: the registration may be about a change the running
// check did not see, such as a new mode of the demo POS, and must not wait
// for the next interval.
func (m *Monitor) start(locationID int64, job posJob, again bool) {
	m.mu.Lock()
	if busy := job & m.inFlight[locationID]; busy != 0 && again {
		m.pending[locationID] |= busy
	}
	job &^= m.inFlight[locationID]
	m.inFlight[locationID] |= job
	m.mu.Unlock()
	if job == 0 {
		return
	}
	m.wg.Go(func() {
		defer func() {
			m.mu.Lock()
			if m.inFlight[locationID] &^= job; m.inFlight[locationID] == 0 {
				delete(m.inFlight, locationID)
			}
			m.ended++
			m.mu.Unlock()
			m.handle.Wake()
		}()
		ctx := m.checks
		select {
		case m.sem <- struct{}{}:
			defer func() { <-m.sem }()
		case <-ctx.Done():
			return
		}
		if m.cfg.Tracer != nil {
			var span trace.Span
			ctx, span = m.cfg.Tracer.Start(ctx, "pos monitor check", trace.WithNewRoot(),
				trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attribute.Int64("refserver.location_id", locationID)))
			defer span.End()
		}
		m.check(ctx, locationID, job)
	})
}

// check loads the location's POS (it may have changed since the job was
// queued) and does the job.
func (m *Monitor) check(ctx context.Context, locationID int64, job posJob) {
	var loc store.POSLocation
	err := m.cfg.DB.Read(ctx, func(tx *store.Tx) error {
		var err error
		loc, err = tx.GetPOSLocation(locationID)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return // the POS was removed, or the location was reset away
	}
	if err != nil {
		if ctx.Err() == nil {
			m.cfg.Logger.Error("pos monitor: loading location", "location_id", locationID, "err", err)
		}
		return
	}
	token, err := m.cfg.Tokens.Open(loc.LocationID, loc.POSTokenSealed)
	if err != nil {
		// Nothing is sent: a token sealed for another location would be
		// that location's, and a POS without its token cannot answer.
		m.recordHealth(ctx, loc, store.POSHealthUnreachable, err.Error())
		return
	}
	c := newPOSClient(m.cfg.HTTPClient, loc.POSURL, token)
	if job&jobHealth != 0 {
		m.checkHealth(ctx, c, loc)
	}
	if job&jobMenu != 0 {
		m.syncMenu(ctx, c, loc)
	}
}

// checkHealth records OK, FAILED with the POS's message, or UNREACHABLE
// with what went wrong (any error, a timeout or a 5xx included), and
// pos.health_changed when the POS went from OK to not OK or back.
func (m *Monitor) checkHealth(ctx context.Context, c *universalpos.Client, loc store.POSLocation) {
	st, err := c.Health(ctx)
	if ctx.Err() != nil {
		return // shutting down: the POS is not to blame
	}
	health, msg := store.POSHealthOK, ""
	switch {
	case err != nil:
		health, msg = store.POSHealthUnreachable, publicPOSError(err)
	case st.Status == universalpos.HealthFailed:
		health, msg = store.POSHealthFailed, st.Message
	}
	m.recordHealth(ctx, loc, health, truncateText(msg, maxPOSHealthMessage))
}

// recordHealth records the outcome of a check of loc's POS.
func (m *Monitor) recordHealth(ctx context.Context, loc store.POSLocation, health, msg string) {
	err := m.cfg.DB.Write(ctx, func(tx *store.Tx) error {
		return rules.RecordPOSHealth(tx, loc, health, msg)
	})
	if err != nil && ctx.Err() == nil {
		m.cfg.Logger.Error("pos monitor: recording health", "location_id", loc.LocationID, "err", err)
	}
}

// syncMenu copies the POS's menus into the location. Menus that break the
// rules of universalpos.ValidateMenus are still stored (the POS is the
// source of truth, and ordering checks each line against the menu), but
// the problems are logged for the operator.
func (m *Monitor) syncMenu(ctx context.Context, c *universalpos.Client, loc store.POSLocation) {
	menus, err := c.Menus(ctx)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		m.cfg.Logger.Warn("pos monitor: menu sync failed; keeping the last menu",
			"location_id", loc.LocationID, "err", err)
		m.retryFirstSync(ctx, loc.LocationID)
		return
	}
	if probs := universalpos.ValidateMenus(menus); len(probs) > 0 {
		m.cfg.Logger.Warn("pos monitor: the POS's menu has problems", "location_id", loc.LocationID,
			"problems", len(probs), "first", probs[0].String())
	}
	if menus == nil {
		menus = []universalpos.Menu{}
	}
	b, err := json.Marshal(menus)
	if err != nil {
		m.cfg.Logger.Error("pos monitor: encoding menus", "location_id", loc.LocationID, "err", err)
		return
	}
	err = m.cfg.DB.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.SetLocationMenu(loc.LocationID, loc.POSURL, string(b))
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			m.cfg.Logger.Error("pos monitor: storing menus", "location_id", loc.LocationID, "err", err)
		}
		return
	}
	m.mu.Lock()
	delete(m.retries, loc.LocationID)
	m.mu.Unlock()
}

// retryFirstSync queues another menu sync soon for a location that has
// never had a menu, with doubling waits up to MenuSyncInterval. Locations
// with a menu simply wait for the next periodic sync.
func (m *Monitor) retryFirstSync(ctx context.Context, locationID int64) {
	var st store.POSStatus
	err := m.cfg.DB.Read(ctx, func(tx *store.Tx) error {
		var err error
		st, err = tx.GetPOSStatus(locationID)
		return err
	})
	if err != nil || st.MenuSyncedAt != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.retries[locationID]
	m.retries[locationID] = n + 1
	wait := menuRetryBase << min(n, 16)
	if wait <= 0 || wait >= m.cfg.MenuSyncInterval {
		return // the periodic sync comes as soon
	}
	m.retryAt[locationID] = m.cfg.Now().Add(wait)
}
