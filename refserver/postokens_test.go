package refserver_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
	"github.com/hospo-dev/hospo-go/wallet"
)

// The bearer tokens of the universal POSes are kept sealed at rest: never
// in the clear in the database, its WAL or a snapshot, whether the server
// was given them (POST /sandbox/locations), made them (the demo fixture,
// PUT .../demo-pos) or found them in the clear in a database or snapshot
// of an older version.

// bearerPOS is an external universal POS that accepts one bearer token and
// records the Authorization header of every request that reaches it.
type bearerPOS struct {
	*httptest.Server
	token string

	mu    sync.Mutex
	calls []bearerCall
}

type bearerCall struct{ path, authorization string }

func newBearerPOS(t *testing.T, token string) *bearerPOS {
	t.Helper()
	p := &bearerPOS{token: token}
	h := universalpos.NewHandler(&switchablePOS{menus: smallMenu("9.00")}, universalpos.HandlerOptions{Token: token})
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.calls = append(p.calls, bearerCall{r.URL.Path, r.Header.Get("Authorization")})
		p.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// callsSince returns the calls after the first n.
func (p *bearerPOS) callsSince(n int) []bearerCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]bearerCall(nil), p.calls[n:]...)
}

func (p *bearerPOS) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.calls)
}

// posTokenRow is what the locations table keeps of a POS token.
type posTokenRow struct {
	plain  *string
	sealed []byte
}

// posTokenRows reads the POS token columns of every location with a POS
// straight from the SQLite file at path, beside the server.
func posTokenRows(t *testing.T, path string) map[int64]posTokenRow {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT location_id, pos_token_plain, pos_token_sealed FROM locations WHERE pos_url IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]posTokenRow{}
	for rows.Next() {
		var (
			id  int64
			row posTokenRow
		)
		if err := rows.Scan(&id, &row.plain, &row.sealed); err != nil {
			t.Fatal(err)
		}
		out[id] = row
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// wantSealed checks that every location of want has its POS token sealed
// in the database at path, opening to want's token under adminKey, and
// none in the clear.
func wantSealed(t *testing.T, path, adminKey string, want map[int64]string) {
	t.Helper()
	rows := posTokenRows(t, path)
	tokens := store.NewPOSTokens(adminKey)
	for id, token := range want {
		row := rows[id]
		if row.plain != nil {
			t.Errorf("location %d keeps its POS token in the clear", id)
		}
		if got, err := tokens.Open(id, row.sealed); err != nil || got != token || bytes.Contains(row.sealed, []byte(token)) {
			t.Errorf("location %d: the sealed POS token opens to %q, %v; want %q, sealed", id, got, err, token)
		}
	}
}

// wantNotInFile checks that no file of paths holds any of secrets.
func wantNotInFile(t *testing.T, secrets []string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the POS token %q in the clear", p, s)
			}
		}
	}
}

// sendOrder orders the one item of smallMenu at locationID and returns
// the order once the server has sent it (or given up on it).
func sendOrder(t *testing.T, env *refservertest.Env, locationID int64) fulfillment.Order {
	t.Helper()
	ctx := context.Background()
	diner := env.NewDiner(t)
	o, err := diner.Order.CreateOrder(ctx, fulfillment.OrderRequest{LocationID: locationID,
		Items: []fulfillment.OrderLine{{PLU: "PZ-1", Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := diner.Order.Set(ctx, o.OrderID, fulfillment.OrderAtTable{TableNumber: 3}); err != nil {
		t.Fatal(err)
	}
	env.AdvanceClock(t, 0) // returns once the send that is due now has run
	got, err := diner.Order.Order(ctx, o.OrderID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// wantOrderAccepted checks that an order sent now to location reaches pos
// with pos's bearer token.
func wantOrderAccepted(t *testing.T, env *refservertest.Env, pos *bearerPOS, location int64) {
	t.Helper()
	before := pos.count()
	if o := sendOrder(t, env, location); o.Status != fulfillment.StatusAcceptedByPOS {
		t.Fatalf("order at location %d: status %s, want accepted_by_pos", location, o.Status)
	}
	for _, c := range pos.callsSince(before) {
		if strings.HasSuffix(c.path, "/orders") && c.authorization != "Bearer "+pos.token {
			t.Errorf("the order reached the POS with Authorization %q", c.authorization)
		}
	}
}

// posScene is a server, logging to logs, with a location wired to an
// external universal POS that accepts token and with the demo locations
// wired to the demo POS.
type posScene struct {
	env   *refservertest.Env
	logs  *syncBuffer
	pos   *bearerPOS
	venue *refservertest.Venue
	// want is the bearer token each location with a POS must send.
	want map[int64]string
}

func newPOSScene(t *testing.T, token string) posScene {
	t.Helper()
	sc := posScene{logs: &syncBuffer{}, pos: newBearerPOS(t, token)}
	sc.env = refservertest.Start(t, loggingTo(sc.logs))
	sc.venue = sc.env.NewVenue(t, refservertest.VenueConfig{UniversalPOSURL: sc.pos.URL, UniversalPOSToken: token})
	sc.env.WaitForMenu(t, sc.venue.ID)
	sc.want = map[int64]string{sc.venue.ID: token}
	for _, l := range sc.env.Fixtures(t).Locations {
		sc.want[l.LocationID] = sim.DemoPOSToken(sc.env.AdminKey)
	}
	return sc
}

// secrets are the scene's bearer tokens.
func (sc posScene) secrets() []string {
	return []string{sc.pos.token, sim.DemoPOSToken(sc.env.AdminKey)}
}

// wantNotLogged checks that logs hold none of the scene's tokens.
func (sc posScene) wantNotLogged(t *testing.T, logs *syncBuffer) {
	t.Helper()
	for _, s := range sc.secrets() {
		if strings.Contains(logs.String(), s) {
			t.Errorf("the log holds the POS token %q", s)
		}
	}
}

func loggingTo(logs *syncBuffer) refservertest.Option {
	return func(c *refservertest.Options) {
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
}

func TestPOSTokensAreSealedAtRest(t *testing.T) {
	t.Parallel()
	sc := newPOSScene(t, "ext-pos-token-sealed-6a0d41")
	env := sc.env
	// A location wired to the demo POS after it was made.
	other := env.NewVenue(t, refservertest.VenueConfig{})
	env.AdminDo(t, http.MethodPut, "/sandbox/locations/"+fmtID(other.ID)+"/demo-pos", map[string]any{"mode": "accept"}, nil)
	sc.want[other.ID] = sim.DemoPOSToken(env.AdminKey)
	wantOrderAccepted(t, env, sc.pos, sc.venue.ID)

	wantSealed(t, env.DBPath, env.AdminKey, sc.want)
	for _, s := range sc.secrets() {
		if bytes.Contains(env.DBBytes(t), []byte(s)) {
			t.Errorf("the database or its WAL holds the POS token %q in the clear", s)
		}
	}
	sc.wantNotLogged(t, sc.logs)
	snap := env.Snapshot(t, "sealed")
	wantNotInFile(t, sc.secrets(), env.SnapshotFile(t, snap.SnapshotID))
}

// asOlderVersion turns the database file at path into what a server
// before the sealing kept: the schema without its migration, every POS
// token in the clear in pos_token (opened here with adminKey's key).
func asOlderVersion(t *testing.T, path, adminKey string) {
	t.Helper()
	rows := posTokenRows(t, path)
	db, err := sql.Open("sqlite3", path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tokens := store.NewPOSTokens(adminKey)
	for _, stmt := range []string{
		`DELETE FROM schema_migrations WHERE name LIKE '%\_pos_token_sealed.sql' ESCAPE '\'`,
		`ALTER TABLE locations DROP COLUMN pos_token_sealed`,
		`ALTER TABLE locations RENAME COLUMN pos_token_plain TO pos_token`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for id, row := range rows {
		token, err := tokens.Open(id, row.sealed)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`UPDATE locations SET pos_token = ? WHERE location_id = ?`, token, id); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPlainPOSTokensOfAnOlderVersionAreSealed: a database or a snapshot
// saved by a version that kept the POS tokens in the clear is sealed as
// the server starts on it or restores it, and the POSes still get their
// right tokens, through the server's own sends.
func TestPlainPOSTokensOfAnOlderVersionAreSealed(t *testing.T) {
	t.Parallel()
	sc := newPOSScene(t, "older-version-pos-token-2c5e88")
	env := sc.env
	snap := env.Snapshot(t, "older")
	older := env.SnapshotFile(t, snap.SnapshotID)
	asOlderVersion(t, older, env.AdminKey)
	if raw, err := os.ReadFile(older); err != nil || !bytes.Contains(raw, []byte(sc.pos.token)) {
		t.Fatalf("the older snapshot does not hold the token in the clear (%v): the test proves nothing", err)
	}

	t.Run("start", func(t *testing.T) {
		var logs syncBuffer
		started := refservertest.Start(t, refservertest.FromSnapshot(older), loggingTo(&logs))
		wantSealed(t, started.DBPath, started.AdminKey, sc.want)
		wantOrderAccepted(t, started, sc.pos, sc.venue.ID)
		sc.wantNotLogged(t, &logs)
	})

	t.Run("restore", func(t *testing.T) {
		env.Restore(t, snap.SnapshotID)
		wantSealed(t, env.DBPath, env.AdminKey, sc.want)
		wantOrderAccepted(t, env, sc.pos, sc.venue.ID)
		// A snapshot saved now has no trace of the clear text, whose page
		// the restore had copied in.
		again := env.Snapshot(t, "after the restore")
		wantNotInFile(t, sc.secrets(), env.SnapshotFile(t, again.SnapshotID))
		sc.wantNotLogged(t, sc.logs)
	})
}

// TestPOSTokenMovedToAnotherLocationDoesNotOpen: a sealed token copied
// into another location's row is never sent: that location's POS health
// says why, and its orders fail with the reason, unsent.
func TestPOSTokenMovedToAnotherLocationDoesNotOpen(t *testing.T) {
	t.Parallel()
	const tokenA, tokenB = "moved-pos-token-a-71c3", "moved-pos-token-b-0f9e"
	posA, posB := newBearerPOS(t, tokenA), newBearerPOS(t, tokenB)
	env := refservertest.Start(t)
	a := env.NewVenue(t, refservertest.VenueConfig{Name: "A", UniversalPOSURL: posA.URL, UniversalPOSToken: tokenA})
	b := env.NewVenue(t, refservertest.VenueConfig{Name: "B", UniversalPOSURL: posB.URL, UniversalPOSToken: tokenB})
	env.WaitForMenu(t, a.ID)
	env.WaitForMenu(t, b.ID)
	key := b.NewAPIKey(t)

	db, err := sql.Open("sqlite3", env.DBPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE locations SET pos_token_sealed = (SELECT pos_token_sealed FROM locations WHERE location_id = ?)
		WHERE location_id = ?`, a.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	before := posB.count()

	// The next health check of every POS (the clock moves past its
	// interval) finds B's token unusable.
	env.AdvanceClock(t, time.Hour)
	loc, err := wallet.NewService(env.Client(t)).GetLocation(context.Background(), b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if u := loc.UniversalPOS; u == nil || u.Health == nil || *u.Health != wallet.POSHealthUnreachable ||
		u.Message == nil || !strings.Contains(*u.Message, "bearer token cannot be opened") {
		t.Errorf("location B's POS: %+v, want UNREACHABLE saying its token cannot be opened", u)
	}

	o := sendOrder(t, env, b.ID)
	if o.Status != fulfillment.StatusFailed {
		t.Errorf("order at B: status %s, want failed", o.Status)
	}
	var reason string
	for _, e := range readFeed(t, env, key, "?limit=100").Events {
		var d struct {
			OrderID string  `json:"orderId"`
			Status  string  `json:"status"`
			Reason  *string `json:"reason"`
		}
		if e.Type == "order.status_changed" && json.Unmarshal(e.Data, &d) == nil && d.OrderID == o.OrderID && d.Status == "failed" && d.Reason != nil {
			reason = *d.Reason
		}
	}
	if !strings.Contains(reason, "bearer token cannot be opened") {
		t.Errorf("the order failed with reason %q, want one saying the token cannot be opened", reason)
	}
	if calls := posB.callsSince(before); len(calls) > 0 {
		t.Errorf("B's POS was called after its token was replaced: %+v", calls)
	}
	for _, c := range posB.callsSince(0) {
		if c.authorization == "Bearer "+tokenA {
			t.Errorf("B's POS got A's token on %s", c.path)
		}
	}
	// A still works.
	wantOrderAccepted(t, env, posA, a.ID)
}
