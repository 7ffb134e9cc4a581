package refserver

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/sandbox"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// The universal POS monitor (contract.md section 7). For every location
// with a registered POS it records the POS's health in locations.pos_health
// every POSHealthInterval, and copies its menus into locations.menu_json
// every MenuSyncInterval. Everything is checked once at start, and a
// location is checked at once, in the background, when its POS is
// registered. A menu sync that fails keeps the menus synced before; while a
// location has no menu at all, a failed sync is retried after 1 s, 2 s,
// 4 s ... (at most MenuSyncInterval), so a POS that comes up a moment after
// the server (the demo POS is this very server) gets its menu soon.
const (
	// posCheckConcurrency bounds the calls to POSes in flight, so many
	// slow POSes cannot exhaust the server.
	posCheckConcurrency = 4
	// posCallTimeout bounds one call to a POS.
	posCallTimeout = 10 * time.Second
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

// posMonitor is the state of one server's universal POS monitor.
type posMonitor struct {
	s    *Server
	demo http.Handler
	sem  chan struct{} // posCheckConcurrency slots

	mu       sync.Mutex
	pending  map[int64]posJob // registrations not yet picked up
	inFlight map[int64]posJob // jobs running per location
	retries  map[int64]int    // failed first menu syncs per location
	wake     chan struct{}    // one buffered signal: pending has work
}

// newPOSMonitor makes the server's monitor state; New calls it once.
func newPOSMonitor(s *Server) *posMonitor {
	return &posMonitor{
		s:        s,
		demo:     sandbox.NewDemoPOSHandler(s.cfg.AdminKey, s.log),
		sem:      make(chan struct{}, posCheckConcurrency),
		pending:  map[int64]posJob{},
		inFlight: map[int64]posJob{},
		retries:  map[int64]int{},
		wake:     make(chan struct{}, 1),
	}
}

// posClient returns a client for a location's universal POS, with the
// server's HTTP client and a timeout per call. opts are applied last, so a
// caller can change retries or timeouts (the order dispatcher sends with
// WithRetries(0) because it paces its own tries).
func (s *Server) posClient(posURL, posToken string, opts ...universalpos.ClientOption) *universalpos.Client {
	base := []universalpos.ClientOption{
		universalpos.WithHTTPClient(s.cfg.HTTPClient),
		universalpos.WithTimeout(posCallTimeout),
		universalpos.WithRetries(1),
		universalpos.WithBackoff(200*time.Millisecond, time.Second),
		universalpos.WithUserAgent("hospo-refserver"),
	}
	return universalpos.NewClient(posURL, posToken, append(base, opts...)...)
}

// onPOSRegistered is called after a location with a universal POS has been
// committed. It only queues the location: the checks run in the monitor's
// goroutines, never in the admin request. After Close it does nothing.
func (s *Server) onPOSRegistered(locationID int64) {
	s.pos.enqueue(locationID, jobHealth|jobMenu)
}

func (m *posMonitor) enqueue(locationID int64, job posJob) {
	m.mu.Lock()
	m.pending[locationID] |= job
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// runPOSMonitor checks the registered universal POSes' health and menus
// until ctx ends, then waits for the checks in flight.
func (s *Server) runPOSMonitor(ctx context.Context) {
	m := s.pos
	var wg sync.WaitGroup
	defer wg.Wait()

	m.runAll(ctx, &wg, jobHealth|jobMenu)
	health := time.NewTicker(s.cfg.POSHealthInterval)
	defer health.Stop()
	menus := time.NewTicker(s.cfg.MenuSyncInterval)
	defer menus.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-health.C:
			m.runAll(ctx, &wg, jobHealth)
		case <-menus.C:
			m.runAll(ctx, &wg, jobMenu)
		case <-m.wake:
			m.mu.Lock()
			pending := m.pending
			m.pending = map[int64]posJob{}
			m.mu.Unlock()
			for id, job := range pending {
				m.start(ctx, &wg, id, job)
			}
		}
	}
}

// runAll starts job for every location with a POS.
func (m *posMonitor) runAll(ctx context.Context, wg *sync.WaitGroup, job posJob) {
	var locs []store.POSLocation
	err := m.s.db.Read(ctx, func(tx *store.Tx) error {
		var err error
		locs, err = tx.POSLocations()
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			m.s.log.Error("pos monitor: listing locations", "err", err)
		}
		return
	}
	for _, l := range locs {
		m.start(ctx, wg, l.LocationID, job)
	}
}

// start runs job for one location in its own goroutine, skipping the parts
// already running for it (a slow POS must not pile up checks).
func (m *posMonitor) start(ctx context.Context, wg *sync.WaitGroup, locationID int64, job posJob) {
	m.mu.Lock()
	job &^= m.inFlight[locationID]
	m.inFlight[locationID] |= job
	m.mu.Unlock()
	if job == 0 {
		return
	}
	wg.Go(func() {
		defer func() {
			m.mu.Lock()
			if m.inFlight[locationID] &^= job; m.inFlight[locationID] == 0 {
				delete(m.inFlight, locationID)
			}
			m.mu.Unlock()
		}()
		select {
		case m.sem <- struct{}{}:
			defer func() { <-m.sem }()
		case <-ctx.Done():
			return
		}
		m.run(ctx, locationID, job)
	})
}

// run loads the location's POS (it may have changed since the job was
// queued) and does the job.
func (m *posMonitor) run(ctx context.Context, locationID int64, job posJob) {
	var loc store.POSLocation
	err := m.s.db.Read(ctx, func(tx *store.Tx) error {
		var err error
		loc, err = tx.GetPOSLocation(locationID)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return // the POS was removed, or the location was reset away
	}
	if err != nil {
		if ctx.Err() == nil {
			m.s.log.Error("pos monitor: loading location", "location_id", locationID, "err", err)
		}
		return
	}
	c := m.s.posClient(loc.POSURL, loc.POSToken)
	if job&jobHealth != 0 {
		m.checkHealth(ctx, c, loc)
	}
	if job&jobMenu != 0 {
		m.syncMenu(ctx, c, loc)
	}
}

// checkHealth records OK, FAILED with the POS's message, or UNREACHABLE
// with what went wrong (any error, a timeout or a 5xx included).
func (m *posMonitor) checkHealth(ctx context.Context, c *universalpos.Client, loc store.POSLocation) {
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
	msg = truncateText(msg, maxPOSHealthMessage)
	err = m.s.db.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.SetPOSHealth(loc.LocationID, loc.POSURL, health, msg)
		return err
	})
	if err != nil && ctx.Err() == nil {
		m.s.log.Error("pos monitor: recording health", "location_id", loc.LocationID, "err", err)
	}
}

// publicPOSError describes a failed call to a POS for pos_health_message,
// which anyone can read on the location's public details. A transport
// error's own text names the POS's URL (net/http's errors quote it, and
// DNS and TLS errors name the host), which is the vendor's business, so
// only the kind of failure is kept.
func publicPOSError(err error) string {
	var pe *universalpos.Error
	if !errors.As(err, &pe) {
		return "the POS could not be reached"
	}
	if pe.Message != "" || pe.StatusCode != 0 {
		// The client's own descriptions and the POS's status: no URL.
		described := *pe
		described.Err = nil
		return strings.TrimPrefix(described.Error(), "universalpos: ")
	}
	cause := "the connection failed"
	var (
		netErr net.Error
		dnsErr *net.DNSError
		opErr  *net.OpError
		sysErr *os.SyscallError
	)
	switch {
	case errors.As(pe.Err, &dnsErr):
		cause = "the POS's host name did not resolve"
	case errors.As(pe.Err, &netErr) && netErr.Timeout(), errors.Is(pe.Err, context.DeadlineExceeded):
		cause = "timed out"
	case errors.As(pe.Err, &opErr) && opErr.Op == "dial" && errors.As(opErr.Err, &sysErr):
		cause = "cannot connect: " + sysErr.Error() // e.g. "connect: connection refused"
	case errors.As(pe.Err, &opErr) && opErr.Op == "dial":
		cause = "cannot connect"
	}
	if pe.Op == "" {
		return cause
	}
	return pe.Op + ": " + cause
}

// syncMenu copies the POS's menus into the location. Menus that break the
// rules of universalpos.ValidateMenus are still stored (the POS is the
// source of truth, and ordering checks each line against the menu), but
// the problems are logged for the operator.
func (m *posMonitor) syncMenu(ctx context.Context, c *universalpos.Client, loc store.POSLocation) {
	menus, err := c.Menus(ctx)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		m.s.log.Warn("pos monitor: menu sync failed; keeping the last menu",
			"location_id", loc.LocationID, "err", err)
		m.retryFirstSync(ctx, loc.LocationID)
		return
	}
	if probs := universalpos.ValidateMenus(menus); len(probs) > 0 {
		m.s.log.Warn("pos monitor: the POS's menu has problems", "location_id", loc.LocationID,
			"problems", len(probs), "first", probs[0].String())
	}
	if menus == nil {
		menus = []universalpos.Menu{}
	}
	b, err := json.Marshal(menus)
	if err != nil {
		m.s.log.Error("pos monitor: encoding menus", "location_id", loc.LocationID, "err", err)
		return
	}
	err = m.s.db.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.SetLocationMenu(loc.LocationID, loc.POSURL, string(b))
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			m.s.log.Error("pos monitor: storing menus", "location_id", loc.LocationID, "err", err)
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
func (m *posMonitor) retryFirstSync(ctx context.Context, locationID int64) {
	var st store.POSStatus
	err := m.s.db.Read(ctx, func(tx *store.Tx) error {
		var err error
		st, err = tx.GetPOSStatus(locationID)
		return err
	})
	if err != nil || st.MenuSyncedAt != nil {
		return
	}
	m.mu.Lock()
	n := m.retries[locationID]
	m.retries[locationID] = n + 1
	m.mu.Unlock()
	wait := menuRetryBase << min(n, 16)
	if wait <= 0 || wait >= m.s.cfg.MenuSyncInterval {
		return // the periodic sync comes as soon
	}
	t := time.AfterFunc(wait, func() { m.enqueue(locationID, jobMenu) })
	context.AfterFunc(ctx, func() { t.Stop() })
}

// truncateText cuts s to at most n bytes without splitting a UTF-8
// sequence.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}
