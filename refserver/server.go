package refserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/trace"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/internal/seal"
	"github.com/hospo-dev/hospo-go/refserver/openapi"
	"github.com/hospo-dev/hospo-go/refserver/outbound"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/schedule"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Server is the reference server. It is safe for concurrent use; create it
// with New and release it with Close.
type Server struct {
	cfg    Config
	log    *slog.Logger
	db     *store.DB
	clock  *sim.Clock
	faults *sim.Faults
	// selfCalls marks the server's own calls to itself, which faults
	// leave alone.
	selfCalls *api.SelfCalls
	cert      sim.Certificate
	handler   http.Handler
	// public are the base URLs the server hands out (SetPublicURLs).
	public atomic.Pointer[PublicURLs]

	// orders sends orders to the universal POSes; monitor checks their
	// health and syncs their menus; posTokens keeps the POSes' bearer
	// tokens sealed.
	orders    *outbound.Dispatcher
	monitor   *outbound.Monitor
	posTokens store.POSTokens
	// webhooks delivers events to the webhooks; webhookSecrets keeps the
	// webhooks' signing secrets sealed.
	webhooks       *outbound.Dispatcher
	webhookSecrets *seal.Box
	// sched runs every job the virtual clock drives (the dispatchers and
	// the monitor above, the diners, offline locations, the retention
	// sweep); diners is the diners' job.
	sched  *schedule.Scheduler
	diners *schedule.Handle
	// demoPOS is the built-in demo universal POS; demo is the demo fixture.
	demoPOS http.Handler
	demo    sim.Demo
	// providerDKeys holds providerD keys made ahead of time.
	providerDKeys *sim.KeyPool
	// snapshots keeps the sandbox's snapshots (sandbox_snapshots.go).
	snapshots *sim.Snapshots

	// The API plumbing (package api): api writes every response, tokens
	// looks access tokens up, guards check credentials and make the
	// request record (the API's guards, which pass an admitted request on
	// to the in-flight bound and the OpenAPI check; made with the routes),
	// reads runs every request that reads state and writes every one that
	// changes it.
	api    *api.Responder
	tel    *api.Telemetry // request spans and metrics; see telemetry.go
	tokens *api.Tokens
	guards *api.Guards
	reads  *api.Reads
	writes *api.Writes
	// inFlight is the bound of Config.MaxInFlight, which the event feed
	// takes for its reads only (events.go).
	inFlight *api.InFlight

	// adminKeys counts wrong admin keys per client address, for the admin
	// API and the console's login alike.
	adminKeys *api.KeyAttempts

	// validate is the OpenAPI request validator (Config.ValidateRequests),
	// nil when off.
	validate func(http.Handler) http.Handler
	// admin holds the sandbox admin routes alone (see isAdminRoute).
	admin chi.Routes

	// ctx lives as long as the server; background workers stop when Close
	// cancels it. wg tracks them so Close can wait.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// damaged receives the error of the background integrity check.
	damaged chan error
	// stopWaits is closed by StopWaits: long-polling requests answer now.
	stopWaits     chan struct{}
	stopWaitsOnce sync.Once
	// feedWaits bounds the feed requests waiting for events (events.go).
	feedWaits *feedWaits

	closeOnce sync.Once
	closeErr  error
}

// New opens the database, applies migrations, creates the demo fixture on
// first start (and re-derives its credentials when the admin key or base
// URL changed), loads or makes the TLS certificate, and starts the
// background workers.
func New(cfg Config) (*Server, error) {
	if cfg.DBPath == "" {
		return nil, errors.New("refserver: Config.DBPath is required")
	}
	if cfg.AdminKey == "" {
		return nil, errors.New("refserver: Config.AdminKey is required")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "http://127.0.0.1:8080"
	}
	if cfg.TLSURL == "" {
		cfg.TLSURL = "https://127.0.0.1:8443"
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	cfg.TLSURL = strings.TrimRight(cfg.TLSURL, "/")
	// Public URLs given are checked; the defaults are the URLs as given.
	var errURL, errTLSURL error
	cfg.PublicURL, errURL = configPublicURL("PublicURL", "http", cfg.PublicURL, cfg.BaseURL)
	cfg.PublicTLSURL, errTLSURL = configPublicURL("PublicTLSURL", "https", cfg.PublicTLSURL, cfg.TLSURL)
	if err := errors.Join(errURL, errTLSURL); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	selfCalls := api.NewSelfCalls(cfg.BaseURL, cfg.TLSURL)
	// The calls to the POSes (the demo POS is the server itself) are
	// marked; webhook deliveries keep the transport they were given,
	// which they restrict (outbound.WebhookConfig).
	posHTTP := selfCalls.Client(cfg.HTTPClient)
	if cfg.RateLimit < 0 {
		return nil, errors.New("refserver: Config.RateLimit must not be negative")
	}
	setDefault(&cfg.POSHealthInterval, 30*time.Second)
	setDefault(&cfg.SweepInterval, time.Minute)
	setDefault(&cfg.MenuSyncInterval, 5*time.Minute)
	setDefault(&cfg.OrderRetryBase, time.Second)
	setDefault(&cfg.OrderRetryMax, 60*time.Second)
	setDefault(&cfg.WebhookTimeout, 10*time.Second)
	if cfg.MaxFeedWaits <= 0 {
		cfg.MaxFeedWaits = DefaultMaxFeedWaits
	}
	if cfg.MaxFeedWaitsPerKey <= 0 {
		cfg.MaxFeedWaitsPerKey = DefaultMaxFeedWaitsPerKey
	}
	if cfg.ProviderDKeyWait <= 0 {
		cfg.ProviderDKeyWait = defaultProviderDKeyWait
	}
	if cfg.providerDKeyGen == nil {
		cfg.providerDKeyGen = sim.NewRSAKey
	}

	s := &Server{
		cfg:       cfg,
		log:       cfg.Logger,
		clock:     sim.NewClock(cfg.Now),
		faults:    &sim.Faults{},
		selfCalls: selfCalls,
		demo:      sim.Demo{AdminKey: cfg.AdminKey, POSURL: cfg.BaseURL + sim.DemoPOSPath},

		adminKeys:     api.NewKeyAttempts(adminKeyBurst, adminKeyEvery, cfg.Now),
		feedWaits:     newFeedWaits(cfg.MaxFeedWaits, cfg.MaxFeedWaitsPerKey),
		providerDKeys: sim.NewKeyPool(providerDKeyPool, cfg.providerDKeyGen),
	}
	s.public.Store(&PublicURLs{URL: cfg.PublicURL, TLSURL: cfg.PublicTLSURL})
	cert, err := sim.LoadOrCreateCertificate(cfg.DBPath, cfg.Now(), s.certHosts()...)
	if err != nil {
		return nil, fmt.Errorf("refserver: %w", err)
	}
	s.cert = cert

	ctx := context.Background()
	startCheck := cfg.StartCheckBytes
	if startCheck == 0 {
		startCheck = store.DefaultForegroundCheck
	}
	tracer, meter := cfg.telemetry()
	if tracer != nil {
		// What New writes (migrations, the demo fixture) is one trace.
		var span trace.Span
		ctx, span = tracer.Start(ctx, "refserver start", trace.WithSpanKind(trace.SpanKindInternal))
		defer span.End()
	}
	// Calls to POSes carry the trace context of the job run that makes
	// them (webhook deliveries too: their dispatcher wraps its own
	// transport).
	callOut := outbound.WithTraceContext(posHTTP, cfg.Propagator)
	if s.tel, err = api.NewTelemetry(tracer, cfg.Propagator, meter); err != nil {
		return nil, fmt.Errorf("refserver: telemetry: %w", err)
	}
	openOpts := []store.OpenOption{store.WithTelemetry(tracer, meter), store.CheckInForegroundUpTo(startCheck)}
	if cfg.writeQueued != nil {
		openOpts = append(openOpts, store.NotifyQueued(cfg.writeQueued))
	}
	db, err := store.Open(ctx, cfg.DBPath, s.clock.Now, openOpts...)
	if err != nil {
		return nil, fmt.Errorf("refserver: %w", err)
	}
	s.db = db
	s.snapshots = sim.NewSnapshots(db, cfg.DBPath, s.clock.Now, cfg.snapshotLimits())
	s.demoPOS = sim.NewDemoPOSHandler(cfg.AdminKey, db, cfg.Logger)
	s.posTokens = store.NewPOSTokens(cfg.AdminKey)
	s.orders = outbound.NewOrderDispatcher(outbound.OrderConfig{
		DB: db, Now: s.clock.Now, HTTPClient: callOut, Tokens: s.posTokens, Logger: cfg.Logger,
		RetryBase: cfg.OrderRetryBase, RetryMax: cfg.OrderRetryMax, Meter: meter, Tracer: tracer,
	})
	s.monitor = outbound.NewMonitor(outbound.MonitorConfig{
		DB: db, Now: s.clock.Now, HTTPClient: callOut, Tokens: s.posTokens, Logger: cfg.Logger,
		HealthInterval: cfg.POSHealthInterval, MenuSyncInterval: cfg.MenuSyncInterval, Tracer: tracer,
	})
	s.webhookSecrets = seal.New(cfg.AdminKey, rules.WebhookSealPurpose)
	s.webhooks = outbound.NewWebhookDispatcher(outbound.WebhookConfig{
		DB: db, Now: s.clock.Now, Real: s.clock.Real, HTTPClient: cfg.HTTPClient, Logger: cfg.Logger,
		Secrets: s.webhookSecrets, Timeout: cfg.WebhookTimeout, AllowLinkLocal: cfg.AllowLinkLocalWebhooks,
		Meter: meter, Tracer: tracer, Propagator: cfg.Propagator,
	})
	s.tokens = api.NewTokens(db, s.clock.Now)
	s.api = api.NewResponder(s.log, s.clock.Now, s.tokens)
	s.reads = api.NewReads(s.api, db)
	s.writes = api.NewWrites(s.api, db, s.log, cfg.AdminKey)
	if err := loadClock(ctx, db, s.clock); err != nil {
		db.Close()
		return nil, fmt.Errorf("refserver: %w", err)
	}
	var registered []int64
	err = db.Write(ctx, func(tx *store.Tx) error {
		var err error
		registered, err = s.adopt(tx)
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("refserver: demo fixture: %w", err)
	}
	if cfg.ValidateRequests {
		v, err := openapi.NewRequestValidator(openapi.WithClock(s.clock.Now), openapi.WithTokenStatus(s.tokens.Status))
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("refserver: request validator: %w", err)
		}
		s.validate = v
	}
	s.handler = s.routes()

	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.sched = schedule.New(schedule.Config{Now: s.clock.Now, Tracer: tracer, Logger: cfg.Logger})
	s.orders.Schedule(s.ctx, s.sched)
	s.webhooks.Schedule(s.ctx, s.sched)
	s.monitor.Schedule(s.ctx, s.sched)
	s.diners = s.sched.Add(schedule.Diners(db, s.clock.Now, cfg.Logger))
	s.sched.Add(schedule.Offline(db, s.clock.Now, cfg.Logger))
	s.sched.Add(schedule.Retention(db, s.clock.Now, s.clock.Offset, cfg.SweepInterval, cfg.Logger))
	s.wg.Go(func() {
		s.sched.Run(s.ctx)
		s.orders.Wait()
		s.webhooks.Wait()
		s.monitor.Wait()
	})
	s.wg.Go(func() { s.providerDKeys.Run(s.ctx) })
	s.stopWaits = make(chan struct{})
	s.damaged = make(chan error, 1)
	s.wg.Go(func() {
		if err := s.db.Verify(s.ctx); err != nil && s.ctx.Err() == nil {
			s.log.Error("the database file is damaged; stop the server", slog.Any("error", err))
			s.damaged <- err
		}
	})
	s.wg.Go(s.wakeOnDeliveries)
	for _, id := range registered {
		s.monitor.Registered(id)
	}
	return s, nil
}

// adopt brings a database that an older server may have left, or that a
// restore just put in place, in line with this server before anything
// else uses it: it seals the POS bearer tokens that servers before
// migration 0061 kept in the clear, then makes sure of the demo fixture
// (sim.Demo.Ensure), whose locations it returns when their POS
// registration is new or changed.
func (s *Server) adopt(tx *store.Tx) ([]int64, error) {
	n, err := tx.SealPlainPOSTokens(s.posTokens)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		tx.AfterCommit(func() {
			s.log.Info("sealed the universal POS bearer tokens an older version kept in the clear", slog.Int("locations", n))
		})
	}
	return s.demo.Ensure(tx)
}

// wakeOnDeliveries wakes the webhook dispatcher after each commit that
// queued deliveries, which are then due.
func (s *Server) wakeOnDeliveries() {
	for {
		signal := s.db.DeliverySignal()
		select {
		case <-s.ctx.Done():
			return
		case <-signal:
			s.webhooks.Wake()
		}
	}
}

// clockMoved wakes every job of the scheduler after the virtual clock
// moved (a reset, a restore), so that what came due runs at once rather
// than at their next look. An advance waits for them: catchUp.
func (s *Server) clockMoved() { s.sched.Wake() }

// catchUp wakes every job of the scheduler after the virtual clock was
// advanced and returns once all the work the new time made due has run
// and committed (schedule.Scheduler.CatchUp), or ctx ended.
func (s *Server) catchUp(ctx context.Context) {
	if err := s.sched.CatchUp(ctx); err != nil && s.ctx.Err() == nil {
		s.log.Warn("the clock's advance answered before the background work caught up", slog.Any("error", err))
	}
}

func setDefault(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}

// Handler returns the handler for every route. The same handler serves the
// HTTP and the HTTPS listener.
func (s *Server) Handler() http.Handler { return s.handler }

// TLSConfig returns a TLS configuration for the HTTPS listener that serves
// the sandbox certificate.
func (s *Server) TLSConfig() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{s.cert.TLS},
		MinVersion:   tls.VersionTLS12,
	}
}

// CACertPEM returns the PEM certificate a client must trust to reach the
// HTTPS listener (the same bytes as GET /sandbox/ca.pem).
func (s *Server) CACertPEM() []byte { return append([]byte(nil), s.cert.CertPEM...) }

// CACertPath returns the file that holds the CA certificate, or "" when the
// database (and so the certificate) is in memory.
func (s *Server) CACertPath() string {
	if s.cfg.DBPath == store.MemoryPath {
		return ""
	}
	c, _ := sim.CertPaths(s.cfg.DBPath)
	return c
}

// Fixtures returns the demo fixture's credentials (what GET
// /sandbox/fixtures shows), for the start-up banner.
func (s *Server) Fixtures(ctx context.Context) (sim.Fixtures, error) {
	var f sim.Fixtures
	err := s.db.Read(ctx, func(tx *store.Tx) error {
		var err error
		f, err = s.demo.Fixtures(tx)
		return err
	})
	return f, err
}

// ClockOffset returns how far the virtual clock is ahead of real time:
// what POST /sandbox/clock has added since the last reset, kept across
// restarts. The start-up banner shows it, since a clock left ahead by an
// earlier run changes what the sandbox answers.
func (s *Server) ClockOffset() time.Duration { return s.clock.Offset() }

// StopWaits makes the requests that wait for something to happen (the
// event feed's wait, up to 30 s) answer now with what they have, and later
// ones not wait. Call it as HTTP shutdown starts
// (http.Server.RegisterOnShutdown), so that shutdown does not wait for
// them; Close does it too.
func (s *Server) StopWaits() { s.stopWaitsOnce.Do(func() { close(s.stopWaits) }) }

// Damaged delivers the error of the integrity check of a database file
// too large to check before New returned (Config.StartCheckBytes), when it
// finds damage. Nothing is delivered for an intact file.
func (s *Server) Damaged() <-chan error { return s.damaged }

// Close stops the background workers, waits for them and closes the
// database. In-flight requests should be finished first (http.Server's
// Shutdown). Close is idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.StopWaits()
		s.cancel()
		s.wg.Wait()
		s.closeErr = errors.Join(s.snapshots.Close(), s.db.Close())
	})
	return s.closeErr
}

// loadClock restores the virtual clock's offset from sandbox_state.
func loadClock(ctx context.Context, db *store.DB, clock *sim.Clock) error {
	return db.Read(ctx, func(tx *store.Tx) error {
		d, err := sim.ClockOffset(tx)
		clock.SetOffset(d)
		return err
	})
}
