package universalpos_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// testToken is the bearer token of the test POSes.
const testToken = "test-pos-token-0123456789"

// testMenu returns a small but complete menu: nested options and a deal.
func testMenu() []universalpos.Menu {
	m := client.MustParseMoney
	return []universalpos.Menu{{
		Reference: "main",
		Name:      "All day",
		Type:      universalpos.MenuTypeAny,
		Categories: []universalpos.Category{
			{Reference: "burgers", Name: "Burgers", Items: []universalpos.Item{{
				PLU: "B1", Name: "Cheeseburger", Price: m("8.50"), Available: true,
				Modifiers: []universalpos.ModifierGroup{{
					Reference: "side", Name: "Add side", Min: 0, Max: 1,
					Options: []universalpos.Option{{
						PLU: "S1", Name: "Fries", Price: m("2.50"),
						Modifiers: []universalpos.ModifierGroup{{
							Reference: "fries-size", Name: "Fries size", Min: 1, Max: 1,
							Options: []universalpos.Option{
								{PLU: "S1R", Name: "Regular"},
								{PLU: "S1L", Name: "Large", Price: m("0.70")},
							},
						}},
					}},
				}},
			}}},
			{Reference: "drinks", Name: "Drinks", Items: []universalpos.Item{
				{PLU: "D1", Name: "Cola", Price: m("2.20"), Available: true},
				{PLU: "D2", Name: "Lemonade", Price: m("2.40"), Available: false},
			}},
		},
		Deals: []universalpos.Deal{{
			PLU: "MD1", Name: "Meal deal", Price: m("10.00"),
			Groups: []universalpos.DealGroup{
				{Name: "Main", Min: 1, Max: 1, Items: []string{"B1"}},
				{Name: "Drink", Min: 1, Max: 1, Items: []string{"D1", "D2"}},
			},
		}},
	}}
}

// testProvider is a well-behaved Provider that counts its orders.
type testProvider struct {
	mu      sync.Mutex
	menus   []universalpos.Menu
	health  universalpos.HealthStatus
	orders  []universalpos.Order
	calls   atomic.Int64
	next    atomic.Int64
	create  func(universalpos.Order) (string, error) // overrides the default when set
	block   chan struct{}                            // when set, CreateOrder waits for it
	healthE error
	menusE  error
}

func newTestProvider() *testProvider {
	return &testProvider{menus: testMenu(), health: universalpos.HealthStatus{Status: universalpos.HealthOK}}
}

func (p *testProvider) Health(context.Context) (universalpos.HealthStatus, error) {
	return p.health, p.healthE
}

func (p *testProvider) Menus(context.Context) ([]universalpos.Menu, error) {
	return p.menus, p.menusE
}

func (p *testProvider) CreateOrder(ctx context.Context, o universalpos.Order) (string, error) {
	p.calls.Add(1)
	if p.block != nil {
		select {
		case <-p.block:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	if p.create != nil {
		return p.create(o)
	}
	p.mu.Lock()
	p.orders = append(p.orders, o)
	p.mu.Unlock()
	return fmt.Sprintf("POS-%d", p.next.Add(1)), nil
}

// startPOS serves p through NewHandler with testToken.
func startPOS(t *testing.T, p universalpos.Provider) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(universalpos.NewHandler(p, universalpos.HandlerOptions{Token: testToken}))
	t.Cleanup(srv.Close)
	return srv
}

// cmpMoney lets cmp compare client.Money, whose fields are unexported.
var cmpMoney = cmp.Comparer(func(a, b client.Money) bool { return a.Cmp(b) == 0 })
