package e2e_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // reads the server's database in tests

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/refserver/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// Test cards of the sandbox: any Luhn-valid number tokenises.
const visaNumber = "4111111111111111"

// testCard returns card details that expire in three years.
func testCard() wallet.CardDetails {
	return wallet.CardDetails{
		Number: visaNumber, CVC: "739", ExpiryMonth: 7,
		ExpiryYear: (time.Now().UTC().Year() + 3) % 100, HolderName: "E2E Diner",
	}
}

// attempt is one HTTP attempt that left an SDK client.
type attempt struct {
	Method   string
	Path     string
	Key      string // Idempotency-Key header
	Status   int    // 0 when the attempt got no response
	Replayed bool   // Idempotent-Replayed: true
	Err      error
}

// recorder is an http.RoundTripper that records every attempt, so a test can
// see the SDK's retries: how many attempts, with which Idempotency-Key, and
// whether the server replayed a stored response.
type recorder struct {
	base http.RoundTripper

	mu       sync.Mutex
	attempts []attempt
}

func newRecorder() *recorder {
	t := http.DefaultTransport.(*http.Transport).Clone()
	return &recorder{base: t}
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	a := attempt{Method: req.Method, Path: req.URL.Path, Key: req.Header.Get(client.HeaderIdempotencyKey), Err: err}
	if resp != nil {
		a.Status = resp.StatusCode
		a.Replayed = resp.Header.Get("Idempotent-Replayed") == "true"
	}
	r.mu.Lock()
	r.attempts = append(r.attempts, a)
	r.mu.Unlock()
	return resp, err
}

// take returns the attempts recorded since the last take and forgets them.
func (r *recorder) take() []attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.attempts
	r.attempts = nil
	return out
}

// on returns the attempts of as whose path starts with prefix.
func on(as []attempt, method, prefix string) []attempt {
	var out []attempt
	for _, a := range as {
		if a.Method == method && strings.HasPrefix(a.Path, prefix) {
			out = append(out, a)
		}
	}
	return out
}

// fault is the body of POST /sandbox/faults.
type fault struct {
	Method      string `json:"method"`
	PathPrefix  string `json:"pathPrefix"`
	Status      int    `json:"status"`
	Count       int    `json:"count,omitempty"`
	LatencyMs   int    `json:"latencyMs,omitempty"`
	AfterCommit bool   `json:"afterCommit,omitempty"`
}

// server is a running reference server as the tests see it.
type server struct {
	URL      string
	TLSURL   string // the HTTPS listener; "" when there is none
	AdminKey string
	DBPath   string
	RootCAs  *x509.CertPool // trusts the sandbox CA (providerD's HTTPS)

	// inFlight counts the requests the server is handling; nil when
	// unknown (startChecked).
	inFlight *atomic.Int64
}

// waitIdle waits until the server has finished every request it was
// handling, including ones their client has given up on.
func (s server) waitIdle(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for s.inFlight.Load() > 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("%d requests still in flight", s.inFlight.Load())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// startChecked starts a server with refservertest, which also checks every
// request and response against the OpenAPI document.
func startChecked(t *testing.T) server {
	t.Helper()
	env := refservertest.Start(t)
	return server{URL: env.URL, TLSURL: env.TLSURL, AdminKey: env.AdminKey, DBPath: env.DBPath, RootCAs: env.RootCAs}
}

// startUnchecked starts a server on a plain httptest listener, without the
// OpenAPI response check of refservertest. The check reports a request that
// the client abandoned during injected latency (the server writes nothing,
// which net/http sends as an empty 200) as a mismatch, so the latency tests
// use this.
func startUnchecked(t *testing.T) server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "refserver.db")
	srv, err := refserver.New(refserver.Config{
		DBPath:   dbPath,
		AdminKey: refservertest.AdminKey,
		BaseURL:  "http://" + ln.Addr().String(),
		TLSURL:   "https://127.0.0.1:1", // providerD is not used with this server
	})
	if err != nil {
		t.Fatal(err)
	}
	inFlight := new(atomic.Int64)
	h := srv.Handler()
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Add(1)
		defer inFlight.Add(-1)
		h.ServeHTTP(w, r)
	}))
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(srv.CACertPEM())
	return server{URL: ts.URL, AdminKey: refservertest.AdminKey, DBPath: dbPath, RootCAs: pool, inFlight: inFlight}
}

// httpsClient returns a client that trusts the sandbox CA.
func (s server) httpsClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: s.RootCAs, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: t}
}

// sdkClient returns an SDK client for s with short retry waits; opts come
// last and win.
func (s server) sdkClient(t testing.TB, opts ...client.Option) *client.Client {
	t.Helper()
	all := append([]client.Option{
		client.WithBaseURL(s.URL),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 3, MinBackoff: 5 * time.Millisecond,
			MaxBackoff: 50 * time.Millisecond, MaxRetryAfter: 100 * time.Millisecond}),
		client.WithTimeout(30 * time.Second),
	}, opts...)
	c, err := client.New(all...)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return c
}

// admin calls the sandbox admin API (POST with a JSON body, or GET when
// body is nil and method is GET) and decodes the answer into out.
func adminCall(t testing.TB, admin *client.Client, method, path string, body, out any) {
	t.Helper()
	if _, err := admin.Do(t.Context(), &client.Request{Method: method, Path: path, Body: body, Auth: client.AuthAdminKey}, out); err != nil {
		t.Fatalf("%s /%s: %v", method, path, err)
	}
}

// newUser creates a sandbox user.
func newUser(t testing.TB, admin *client.Client) (int64, string) {
	t.Helper()
	var out struct {
		UserID      int64  `json:"userId"`
		AccessToken string `json:"accessToken"`
	}
	adminCall(t, admin, http.MethodPost, "sandbox/users", nil, &out)
	return out.UserID, out.AccessToken
}

// newLocation creates a location without a universal POS.
func newLocation(t testing.TB, admin *client.Client, name, gateway string) (int64, string) {
	t.Helper()
	var out struct {
		LocationID     int64  `json:"locationId"`
		POSAccessToken string `json:"posAccessToken"`
	}
	adminCall(t, admin, http.MethodPost, "sandbox/locations", map[string]any{"name": name, "gateway": gateway}, &out)
	return out.LocationID, out.POSAccessToken
}

// newAPIKey creates a vendor API key scoped to locations.
func newAPIKey(t testing.TB, admin *client.Client, locations ...int64) string {
	t.Helper()
	var out struct {
		APIKey string `json:"apiKey"`
	}
	adminCall(t, admin, http.MethodPost, "sandbox/api-keys", map[string]any{"locationIds": locations}, &out)
	return out.APIKey
}

// fixtures returns the demo fixture.
func fixtures(t testing.TB, admin *client.Client) sandbox.Fixtures {
	t.Helper()
	var f sandbox.Fixtures
	adminCall(t, admin, http.MethodGet, "sandbox/fixtures", nil, &f)
	return f
}

// world is a running server and the SDK clients of one test: an admin
// client, a user (with a providerB card once addCard ran), a providerB
// location whose POS is online, and a recorder under every client except
// the admin's.
type world struct {
	srv   server
	admin *client.Client
	rec   *recorder
	db    *sql.DB // read-only view of the server's database

	userID int64
	userTk string
	user   *client.Client
	wallet *wallet.Service
	order  *fulfillment.Service
	cardID int64

	locID  int64
	posTk  string
	pos    *possync.Service
	apiKey string
	bills  *bills.Service

	// demoLoc is a demo location, wired to the built-in universal POS and
	// so with a menu to order from.
	demoLoc int64
}

// newWorld starts a checked server and sets up the world. opts are added
// to every SDK client (not the admin's).
func newWorld(t *testing.T, opts ...client.Option) *world {
	t.Helper()
	return newWorldOn(t, startChecked(t), opts...)
}

// newWorldOn sets up the world on srv.
func newWorldOn(t *testing.T, srv server, opts ...client.Option) *world {
	t.Helper()
	w := &world{srv: srv, rec: newRecorder()}
	w.admin = srv.sdkClient(t, client.WithAdminKey(srv.AdminKey))
	w.db = openDB(t, srv.DBPath)

	sdk := func(extra ...client.Option) *client.Client {
		all := append([]client.Option{client.WithHTTPClient(&http.Client{Transport: w.rec})}, opts...)
		return srv.sdkClient(t, append(all, extra...)...)
	}
	w.userID, w.userTk = newUser(t, w.admin)
	w.user = sdk(client.WithAccessToken(w.userTk))
	w.wallet = wallet.NewService(w.user, wallet.WithProviderRootCAs(srv.RootCAs))
	w.order = fulfillment.NewService(w.user)
	w.locID, w.posTk = newLocation(t, w.admin, "Fault Kitchen", string(wallet.ProviderB))
	w.pos = possync.NewService(sdk(client.WithAccessToken(w.posTk)))
	w.apiKey = newAPIKey(t, w.admin, w.locID)
	w.bills = bills.NewService(sdk(client.WithAPIKey(w.apiKey)))
	w.demoLoc = fixtures(t, w.admin).Locations[0].LocationID
	if _, err := w.pos.Heartbeat(t.Context(), w.locID); err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	w.rec.take()
	return w
}

// addCard gives the world's user a providerB card (once).
func (w *world) addCard(t *testing.T) int64 {
	t.Helper()
	if w.cardID == 0 {
		c, err := w.wallet.AddCard(t.Context(), wallet.AddCardRequest{Card: testCard(), Providers: []wallet.Gateway{wallet.ProviderB}})
		if err != nil {
			t.Fatalf("AddCard: %v", err)
		}
		w.cardID = c.CardID
		w.rec.take()
	}
	return w.cardID
}

// check returns an open check of the world's location.
func (w *world) check(number int64, outstanding string) *possync.Check {
	amt := client.MustParseMoney(outstanding)
	return &possync.Check{
		TableNumber: 7, CheckNumber: number, LocationID: w.locID, StaffID: "s-1", Guests: 2,
		Status: possync.CheckOpen, TotalAmount: amt, OutstandingAmount: amt,
		Discounts: []possync.Discount{},
		MenuItems: []possync.MenuItem{{ID: 1, Name: "Chowder", Quantity: 1, Price: amt, PriceSold: amt,
			Category: possync.Category{Name: "Mains"}}},
	}
}

// pushCheck pushes a fresh open check and returns it.
func (w *world) pushCheck(t *testing.T, number int64, outstanding string) possync.PushResult {
	t.Helper()
	res, err := w.pos.PushCheck(t.Context(), w.check(number, outstanding))
	if err != nil {
		t.Fatalf("push check %d: %v", number, err)
	}
	w.rec.take()
	return res
}

// pay makes a payment of amount towards check number.
func (w *world) pay(t *testing.T, number int64, amount string) wallet.Payment {
	t.Helper()
	p, err := w.wallet.CreatePayment(t.Context(), w.payment(t, number, amount))
	if err != nil {
		t.Fatalf("CreatePayment: %v", err)
	}
	w.rec.take()
	return p
}

func (w *world) payment(t *testing.T, number int64, amount string) wallet.CreatePaymentRequest {
	return wallet.CreatePaymentRequest{LocationID: w.locID, CheckNumber: number, CardID: w.addCard(t),
		Amount: client.MustParseMoney(amount), Tip: client.MustParseMoney("0.50")}
}

// waitForMenu waits until the demo location's menu has been synced from
// the built-in universal POS, which happens in the background at start.
func (w *world) waitForMenu(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for {
		m, err := w.order.Menu(ctx, w.demoLoc)
		if err == nil && len(m.Menus) > 0 {
			w.rec.take()
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the demo location's menu never synced (last error %v)", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// orderRequest is a one-line order from the demo menu.
func (w *world) orderRequest() fulfillment.OrderRequest {
	return fulfillment.OrderRequest{LocationID: w.demoLoc, Items: []fulfillment.OrderLine{{PLU: "SD-FRIES", Quantity: 2}}}
}

// addFault registers f through the SDK's admin credential.
func (w *world) addFault(t *testing.T, f fault) sandbox.Fault {
	t.Helper()
	var out sandbox.Fault
	if _, err := w.admin.Do(t.Context(), &client.Request{Method: http.MethodPost, Path: "sandbox/faults", Body: f, Auth: client.AuthAdminKey}, &out); err != nil {
		t.Fatalf("POST /sandbox/faults %+v: %v", f, err)
	}
	return out
}

// faults lists the active faults.
func (w *world) faults(t *testing.T) []sandbox.Fault {
	t.Helper()
	var out struct {
		Faults []sandbox.Fault `json:"faults"`
	}
	if _, err := w.admin.Do(t.Context(), &client.Request{Path: "sandbox/faults", Auth: client.AuthAdminKey}, &out); err != nil {
		t.Fatalf("GET /sandbox/faults: %v", err)
	}
	return out.Faults
}

// clearFaults removes every fault.
func (w *world) clearFaults(t *testing.T) {
	t.Helper()
	if _, err := w.admin.Do(t.Context(), &client.Request{Method: http.MethodDelete, Path: "sandbox/faults", Auth: client.AuthAdminKey}, nil); err != nil {
		t.Fatalf("DELETE /sandbox/faults: %v", err)
	}
}

// openDB opens a read-only view of the server's database file. SQLite's WAL
// lets it read beside the server's own connections.
func openDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+url.PathEscape(path)+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// count runs a SELECT COUNT(*)-like query returning one integer.
func count(t testing.TB, db *sql.DB, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// ignoredTables are left out of a database dump: bookkeeping that a refused
// request may legitimately touch (none should, but the idempotency records
// are not data) and SQLite's own tables.
var ignoredTables = []string{"idempotency_keys"}

// volatileColumns change on their own while the server runs (the universal
// POS monitor's health checks and menu syncs), whatever the requests do.
var volatileColumns = map[string][]string{
	"locations": {"pos_health", "pos_health_message", "pos_health_checked_at", "menu_json", "menu_synced_at"},
}

// dump returns every row of every table, as text, for before/after
// comparisons.
func dump(t testing.TB, db *sql.DB) map[string][]string {
	t.Helper()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ignoredTables, n) {
			tables = append(tables, n)
		}
	}
	rows.Close()
	out := map[string][]string{}
	for _, table := range tables {
		out[table] = dumpTable(t, db, table)
	}
	return out
}

func dumpTable(t testing.TB, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT * FROM "` + table + `"`)
	if err != nil {
		t.Fatalf("dump %s: %v", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		var b strings.Builder
		for i, c := range cols {
			if slices.Contains(volatileColumns[table], c) {
				continue
			}
			v := vals[i]
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			fmt.Fprintf(&b, "%s=%v ", c, v)
		}
		lines = append(lines, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("dump %s: %v", table, err)
	}
	slices.Sort(lines)
	return lines
}
