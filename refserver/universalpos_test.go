package refserver_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// fastPOSMonitor makes the universal POS monitor run in test time.
func fastPOSMonitor(c *refservertest.Options) {
	c.POSHealthInterval = 100 * time.Millisecond
	c.MenuSyncInterval = 200 * time.Millisecond
}

var cmpMoney = cmp.Comparer(func(a, b client.Money) bool { return a.Cmp(b) == 0 })

// locationMenu is GET /v2/location/{id}/menu.
type locationMenu struct {
	Menus    []universalpos.Menu `json:"menus"`
	SyncedAt *int64              `json:"syncedAt"`
}

func getMenu(t *testing.T, env *refservertest.Env, locationID int64) locationMenu {
	t.Helper()
	resp, err := http.Get(env.URL + "/v2/location/" + strconv.FormatInt(locationID, 10) + "/menu")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET menu: status %d", resp.StatusCode)
	}
	var m locationMenu
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// eventually polls cond until it holds, failing the test after a generous
// deadline (this is a wait, not a timing assertion).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDemoLocationsHaveMenusSoonAfterStart(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t) // default intervals: the start-up sync must not wait for them
	for _, loc := range env.Fixtures(t).Locations {
		var m locationMenu
		eventually(t, "the demo menu of location "+loc.Name, func() bool {
			m = getMenu(t, env, loc.LocationID)
			return m.SyncedAt != nil
		})
		if diff := cmp.Diff(sim.DemoMenus(), m.Menus, cmpMoney, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("location %d menu (-want +got):\n%s", loc.LocationID, diff)
		}
	}
}

func TestDemoPOSPassesConformanceCheck(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	report := universalpos.RunConformance(context.Background(), universalpos.ConformanceConfig{
		URL:   env.URL + sim.DemoPOSPath,
		Token: sim.DemoPOSToken(env.AdminKey),
	})
	var out bytes.Buffer
	_ = report.Write(&out)
	if !report.Passed() {
		t.Fatalf("the demo POS fails the conformance check:\n%s", out.String())
	}
}

// switchablePOS is an external universal POS whose menu a test changes.
type switchablePOS struct {
	mu    sync.Mutex
	menus []universalpos.Menu
}

func (p *switchablePOS) Health(context.Context) (universalpos.HealthStatus, error) {
	return universalpos.HealthStatus{Status: universalpos.HealthOK}, nil
}

func (p *switchablePOS) Menus(context.Context) ([]universalpos.Menu, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.menus, nil
}

func (p *switchablePOS) CreateOrder(_ context.Context, o universalpos.Order) (string, error) {
	return "EXT-" + o.OrderID, nil
}

func (p *switchablePOS) setMenus(m []universalpos.Menu) {
	p.mu.Lock()
	p.menus = m
	p.mu.Unlock()
}

func smallMenu(price string) []universalpos.Menu {
	return []universalpos.Menu{{
		Reference: "m", Name: "Takeaway", Type: universalpos.MenuTypeCollection,
		Categories: []universalpos.Category{{Reference: "c", Name: "Pizza", Items: []universalpos.Item{{
			PLU: "PZ-1", Name: "Margherita", Price: client.MustParseMoney(price), Available: true,
		}}}},
	}}
}

func TestExternalPOSMenuIsSynced(t *testing.T) {
	t.Parallel()
	const token = "ext-pos-token-42"
	pos := &switchablePOS{menus: smallMenu("9.00")}
	// refusedMenus counts the menu requests answered to a wrong token.
	var refusedMenus atomic.Int32
	h := universalpos.NewHandler(pos, universalpos.HandlerOptions{Token: token})
	posSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.URL.Path == "/menus" && r.Header.Get("Authorization") != "Bearer "+token {
			refusedMenus.Add(1)
		}
	}))
	defer posSrv.Close()
	env := refservertest.Start(t, fastPOSMonitor)

	venue := env.NewVenue(t, refservertest.VenueConfig{Name: "Pizza Place", UniversalPOSURL: posSrv.URL + "/", UniversalPOSToken: token})
	var m locationMenu
	eventually(t, "the first menu sync", func() bool {
		m = getMenu(t, env, venue.ID)
		return m.SyncedAt != nil
	})
	if diff := cmp.Diff(smallMenu("9.00"), m.Menus, cmpMoney, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("menu (-want +got):\n%s", diff)
	}

	// The POS changes its price; the periodic sync picks it up.
	pos.setMenus(smallMenu("9.50"))
	eventually(t, "the new price", func() bool {
		m = getMenu(t, env, venue.ID)
		return len(m.Menus) == 1 && m.Menus[0].Categories[0].Items[0].Price.String() == "9.50"
	})

	// A location registered with a wrong token gets no menu, and the
	// server keeps running its other syncs.
	refused := env.NewVenue(t, refservertest.VenueConfig{Name: "Wrong Token", UniversalPOSURL: posSrv.URL, UniversalPOSToken: "nope"})
	// A location's menu syncs never overlap (and a 401 is not retried), so
	// once the second refused request is answered the first sync has ended.
	eventually(t, "two refused menu syncs", func() bool { return refusedMenus.Load() >= 2 })
	if m := getMenu(t, env, refused.ID); m.SyncedAt != nil || len(m.Menus) != 0 {
		t.Errorf("a POS refusing the token still gave a menu: %+v", m)
	}
}

// The server's own calls to its demo POS come from the loopback address
// its local clients use, but they do not share those clients' rate limit:
// with a limit that allows one request in all, every demo location's POS
// health check still reaches the POS, while a client is refused.
func TestOwnCallsToTheDemoPOSAreNotRateLimited(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t, func(o *refservertest.Options) {
		o.RateLimit, o.RateBurst = 0.0001, 1 // a token in about three hours
	})
	status := func() int {
		resp, err := http.Get(env.URL + "/sandbox/health")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// Whatever of the one token the start left, the client spends now.
	status()
	if got := status(); got != http.StatusTooManyRequests {
		t.Fatalf("a client's second request: status %d, want 429", got)
	}
	db := env.ReadDB(t)
	for _, loc := range env.Fixtures(t).Locations {
		var health, message sql.NullString
		eventually(t, "the first POS health check of location "+loc.Name, func() bool {
			err := db.QueryRow(`SELECT pos_health, pos_health_message FROM locations WHERE location_id = ?`, loc.LocationID).Scan(&health, &message)
			if err != nil {
				t.Fatal(err)
			}
			return health.Valid
		})
		if health.String != "OK" {
			t.Errorf("location %d: POS health %s (%s), want OK", loc.LocationID, health.String, message.String)
		}
	}
}
