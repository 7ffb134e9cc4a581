package refserver

import (
	"context"
	"crypto/rsa"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hospo-dev/hospo-go/refserver/journal"
	"github.com/hospo-dev/hospo-go/refserver/sim"
)

// Config configures a Server. Zero values get the defaults noted.
type Config struct {
	// DBPath is the SQLite database file, or ":memory:". Required.
	DBPath string
	// AdminKey guards the /sandbox/ admin endpoints (header
	// X-Sandbox-Admin-Key); the demo fixture's credentials are derived
	// from it. Required.
	AdminKey string
	// BaseURL is the http base URL (default http://127.0.0.1:8080). The
	// demo locations' universal POS lives under it, and the server calls
	// it there, so it must reach the server from the server's own machine.
	BaseURL string
	// TLSURL is the https base URL (default https://127.0.0.1:8443).
	TLSURL string
	// PublicURL and PublicTLSURL are the base URLs clients reach the
	// server by, when they are not BaseURL and TLSURL: behind a
	// container's mapped ports or a proxy (default: BaseURL and TLSURL).
	// providerD's tokenisationUri points under PublicTLSURL. Their hosts
	// may reach the admin API, and the TLS certificate names them.
	// Server.SetPublicURLs (PUT /sandbox/public-urls) changes them while
	// the server runs.
	PublicURL    string
	PublicTLSURL string
	// Logger receives one line per request and worker diagnostics. nil
	// discards.
	Logger *slog.Logger
	// RateLimit is the number of requests per second allowed per caller,
	// with bursts of RateBurst (default: RateLimit rounded up, at least 1).
	// The caller is the one its credential proves (a user, a location's
	// POS, a vendor API key); a request without a valid credential counts
	// against its client address. The sandbox admin API is not limited. 0
	// turns rate limiting off.
	RateLimit float64
	RateBurst int
	// Now is the real time source (default time.Now). The virtual clock
	// adds its offset on top.
	Now func() time.Time
	// HTTPClient calls the locations' universal POSes (default: a client
	// with a 10 s timeout).
	HTTPClient *http.Client
	// POSHealthInterval (default 30 s) and MenuSyncInterval (default 5 min)
	// pace the universal POS monitor, on the virtual clock.
	POSHealthInterval time.Duration
	MenuSyncInterval  time.Duration
	// OrderRetryBase (default 1 s) and OrderRetryMax (default 60 s) bound
	// the backoff of order delivery to a universal POS, on the virtual
	// clock.
	OrderRetryBase time.Duration
	OrderRetryMax  time.Duration
	// SweepInterval (default 1 min of the virtual clock) is how often rows
	// past their retention (store.Retentions: idempotency records,
	// providerD keys, ...) are deleted. The retention itself is on the
	// virtual clock, and advancing the clock sweeps at once, so the
	// advance deletes what the jump expired.
	SweepInterval time.Duration
	// StartCheckBytes is the largest database file checked in full before
	// New returns (default store.DefaultForegroundCheck, 256 MiB, about
	// half a second; negative: every file). A larger file is checked in
	// the background once the server runs, so that a database of
	// gigabytes starts in milliseconds; damage found then is delivered on
	// Damaged, and the server should be stopped.
	StartCheckBytes int64
	// WebhookTimeout bounds one attempt at delivering an event to a
	// webhook (default 10 s): a receiver that has not answered by then has
	// failed the attempt.
	WebhookTimeout time.Duration
	// AllowLinkLocalWebhooks lets webhooks deliver to link-local addresses
	// (169.254.0.0/16, fe80::/10) and cloud metadata addresses and names
	// (169.254.169.254, metadata.google.internal, ...), which are refused
	// by default: on a cloud machine they hand out the machine's
	// credentials. Loopback and private addresses are always allowed.
	AllowLinkLocalWebhooks bool
	// ValidateRequests checks every API request (not the sandbox admin
	// endpoints) against the server's OpenAPI document before its handler
	// runs, answering 400002/400003 for requests the document forbids. For
	// integrators whose CI should fail on such requests.
	ValidateRequests bool
	// JournalSize is how many requests the request journal keeps (GET
	// /sandbox/requests and the console): 0 means DefaultJournalSize, a
	// negative size turns the journal off.
	JournalSize int
	// AdminHosts are host names, besides the loopback ones (localhost,
	// 127.0.0.1, ::1) and those of BaseURL and TLSURL, under which the
	// sandbox admin API and the console answer; a request with any other
	// Host header is refused with 403001, so that a web page cannot reach
	// them by pointing its own name at this machine (DNS rebinding). Name
	// the public host here when the sandbox is served beyond loopback.
	AdminHosts []string
	// MaxInFlight bounds the API requests handled at once; further ones
	// wait their turn. 0 means DefaultMaxInFlight, a negative value turns
	// the bound off. Sandbox admin requests are not counted, so the sandbox
	// stays controllable under load, and neither is a request's injected
	// latency.
	MaxInFlight int
	// MaxFeedWaits bounds the event feed requests (GET /v1/events?wait=)
	// waiting for events at once, and MaxFeedWaitsPerKey those of one API
	// key; a request that would wait past either bound is answered 429001
	// at once. A waiting request holds no place under MaxInFlight. 0 means
	// DefaultMaxFeedWaits and DefaultMaxFeedWaitsPerKey.
	MaxFeedWaits       int
	MaxFeedWaitsPerKey int
	// MaxSnapshots bounds how many snapshots (POST /sandbox/snapshots)
	// are kept at once, and MaxSnapshotsBytes the bytes they take
	// together, on the database's disk or, for ":memory:", in memory: each
	// is a whole copy of the database. A save past either bound is refused
	// with a 400002 and keeps nothing. 0 means DefaultMaxSnapshots and
	// DefaultMaxSnapshotsBytes, a negative value turns the bound off.
	MaxSnapshots      int
	MaxSnapshotsBytes int64
	// ProviderDKeyWait is how long GET /v2/payment/providerD/keys waits
	// for the background key maker when its pool is empty before it
	// answers 429001 (default 5 s). Making an RSA key takes one core tens
	// of milliseconds; on a machine starved of CPU it can take seconds, so
	// tests that must not see a 429001 they did not cause wait longer.
	ProviderDKeyWait time.Duration
	// TracerProvider, when set, traces every request (a server span named
	// by its route pattern, continuing the caller's trace from its
	// headers) and every write transaction. MeterProvider, when set,
	// records the server's metrics (see the README's table). Propagator
	// reads the caller's trace context (default W3C Trace Context). Without
	// providers the server records nothing and pays next to nothing.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	Propagator     propagation.TextMapPropagator

	// providerDKeyGen makes providerD's RSA keys (default
	// sim.NewRSAKey); tests hand out a key made once.
	providerDKeyGen func() (*rsa.PrivateKey, error)
	// routeHook lets this package's own tests mount extra routes (a
	// panicking handler, a test-only POST) inside the full middleware
	// chain. It is unexported so nothing outside the package can.
	routeHook func(s *Server, r chi.Router)
	// writeQueued, when set, is called with the context of each write as
	// it enters the database writer's queue (store.NotifyQueued), for
	// tests that order writes.
	writeQueued func(ctx context.Context)
	// inFlightWait, when set, is called by each request that has to wait
	// for a place under MaxInFlight, so tests can see the queue.
	inFlightWait func()
}

// DefaultMaxInFlight is how many API requests are handled at once when
// Config.MaxInFlight is 0.
const DefaultMaxInFlight = 256

// The bounds of waiting feed requests when Config.MaxFeedWaits and
// Config.MaxFeedWaitsPerKey are 0. Each waiting request costs a connection
// and a goroutine, nothing more.
const (
	DefaultMaxFeedWaits       = 1024
	DefaultMaxFeedWaitsPerKey = 128
)

// The bounds of the snapshots kept when Config.MaxSnapshots and
// Config.MaxSnapshotsBytes are 0: room for a scene saved per test of a
// large suite, and for a few dozen copies of a database of 100 MiB.
const (
	DefaultMaxSnapshots      = 100
	DefaultMaxSnapshotsBytes = 4 << 30
)

// DefaultJournalSize is how many requests the request journal keeps when
// Config.JournalSize is 0.
const DefaultJournalSize = journal.DefaultSize

// snapshotLimits returns the bounds of the snapshots that c asks for, its
// zero values made the defaults (sim.SnapshotLimits takes 0 for none).
func (c Config) snapshotLimits() sim.SnapshotLimits {
	l := sim.SnapshotLimits{Count: c.MaxSnapshots, Bytes: c.MaxSnapshotsBytes}
	if l.Count == 0 {
		l.Count = DefaultMaxSnapshots
	}
	if l.Bytes == 0 {
		l.Bytes = DefaultMaxSnapshotsBytes
	}
	return l
}
