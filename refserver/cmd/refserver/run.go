package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// DefaultAdminKey is the well-known admin key of a local sandbox. It guards
// nothing of value on a developer machine; the server refuses it on an
// address that others can reach, where -admin-key must be set.
const DefaultAdminKey = "sandbox-admin-key"

// shutdownTimeout bounds how long in-flight requests may take to finish
// after a shutdown signal.
const shutdownTimeout = 15 * time.Second

// options are the command's flags.
type options struct {
	addr              string
	tlsAddr           string
	db                string
	adminKey          string
	rateLimit         float64
	rateBurst         int
	maxInFlight       int
	maxFeedWaits      int
	maxFeedWaitsKey   int
	maxSnapshots      int
	maxSnapshotsBytes int64
	webhookLinkLocal  bool
	logLevel          string
	posHealthInterval time.Duration
	menuSyncInterval  time.Duration
	validate          bool
	pprofAddr         string
	startCheckBytes   int64
	metricsAddr       string
	metricsPublic     bool
	adminHosts        []string
	publicURL         string
	publicTLSURL      string
	timeouts          timeouts
	version           bool
}

// timeouts bound how long a connection of either listener may hold the
// server without making progress. Without them a client that opens a
// connection and goes quiet keeps its socket and goroutine forever, and
// enough such clients use up the process's file descriptors.
type timeouts struct {
	readHeader time.Duration // from a connection's first byte to the end of its request headers
	read       time.Duration // to the end of the request body
	write      time.Duration // from the end of the request headers to the end of the response
	idle       time.Duration // a keep-alive connection waiting for its next request
}

// newHTTPServer returns the server of one listener.
func newHTTPServer(h http.Handler, t timeouts, errLog *log.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.readHeader,
		ReadTimeout:       t.read,
		WriteTimeout:      t.write,
		IdleTimeout:       t.idle,
		ErrorLog:          errLog,
	}
}

// parseFlags reads the command line, then the environment (through lookup)
// for the flags the command line left alone.
func parseFlags(args []string, stderr io.Writer, lookup func(string) (string, bool)) (options, error) {
	var o options
	fs := flag.NewFlagSet("refserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "HTTP listen address")
	fs.StringVar(&o.tlsAddr, "tls-addr", "127.0.0.1:8443", "HTTPS listen address (the sandbox providers' endpoints)")
	fs.StringVar(&o.db, "db", "refserver.db", `SQLite database file, or ":memory:"`)
	fs.StringVar(&o.adminKey, "admin-key", DefaultAdminKey, "sandbox admin key (header X-Sandbox-Admin-Key); demo credentials derive from it")
	fs.Float64Var(&o.rateLimit, "rate-limit", 0, "requests per second per credential (0: no limit)")
	fs.IntVar(&o.rateBurst, "rate-burst", 0, "burst size of the rate limit (0: the rate rounded up)")
	fs.IntVar(&o.maxInFlight, "max-in-flight", refserver.DefaultMaxInFlight, "API requests handled at once; more wait their turn (negative: no bound)")
	fs.IntVar(&o.maxFeedWaits, "max-feed-waits", refserver.DefaultMaxFeedWaits, "event feed requests waiting for events at once (GET /v1/events?wait=); more are refused with 429001")
	fs.IntVar(&o.maxFeedWaitsKey, "max-feed-waits-per-key", refserver.DefaultMaxFeedWaitsPerKey, "event feed requests of one API key waiting for events at once; more are refused with 429001")
	fs.IntVar(&o.maxSnapshots, "max-snapshots", refserver.DefaultMaxSnapshots, "snapshots kept at once (POST /sandbox/snapshots); a save past it is refused with 400002 (negative: no bound)")
	fs.Int64Var(&o.maxSnapshotsBytes, "max-snapshots-bytes", refserver.DefaultMaxSnapshotsBytes,
		"bytes all snapshots may take together, on the database's disk (in memory with -db :memory:); a save past it is refused with 400002 and keeps nothing (negative: no bound)")
	fs.BoolVar(&o.webhookLinkLocal, "webhook-allow-link-local", false, "let webhooks deliver to link-local and cloud metadata addresses (169.254.169.254, fe80::/10, metadata.google.internal), refused by default")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.DurationVar(&o.posHealthInterval, "pos-health-interval", 30*time.Second, "how often universal POS health is checked")
	fs.DurationVar(&o.menuSyncInterval, "menu-sync-interval", 5*time.Minute, "how often universal POS menus are synced")
	fs.BoolVar(&o.validate, "validate", false, "check every API request against the OpenAPI document (400002/400003 for requests it forbids)")
	fs.Int64Var(&o.startCheckBytes, "start-check-bytes", store.DefaultForegroundCheck,
		"largest database file checked in full before the server starts serving; a larger one is checked in the background, and damage found then stops the server (negative: every file)")
	fs.StringVar(&o.pprofAddr, "pprof", "", "serve Go runtime profiles (/debug/pprof/) on this address, e.g. 127.0.0.1:6060 (off when empty)")
	fs.StringVar(&o.metricsAddr, "metrics", "", "serve metrics in the Prometheus text format (/metrics) on this address, e.g. 127.0.0.1:9464 (off when empty)")
	fs.BoolVar(&o.metricsPublic, "metrics-public", false, "allow -metrics on an address that other machines can reach")
	fs.Func("admin-host", "a host name, besides loopback ones, under which the admin API and the console answer (comma-separated list; may be repeated)", func(v string) error {
		for h := range strings.SplitSeq(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				o.adminHosts = append(o.adminHosts, h)
			}
		}
		return nil
	})
	fs.StringVar(&o.publicURL, "public-url", "", "the http base URL clients reach the server by, when not the -addr one (a container's mapped port: http://localhost:18080); its host may reach the admin API")
	fs.StringVar(&o.publicTLSURL, "public-tls-url", "", "the https base URL clients reach the server by, when not the -tls-addr one; providerD's tokenisationUri is under it")
	fs.DurationVar(&o.timeouts.readHeader, "read-header-timeout", 10*time.Second, "longest time a client may take to send a request's headers")
	fs.DurationVar(&o.timeouts.read, "read-timeout", 30*time.Second, "longest time a client may take to send a whole request, body included")
	// Past the longest injected fault latency (one minute) and a call to a
	// POS (10 s), so that no answer the sandbox means to give is cut off.
	fs.DurationVar(&o.timeouts.write, "write-timeout", 90*time.Second, "longest time from the end of a request's headers to the end of its response")
	fs.DurationVar(&o.timeouts.idle, "idle-timeout", 60*time.Second, "how long a keep-alive connection may wait for its next request")
	fs.BoolVar(&o.version, "version", false, "print the version, commit and Go version, and exit")
	fs.Usage = func() { envUsage(fs) }
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if o.version {
		return o, nil
	}
	if err := setFromEnv(fs, lookup); err != nil {
		return o, err
	}
	if o.adminKey == "" {
		return o, errors.New("-admin-key must not be empty")
	}
	if o.rateLimit < 0 {
		return o, errors.New("-rate-limit must not be negative")
	}
	if o.maxFeedWaits < 1 || o.maxFeedWaitsKey < 1 {
		return o, errors.New("-max-feed-waits and -max-feed-waits-per-key must be positive")
	}
	if o.maxSnapshots == 0 || o.maxSnapshotsBytes == 0 {
		return o, errors.New("-max-snapshots and -max-snapshots-bytes must not be 0 (negative: no bound)")
	}
	if o.posHealthInterval <= 0 || o.menuSyncInterval <= 0 {
		return o, errors.New("-pos-health-interval and -menu-sync-interval must be positive")
	}
	if t := o.timeouts; t.readHeader <= 0 || t.read <= 0 || t.write <= 0 || t.idle <= 0 {
		return o, errors.New("-read-header-timeout, -read-timeout, -write-timeout and -idle-timeout must be positive")
	}
	return o, nil
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return l, fmt.Errorf("-log-level: %w", err)
	}
	return l, nil
}

// run parses args, starts the server and serves until ctx ends, then shuts
// down gracefully: the listeners stop accepting, in-flight requests finish
// (up to shutdownTimeout), the workers stop and the database is closed.
// ready, when not nil, is called with the bound addresses once serving.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(httpAddr, tlsAddr string)) error {
	o, err := parseFlags(args, stderr, os.LookupEnv)
	if err != nil {
		return err
	}
	if o.version {
		_, err := fmt.Fprintln(stdout, versionLine())
		return err
	}
	level, err := parseLevel(o.logLevel)
	if err != nil {
		return err
	}
	logOut := newLogWriter(stderr)
	defer logOut.Close() // last: what the shutdown logs is written too
	logger := slog.New(newTextHandler(logOut, level))

	ln, tln, err := listenBoth(o)
	if err != nil {
		return err
	}
	defer ln.Close()
	defer tln.Close()
	// The default key is printed in the README: on an address that other
	// machines reach it would hand them the admin API, the console and
	// every demo credential.
	if o.adminKey == DefaultAdminKey {
		for _, l := range []struct {
			flag, addr string
			ln         net.Listener
		}{{"-addr", o.addr, ln}, {"-tls-addr", o.tlsAddr, tln}} {
			if isExposed(l.ln.Addr()) {
				return fmt.Errorf("refusing the well-known default admin key on %s %s, which other machines can reach: set -admin-key (or REFSERVER_ADMIN_KEY) to a secret of your own, or listen on a loopback address such as 127.0.0.1", l.flag, l.addr)
			}
		}
	}

	otlp, err := startOTLP(ctx, os.Getenv, logger)
	if err != nil {
		return err
	}
	defer otlp.shutdown(context.WithoutCancel(ctx)) // after the server: its last spans go too
	metrics, err := listenMetrics(o, logger, otlp.metricReaders(), otlp.res)
	if err != nil {
		return err
	}
	defer metrics.close()

	srv, err := refserver.New(refserver.Config{
		DBPath:                 o.db,
		AdminKey:               o.adminKey,
		BaseURL:                "http://" + publicAddr(ln.Addr()),
		TLSURL:                 "https://" + publicAddr(tln.Addr()),
		PublicURL:              o.publicURL,
		PublicTLSURL:           o.publicTLSURL,
		Logger:                 logger,
		RateLimit:              o.rateLimit,
		RateBurst:              o.rateBurst,
		MaxInFlight:            o.maxInFlight,
		MaxFeedWaits:           o.maxFeedWaits,
		MaxFeedWaitsPerKey:     o.maxFeedWaitsKey,
		MaxSnapshots:           o.maxSnapshots,
		MaxSnapshotsBytes:      o.maxSnapshotsBytes,
		AllowLinkLocalWebhooks: o.webhookLinkLocal,
		POSHealthInterval:      o.posHealthInterval,
		MenuSyncInterval:       o.menuSyncInterval,
		ValidateRequests:       o.validate,
		AdminHosts:             o.adminHosts,
		StartCheckBytes:        o.startCheckBytes,
		MeterProvider:          metrics.provider(),
		TracerProvider:         otlp.tracerProvider(),
	})
	if err != nil {
		return err
	}
	defer srv.Close()

	fixtures, err := srv.Fixtures(ctx)
	if err != nil {
		return err
	}
	public := srv.PublicURLs()
	banner{
		baseURL: public.URL, tlsURL: public.TLSURL,
		caPath: srv.CACertPath(), db: o.db, adminKey: o.adminKey,
		fixtures: fixtures, clockOffset: srv.ClockOffset(),
	}.write(stdout)

	if o.pprofAddr != "" {
		pln, err := servePprof(o.pprofAddr, logger)
		if err != nil {
			return fmt.Errorf("-pprof: %w", err)
		}
		defer pln.Close()
	}

	errLog := slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	httpSrv := newHTTPServer(srv.Handler(), o.timeouts, errLog)
	tlsSrv := newHTTPServer(srv.Handler(), o.timeouts, errLog)
	// Shutdown waits for requests in flight; a feed request waiting for
	// events would hold it for up to 30 s.
	httpSrv.RegisterOnShutdown(srv.StopWaits)
	tlsSrv.RegisterOnShutdown(srv.StopWaits)
	errc := make(chan error, 2)
	go func() { errc <- httpSrv.Serve(ln) }()
	go func() { errc <- tlsSrv.Serve(tls.NewListener(tln, srv.TLSConfig())) }()
	if ready != nil {
		logOut.Flush() // the start-up lines are out before the caller looks
		ready(ln.Addr().String(), tln.Addr().String())
	}

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	case serveErr = <-srv.Damaged():
		// A large file is checked after start; damage found then stops
		// the server with the same message a small file gets at start.
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	var wg sync.WaitGroup
	var shutErr [2]error
	wg.Go(func() { shutErr[0] = httpSrv.Shutdown(sctx) })
	wg.Go(func() { shutErr[1] = tlsSrv.Shutdown(sctx) })
	wg.Wait()
	closeErr := srv.Close()
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return errors.Join(serveErr, shutErr[0], shutErr[1], closeErr)
}
