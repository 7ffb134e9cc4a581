// Package refservertest runs the reference server in-process for tests:
// a temporary SQLite file, real HTTP and HTTPS listeners on free loopback
// ports, and helpers for the sandbox admin API. The venue helpers set up
// what most end-to-end tests need: a location whose POS pushes checks and
// heartbeats, and a diner with a card who pays there.
//
//	func TestSomething(t *testing.T) {
//		env := refservertest.Start(t)
//		v := env.NewVenue(t, refservertest.VenueConfig{Name: "Harbour"})
//		v.Heartbeat(t)
//		v.PushCheck(t, v.OpenCheck(1, "20.00"))
//		d := env.NewDiner(t)
//		d.AddCard(t, "4111111111111111", v.Gateway)
//		d.Pay(t, v, 1, "5.00", "0.50")
//		v.AcceptAll(t)
//		...
//	}
//
// Everything is cleaned up with t.Cleanup.
package refservertest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/refserver/openapi"
	"github.com/hospo-dev/hospo-go/refserver/sim"
)

// AdminKey is the admin key of servers started by Start (unless an option
// changes it).
const AdminKey = "test-admin-key"

// Env is a running reference server.
type Env struct {
	URL      string // http base URL, no trailing slash
	TLSURL   string // https base URL
	AdminKey string
	DBPath   string
	CAPEM    []byte         // the sandbox CA certificate
	RootCAs  *x509.CertPool // a pool holding CAPEM
	Server   *refserver.Server

	cfg     refserver.Config
	wrap    func(http.Handler) http.Handler // the OpenAPI check around the server
	handler atomic.Pointer[http.Handler]
	tlsCert atomic.Pointer[tls.Certificate]
	httpSrv *http.Server
	tlsSrv  *http.Server

	// inFlight counts the requests being served, including those whose
	// client has gone.
	inFlight atomic.Int64
}

// Start starts a server on a fresh database in t.TempDir() and stops it when
// the test ends. opts adjust the Options before New (URLs and DBPath are
// already set; an option may replace them, e.g. DBPath ":memory:", or
// start from a snapshot file, FromSnapshot).
// Set HOSPO_REFSERVER_LOG=1 to see the server's log on stderr.
//
// Every request to the server and every response from it is checked
// against the server's OpenAPI document (refserver/openapi), and a mismatch
// fails t: the document cannot drift from the server. A request that breaks
// the document is only reported when the server accepted it (2xx or 3xx),
// so tests of invalid input need no option; WithoutRequestValidation turns
// the request check off altogether.
func Start(t testing.TB, opts ...Option) *Env {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("refservertest: listen: %v", err)
	}
	tln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		t.Fatalf("refservertest: listen: %v", err)
	}
	o := Options{Config: refserver.Config{
		DBPath:   filepath.Join(t.TempDir(), "refserver.db"),
		AdminKey: AdminKey,
		BaseURL:  "http://" + ln.Addr().String(),
		TLSURL:   "https://" + tln.Addr().String(),
		Logger:   slog.New(slog.DiscardHandler),
		// A test never sees a 429001 for a providerD key that a machine
		// starved of CPU was slow to make; it waits for the key instead.
		ProviderDKeyWait: time.Minute,
	}}
	if os.Getenv("HOSPO_REFSERVER_LOG") != "" {
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	for _, opt := range opts {
		opt(&o)
	}
	cfg := o.Config
	startFrom(t, cfg.DBPath, o.Snapshot)
	var checks []openapi.CheckOption
	if o.NoRequestChecks {
		checks = append(checks, openapi.WithoutRequestChecks())
	}
	e := &Env{URL: cfg.BaseURL, TLSURL: cfg.TLSURL, AdminKey: cfg.AdminKey, DBPath: cfg.DBPath, cfg: cfg}
	if !o.NoOpenAPIChecks {
		e.wrap = func(h http.Handler) http.Handler { return openapi.ValidatingHandler(t, h, checks...) }
	}
	if err := e.open(); err != nil {
		ln.Close()
		tln.Close()
		t.Fatalf("refservertest: %v", err)
	}

	// The listeners outlive Restart: they serve whichever server is current.
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.inFlight.Add(1)
		defer e.inFlight.Add(-1)
		(*e.handler.Load()).ServeHTTP(w, r)
	})
	// Handshake failures are expected in tests (clients that do not trust
	// the CA); keep them out of the test output.
	quiet := log.New(io.Discard, "", 0)
	var httpConns, tlsConns newConns
	e.httpSrv = &http.Server{Handler: serve, ReadHeaderTimeout: 10 * time.Second, ErrorLog: quiet, ConnState: httpConns.track}
	e.tlsSrv = &http.Server{Handler: serve, ReadHeaderTimeout: 10 * time.Second, ErrorLog: quiet, ConnState: tlsConns.track}
	tlsCfg := e.Server.TLSConfig()
	tlsCfg.Certificates = nil
	tlsCfg.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return e.tlsCert.Load(), nil }
	go func() { _ = e.httpSrv.Serve(ln) }()
	go func() { _ = e.tlsSrv.Serve(tls.NewListener(tln, tlsCfg)) }()

	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e.Server.StopWaits()
		shutdown(ctx, e.httpSrv, &httpConns)
		shutdown(ctx, e.tlsSrv, &tlsConns)
		if err := e.Server.Close(); err != nil {
			t.Errorf("refservertest: close: %v", err)
		}
	})
	return e
}

// Options is what Start starts a server from: the server's Config, and
// what the test harness does around the server. Start fills the Config in
// (a fresh database file, the listeners' URLs, the admin key) before the
// options change it.
type Options struct {
	refserver.Config

	// Snapshot, when not empty, is a SQLite file the server starts on a
	// copy of (FromSnapshot).
	Snapshot string
	// NoRequestChecks stops checking requests against the OpenAPI
	// document (WithoutRequestValidation).
	NoRequestChecks bool
	// NoOpenAPIChecks checks neither requests nor responses against the
	// OpenAPI document (WithoutOpenAPIChecks).
	NoOpenAPIChecks bool
}

// An Option adjusts the Options of Start, usually a field of the server's
// Config:
//
//	env := refservertest.Start(t, func(o *refservertest.Options) { o.JournalSize = 2 })
type Option func(*Options)

// WithConfig is an option of Start that applies f to the server's Config,
// for options written for the Config itself.
func WithConfig(f func(*refserver.Config)) Option {
	return func(o *Options) { f(&o.Config) }
}

// WithoutRequestValidation is an option of Start that stops checking the
// requests of the test against the OpenAPI document; responses are still
// checked. It is for tests that send requests the document forbids and that
// the server nevertheless accepts (unknown members, which the server
// ignores, for instance). Requests the server rejects need no option.
func WithoutRequestValidation() Option {
	return func(o *Options) { o.NoRequestChecks = true }
}

// WithoutOpenAPIChecks is an option of Start that checks neither requests
// nor responses against the OpenAPI document. It is for tests whose
// clients abandon requests on purpose (injected latency beyond their
// timeout): the server then answers no one, and net/http turns that into
// an empty 200, which the response check would report.
func WithoutOpenAPIChecks() Option {
	return func(o *Options) { o.NoOpenAPIChecks = true }
}

// WithFrozenClock is an option of Start that stops the real time under
// the server's virtual clock at the moment the option is applied: the
// clock then moves only by AdvanceClock. A test that reads a state which
// the passing of time ends (a failed webhook attempt before its retry, a
// location online before its heartbeat expires) then reads it however
// slowly the machine runs.
func WithFrozenClock() Option {
	return func(o *Options) {
		at := time.Now()
		o.Now = func() time.Time { return at }
	}
}

// open creates the server from e.cfg and makes it the one served.
func (e *Env) open() error {
	srv, err := refserver.New(e.cfg)
	if err != nil {
		return err
	}
	h := srv.Handler()
	if e.wrap != nil {
		h = e.wrap(h)
	}
	cert := srv.TLSConfig().Certificates[0]
	e.Server = srv
	e.handler.Store(&h)
	e.tlsCert.Store(&cert)
	e.CAPEM = srv.CACertPEM()
	e.RootCAs = x509.NewCertPool()
	e.RootCAs.AppendCertsFromPEM(e.CAPEM)
	return nil
}

// Restart closes the server and opens a new one on the same database file
// and URLs, as a process restart would. Requests in flight during the swap
// may fail.
func (e *Env) Restart(t testing.TB) {
	t.Helper()
	if err := e.Server.Close(); err != nil {
		t.Fatalf("refservertest: restart: close: %v", err)
	}
	if err := e.open(); err != nil {
		t.Fatalf("refservertest: restart: %v", err)
	}
}

// WaitIdle waits until the server has finished every request it was
// handling, including those whose client has given up. The wait is bounded
// only to catch a hang.
func (e *Env) WaitIdle(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for e.inFlight.Load() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("refservertest: %d requests still in flight", e.inFlight.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Client returns an SDK client for the server with short retry waits (so
// that tests exercising retries stay fast). opts come last and win.
func (e *Env) Client(t testing.TB, opts ...client.Option) *client.Client {
	t.Helper()
	all := append([]client.Option{
		client.WithBaseURL(e.URL),
		client.WithRetryPolicy(client.RetryPolicy{
			MaxRetries:    3,
			MinBackoff:    5 * time.Millisecond,
			MaxBackoff:    50 * time.Millisecond,
			MaxRetryAfter: 100 * time.Millisecond,
		}),
		client.WithTimeout(30 * time.Second),
	}, opts...)
	c, err := client.New(all...)
	if err != nil {
		t.Fatalf("refservertest: client: %v", err)
	}
	return c
}

// HTTPSClient returns an *http.Client that trusts the sandbox CA, for the
// HTTPS listener (e.TLSURL).
func (e *Env) HTTPSClient() *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: e.RootCAs, MinVersion: tls.VersionTLS12},
		},
	}
}

// AdminDo sends one request to the admin API (or any path) with the admin
// key and returns the status. body is sent as JSON unless it is nil, a
// []byte or a json.RawMessage (sent as is). When out is non-nil and the
// response has a body, it is decoded into out, whatever the status.
func (e *Env) AdminDo(t testing.TB, method, path string, body, out any) int {
	t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		raw = b
	case json.RawMessage:
		raw = b
	default:
		j, err := json.Marshal(body)
		if err != nil {
			t.Fatalf("refservertest: marshal %s %s body: %v", method, path, err)
		}
		raw = j
	}
	status, data := e.Send(t, method, path, http.Header{client.HeaderAdminKey: {e.AdminKey}}, raw)
	if out != nil && len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("refservertest: %s %s: decode %q: %v", method, path, data, err)
		}
	}
	return status
}

// Send sends one request to the server exactly as given, for what the SDK
// would not send: pathAndQuery is not re-encoded, header is added, and
// body, when not nil, is sent as it is as application/json. It returns
// the status and the response body.
func (e *Env) Send(t testing.TB, method, pathAndQuery string, header http.Header, body []byte) (status int, respBody []byte) {
	t.Helper()
	resp, data := e.send(t, method, pathAndQuery, header, body)
	return resp.StatusCode, data
}

// SendForID sends one request as Send does and returns its status and the
// X-Request-Id the server gave it: the id under which the request journal
// (GET /sandbox/requests) and the console know the request.
func (e *Env) SendForID(t testing.TB, method, pathAndQuery string, header http.Header, body []byte) (status int, requestID string) {
	t.Helper()
	resp, _ := e.send(t, method, pathAndQuery, header, body)
	return resp.StatusCode, resp.Header.Get(client.HeaderRequestID)
}

// send is Send returning the whole response, whose body it has read.
func (e *Env) send(t testing.TB, method, pathAndQuery string, header http.Header, body []byte) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, e.URL+pathAndQuery, rd)
	if err != nil {
		t.Fatalf("refservertest: %s %s: %v", method, pathAndQuery, err)
	}
	for k, vs := range header {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("refservertest: %s %s: %v", method, pathAndQuery, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("refservertest: %s %s: read: %v", method, pathAndQuery, err)
	}
	return resp, data
}

// mustAdmin is AdminDo that fails the test unless the status is want.
func (e *Env) mustAdmin(t testing.TB, want int, method, path string, body, out any) {
	t.Helper()
	var raw json.RawMessage
	if got := e.AdminDo(t, method, path, body, &raw); got != want {
		t.Fatalf("refservertest: %s %s: status %d, want %d: %s", method, path, got, want, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("refservertest: %s %s: decode: %v", method, path, err)
		}
	}
}

// Fixtures returns the demo fixture (GET /sandbox/fixtures).
func (e *Env) Fixtures(t testing.TB) sim.Fixtures {
	t.Helper()
	var f sim.Fixtures
	e.mustAdmin(t, http.StatusOK, http.MethodGet, "/sandbox/fixtures", nil, &f)
	return f
}

// NewUser creates a user (POST /sandbox/users) and returns its id and
// access token.
func (e *Env) NewUser(t testing.TB) (userID int64, accessToken string) {
	t.Helper()
	var out struct {
		UserID      int64  `json:"userId"`
		AccessToken string `json:"accessToken"`
	}
	e.mustAdmin(t, http.StatusCreated, http.MethodPost, "/sandbox/users", nil, &out)
	return out.UserID, out.AccessToken
}

// NewLocation creates a location without a universal POS (POST
// /sandbox/locations) and returns its id and POS access token.
func (e *Env) NewLocation(t testing.TB, name, gateway string) (locationID int64, posToken string) {
	t.Helper()
	var out struct {
		LocationID     int64  `json:"locationId"`
		POSAccessToken string `json:"posAccessToken"`
	}
	e.mustAdmin(t, http.StatusCreated, http.MethodPost, "/sandbox/locations",
		map[string]any{"name": name, "gateway": gateway}, &out)
	return out.LocationID, out.POSAccessToken
}

// NewAPIKey creates a vendor API key scoped to locationIDs (POST
// /sandbox/api-keys) and returns it.
func (e *Env) NewAPIKey(t testing.TB, locationIDs ...int64) string {
	t.Helper()
	var out struct {
		APIKey string `json:"apiKey"`
	}
	e.mustAdmin(t, http.StatusCreated, http.MethodPost, "/sandbox/api-keys",
		map[string]any{"locationIds": locationIDs}, &out)
	return out.APIKey
}

// AdvanceClock moves the virtual clock forward by d (whole seconds; the
// rest is dropped) with POST /sandbox/clock, which returns once the work
// the new time made due has run and committed: read its outcome at once.
func (e *Env) AdvanceClock(t testing.TB, d time.Duration) {
	t.Helper()
	e.mustAdmin(t, http.StatusOK, http.MethodPost, "/sandbox/clock",
		map[string]any{"advanceSeconds": int64(d / time.Second)}, nil)
}

// DBBytes returns the contents of the database file and its WAL, for tests
// that check no secret was stored. It is empty for ":memory:".
func (e *Env) DBBytes(t testing.TB) []byte {
	t.Helper()
	if e.DBPath == ":memory:" {
		return nil
	}
	var all []byte
	for _, p := range []string{e.DBPath, e.DBPath + "-wal"} {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatalf("refservertest: read %s: %v", p, err)
		}
		all = append(all, b...)
	}
	return all
}
