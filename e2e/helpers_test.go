package e2e_test

import (
	"database/sql"
	"net/http"
	"strings"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3" // reads the server's database in tests

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/wallet"
)

// visaNumber is a test card number: any Luhn-valid number tokenises in the
// sandbox.
const visaNumber = "4111111111111111"

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

// world is a running server and the SDK clients of one test: an admin
// client, a diner (with a providerB card once addCard ran), a providerB
// venue whose POS is online, and a recorder under every client except the
// admin's.
type world struct {
	env   *refservertest.Env
	admin *client.Client
	rec   *recorder
	db    *sql.DB // read-only view of the server's database

	diner  *refservertest.Diner
	venue  *refservertest.Venue
	apiKey string // scoped to venue
	bills  *bills.Service

	// demoLoc is a demo location, wired to the built-in universal POS and
	// so with a menu to order from.
	demoLoc int64
}

// newWorld starts a server and sets up the world. opts are added to every
// SDK client (not the admin's).
func newWorld(t *testing.T, opts ...client.Option) *world {
	t.Helper()
	return newWorldOn(t, refservertest.Start(t), opts...)
}

// newWorldOn sets up the world on env.
func newWorldOn(t *testing.T, env *refservertest.Env, opts ...client.Option) *world {
	t.Helper()
	w := &world{env: env, rec: newRecorder()}
	w.admin = env.Client(t, client.WithAdminKey(env.AdminKey))
	w.db = env.ReadDB(t)

	sdk := append([]client.Option{client.WithHTTPClient(&http.Client{Transport: w.rec})}, opts...)
	w.diner = env.NewDiner(t, sdk...)
	w.venue = env.NewVenue(t, refservertest.VenueConfig{Name: "Fault Kitchen", ClientOptions: sdk})
	w.apiKey = w.venue.NewAPIKey(t)
	w.bills = bills.NewService(env.Client(t, append(sdk, client.WithAPIKey(w.apiKey))...))
	w.demoLoc = env.Fixtures(t).Locations[0].LocationID
	w.venue.Heartbeat(t)
	w.rec.take()
	return w
}

// addCard gives the world's diner a providerB card (once).
func (w *world) addCard(t *testing.T) int64 {
	t.Helper()
	if w.diner.Card.CardID == 0 {
		w.diner.AddCard(t, visaNumber, wallet.ProviderB)
		w.rec.take()
	}
	return w.diner.Card.CardID
}

// check returns an open check of the world's venue.
func (w *world) check(number int64, outstanding string) *possync.Check {
	c := w.venue.OpenCheck(number, outstanding)
	return &c
}

// pushCheck pushes a fresh open check and returns it.
func (w *world) pushCheck(t *testing.T, number int64, outstanding string) possync.PushResult {
	t.Helper()
	res := w.venue.PushCheck(t, w.venue.OpenCheck(number, outstanding))
	w.rec.take()
	return res
}

// pay makes a payment of amount towards check number.
func (w *world) pay(t *testing.T, number int64, amount string) wallet.Payment {
	t.Helper()
	w.addCard(t)
	p := w.diner.Pay(t, w.venue, number, amount, "0.50")
	w.rec.take()
	return p
}

func (w *world) payment(t *testing.T, number int64, amount string) wallet.CreatePaymentRequest {
	return wallet.CreatePaymentRequest{LocationID: w.venue.ID, CheckNumber: number, CardID: w.addCard(t),
		Amount: client.MustParseMoney(amount), Tip: client.MustParseMoney("0.50")}
}

// waitForMenu waits until the demo location's menu has been synced from
// the built-in universal POS, which happens in the background at start.
func (w *world) waitForMenu(t *testing.T) {
	t.Helper()
	w.env.WaitForMenu(t, w.demoLoc)
}

// orderRequest is a one-line order from the demo menu.
func (w *world) orderRequest() fulfillment.OrderRequest {
	return fulfillment.OrderRequest{LocationID: w.demoLoc, Items: []fulfillment.OrderLine{{PLU: "SD-FRIES", Quantity: 2}}}
}

// addFault registers f through the SDK's admin credential.
func (w *world) addFault(t *testing.T, f fault) sim.Fault {
	t.Helper()
	var out sim.Fault
	if _, err := w.admin.Do(t.Context(), &client.Request{Method: http.MethodPost, Path: "sandbox/faults", Body: f, Auth: client.AuthAdminKey}, &out); err != nil {
		t.Fatalf("POST /sandbox/faults %+v: %v", f, err)
	}
	return out
}

// faults lists the active faults.
func (w *world) faults(t *testing.T) []sim.Fault {
	t.Helper()
	var out struct {
		Faults []sim.Fault `json:"faults"`
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
// are not data).
var ignoredTables = []string{"idempotency_keys"}

// dump returns every row of every table of env's database but the ignored
// ones, as text, for before/after comparisons.
func dump(t testing.TB, env *refservertest.Env) map[string][]string {
	t.Helper()
	rows := env.Rows(t)
	for _, table := range ignoredTables {
		delete(rows, table)
	}
	return rows
}
