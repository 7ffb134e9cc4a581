package e2e_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/internal/bintest"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// crashAdminKey is the admin key of the crash test's server.
const crashAdminKey = "crash-test-admin-key"

// TestCrashRecovery runs the refserver binary on a database file under a
// steady mixed load (check pushes, heartbeats, user creation, payments),
// kills it with SIGKILL several times and restarts it on the same file.
// Afterwards every request that got a 2xx must be there, and the database
// must pass PRAGMA integrity_check. The kills are paced by progress (a
// number of successful requests since the start), never by the clock.
func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	bin, dbPath := crashBinary(t)

	srv := startBinary(t, bin, dbPath)
	setup := newCrashSetup(t, srv.URL)
	ld := &load{setup: setup, hc: &http.Client{Timeout: 10 * time.Second}}
	ld.base.Store(&srv.URL)
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	const workers = 4
	for i := range workers {
		wg.Go(func() { ld.run(ctx, i) })
	}

	const kills = 4
	for k := range kills {
		ld.waitProgress(t, 100) // successful requests since this start
		kill(t, srv)
		t.Logf("kill %d: %d requests answered 2xx so far", k+1, ld.acked.Load())
		srv = startBinary(t, bin, dbPath)
		ld.base.Store(&srv.URL)
	}
	ld.waitProgress(t, 100)
	stop()
	wg.Wait()

	// Everything acknowledged is served by the restarted server...
	ld.verifyUsers(t, srv.URL)
	// ...and is in the file after one last crash.
	kill(t, srv)
	db, err := sql.Open("sqlite3", dbPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var integrity string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("PRAGMA integrity_check = %q, %v", integrity, err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM pragma_foreign_key_check`); n != 0 {
		t.Errorf("%d foreign key violations", n)
	}
	ld.verifyDB(t, db)
	t.Logf("%d requests answered 2xx over %d crashes: %d checks, %d users, %d payments, %d heartbeats",
		ld.acked.Load(), kills+1, len(ld.checks), len(ld.users), len(ld.payments), len(ld.heartbeats))
}

// crashBinary builds the server binary for a test that kills it, and
// returns it with the path of a database file beside it. It skips the
// test under -short.
func crashBinary(t *testing.T) (bin, dbPath string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	dir := t.TempDir()
	return bintest.Build(t, dir, "./refserver/cmd/refserver"), filepath.Join(dir, "refserver.db")
}

// startBinary starts the server on dbPath, on ports the system picks, and
// returns once its banner names its HTTP address.
func startBinary(t *testing.T, bin, dbPath string) *bintest.Server {
	t.Helper()
	return bintest.Start(t, exec.Command(bin, "-db", dbPath, "-addr", "127.0.0.1:0", "-tls-addr", "127.0.0.1:0",
		"-admin-key", crashAdminKey, "-log-level", "warn", "-rate-limit", "0"))
}

// kill ends the process with SIGKILL and reaps it.
func kill(t *testing.T, b *bintest.Server) {
	t.Helper()
	if err := b.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill: %v", err)
	}
	err := b.Cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("refserver ended with %v, not by SIGKILL; stderr:\n%s", err, b.Stderr)
	}
}

// crashSetup is what the load needs: a providerB location with its POS
// token and a user with a card that can pay there.
type crashSetup struct {
	locID     int64
	posToken  string
	userToken string
	cardID    int64
}

// adminCall calls the sandbox admin API of the crash test's server through
// the SDK client admin and decodes the answer into out.
func adminCall(t testing.TB, admin *client.Client, method, path string, body, out any) {
	t.Helper()
	if _, err := admin.Do(t.Context(), &client.Request{Method: method, Path: path, Body: body, Auth: client.AuthAdminKey}, out); err != nil {
		t.Fatalf("%s /%s: %v", method, path, err)
	}
}

func newCrashSetup(t *testing.T, base string) crashSetup {
	t.Helper()
	admin, err := client.New(client.WithBaseURL(base), client.WithAdminKey(crashAdminKey))
	if err != nil {
		t.Fatal(err)
	}
	var s crashSetup
	var loc struct {
		LocationID     int64  `json:"locationId"`
		POSAccessToken string `json:"posAccessToken"`
	}
	adminCall(t, admin, http.MethodPost, "sandbox/locations", map[string]any{"name": "Crash Diner", "gateway": wallet.ProviderB}, &loc)
	s.locID, s.posToken = loc.LocationID, loc.POSAccessToken
	var user struct {
		AccessToken string `json:"accessToken"`
	}
	adminCall(t, admin, http.MethodPost, "sandbox/users", nil, &user)
	s.userToken = user.AccessToken
	uc, err := client.New(client.WithBaseURL(base), client.WithAccessToken(s.userToken))
	if err != nil {
		t.Fatal(err)
	}
	card, err := wallet.NewService(uc).AddCard(t.Context(), wallet.AddCardRequest{Card: refservertest.Card(visaNumber), Providers: []wallet.Gateway{wallet.ProviderB}})
	if err != nil {
		t.Fatalf("AddCard: %v", err)
	}
	s.cardID = card.CardID
	return s
}

// pushRecord is one check push of the load.
type pushRecord struct {
	checkNumber int64
	outstanding int64 // cents
	acked       bool
	billID      string
	version     int64
}

// load is the mixed load of the crash test and its record of every
// request that was answered with a 2xx.
type load struct {
	setup crashSetup
	hc    *http.Client
	base  atomic.Pointer[string] // the current server's URL

	acked    atomic.Int64 // 2xx answers in all
	progress atomic.Int64 // 2xx answers since the last waitProgress

	mu         sync.Mutex
	checks     map[int64][]pushRecord // by check number, in the order sent
	users      map[int64]string       // userId -> access token
	payments   map[int64]int64        // paymentId -> check number
	heartbeats []int64                // serverTime of each acknowledged heartbeat
}

// run is one worker: it cycles through the request kinds until ctx ends.
// Each worker owns its check numbers, so pushes of one check are never
// concurrent and "the last push sent" is well defined.
func (l *load) run(ctx context.Context, worker int) {
	rng := rand.New(rand.NewPCG(uint64(worker), 42))
	check := int64(worker+1) * 1_000_000
	var payable []int64 // acknowledged checks of this worker
	for i := 0; ctx.Err() == nil; i++ {
		var ok bool
		switch i % 4 {
		case 0:
			if i%20 == 0 {
				check++ // a new check now and then; otherwise an update
			}
			var acked bool
			acked, ok = l.pushCheck(ctx, check, 10_000+int64(rng.IntN(10_000)))
			if acked && !containsInt(payable, check) {
				payable = append(payable, check)
			}
		case 1:
			ok = l.heartbeat(ctx)
		case 2:
			ok = l.createUser(ctx)
		case 3:
			if len(payable) > 0 {
				ok = l.pay(ctx, payable[rng.IntN(len(payable))])
			}
		}
		if !ok {
			// The server is down or restarting: do not spin.
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

func containsInt(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// call sends one request to the current server and decodes a 2xx answer
// into out. It reports whether the answer was a 2xx.
func (l *load) call(ctx context.Context, method, path, token string, header map[string]string, body, out any) bool {
	u := *l.base.Load() + path
	if token != "" {
		u += "?accessToken=" + token
	}
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return false
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := l.hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode/100 != 2 {
		return false
	}
	if out != nil && json.Unmarshal(raw, out) != nil {
		return false
	}
	l.acked.Add(1)
	l.progress.Add(1)
	return true
}

func (l *load) pushCheck(ctx context.Context, number, outstanding int64) (acked, ok bool) {
	amt := client.MoneyFromCents(outstanding)
	c := map[string]any{
		"tableNumber": 3, "checkNumber": number, "locationId": l.setup.locID, "staffId": "s-9", "guests": 2,
		"status": "open", "totalAmount": amt, "outstandingAmount": amt, "serviceChargeAmount": 0, "tipsPaid": 0,
		"discounts": []any{},
		"menuItems": []any{map[string]any{"id": 1, "name": "Soup", "quantity": 1, "price": amt, "priceSold": amt,
			"modifiers": nil, "discount": nil, "category": map[string]any{"name": "Starters", "category": nil}}},
	}
	var res struct {
		BillID  string `json:"billId"`
		Version int64  `json:"version"`
	}
	// Every push is recorded, acknowledged or not: one that got no answer
	// may still have been stored, so it is "the last push" all the same.
	acked = l.call(ctx, http.MethodPost, "/v1/pos/push-pull/check", l.setup.posToken, nil, c, &res)
	l.mu.Lock()
	if l.checks == nil {
		l.checks = map[int64][]pushRecord{}
	}
	l.checks[number] = append(l.checks[number], pushRecord{checkNumber: number, outstanding: outstanding,
		acked: acked, billID: res.BillID, version: res.Version})
	l.mu.Unlock()
	return acked, acked
}

func (l *load) heartbeat(ctx context.Context) bool {
	var res struct {
		RequestInfo client.RequestInfo `json:"requestInfo"`
	}
	if !l.call(ctx, http.MethodPost, fmt.Sprintf("/v1/pos/push-pull/heartbeat/%d", l.setup.locID), l.setup.posToken, nil, nil, &res) {
		return false
	}
	l.mu.Lock()
	l.heartbeats = append(l.heartbeats, res.RequestInfo.ServerTime)
	l.mu.Unlock()
	return true
}

func (l *load) createUser(ctx context.Context) bool {
	var res struct {
		UserID      int64  `json:"userId"`
		AccessToken string `json:"accessToken"`
	}
	if !l.call(ctx, http.MethodPost, "/sandbox/users", "", map[string]string{client.HeaderAdminKey: crashAdminKey}, nil, &res) {
		return false
	}
	l.mu.Lock()
	if l.users == nil {
		l.users = map[int64]string{}
	}
	l.users[res.UserID] = res.AccessToken
	l.mu.Unlock()
	return true
}

func (l *load) pay(ctx context.Context, check int64) bool {
	var res struct {
		Payment struct {
			PaymentID int64 `json:"paymentId"`
		} `json:"payment"`
	}
	body := map[string]any{"locationId": l.setup.locID, "checkNumber": check, "cardId": l.setup.cardID,
		"amount": client.MoneyFromCents(1), "tip": client.MoneyFromCents(0)}
	if !l.call(ctx, http.MethodPost, "/payments/v1/payment", l.setup.userToken, nil, body, &res) {
		return false
	}
	l.mu.Lock()
	if l.payments == nil {
		l.payments = map[int64]int64{}
	}
	l.payments[res.Payment.PaymentID] = check
	l.mu.Unlock()
	return true
}

// waitProgress waits until n more requests have been answered with a 2xx
// since the last call. It fails the test if that takes unreasonably long
// (the server is not coming back), which is not a timing assertion.
func (l *load) waitProgress(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for l.progress.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d requests succeeded: the server is not serving", l.progress.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	l.progress.Store(0)
}

// verifyUsers checks through the API that every acknowledged user exists
// and that its access token works.
func (l *load) verifyUsers(t *testing.T, base string) {
	t.Helper()
	for id, tok := range l.users {
		var res struct {
			User struct {
				UserID int64 `json:"userId"`
			} `json:"user"`
		}
		l.base.Store(&base)
		if !l.call(t.Context(), http.MethodGet, "/v1/user/me", tok, nil, nil, &res) || res.User.UserID != id {
			t.Errorf("user %d: its access token does not work after the crashes (got user %d)", id, res.User.UserID)
		}
	}
}

// verifyDB checks the database file against the record of acknowledged
// requests.
func (l *load) verifyDB(t *testing.T, db *sql.DB) {
	t.Helper()
	for id := range l.users {
		if n := count(t, db, `SELECT COUNT(*) FROM users WHERE user_id = ?`, id); n != 1 {
			t.Errorf("acknowledged user %d is missing", id)
		}
	}
	for number, pushes := range l.checks {
		var (
			maxVersion int64
			billID     string
			acked      bool
		)
		for _, p := range pushes {
			if p.acked {
				acked = true
				maxVersion = max(maxVersion, p.version)
				if billID != "" && p.billID != billID {
					t.Errorf("check %d: billId changed from %s to %s", number, billID, p.billID)
				}
				billID = p.billID
			}
		}
		var (
			gotBill              string
			version, outstanding int64
		)
		err := db.QueryRow(`SELECT bill_id, version, outstanding_amount FROM bills WHERE location_id = ? AND check_number = ?`,
			l.setup.locID, number).Scan(&gotBill, &version, &outstanding)
		if errors.Is(err, sql.ErrNoRows) {
			if acked {
				t.Errorf("check %d: acknowledged but missing", number)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if !acked {
			continue // sent, never acknowledged: may or may not be there
		}
		if gotBill != billID || version < maxVersion {
			t.Errorf("check %d: stored bill %s version %d, acknowledged %s version %d", number, gotBill, version, billID, maxVersion)
		}
		if last := pushes[len(pushes)-1]; last.acked && (outstanding != last.outstanding || version != last.version) {
			t.Errorf("check %d: stored outstanding %d version %d, last acknowledged push %d version %d",
				number, outstanding, version, last.outstanding, last.version)
		}
	}
	for id, check := range l.payments {
		var gotCheck, amount int64
		err := db.QueryRow(`SELECT check_number, amount FROM payments WHERE payment_id = ?`, id).Scan(&gotCheck, &amount)
		if err != nil || gotCheck != check || amount != 1 {
			t.Errorf("acknowledged payment %d: check %d amount %d (%v), want check %d amount 1", id, gotCheck, amount, err, check)
		}
	}
	var lastHeartbeat int64
	for _, ts := range l.heartbeats {
		lastHeartbeat = max(lastHeartbeat, ts)
	}
	if got := count(t, db, `SELECT COALESCE(last_heartbeat, 0) FROM locations WHERE location_id = ?`, l.setup.locID); got < lastHeartbeat {
		t.Errorf("last heartbeat stored %d, acknowledged %d", got, lastHeartbeat)
	}
}
