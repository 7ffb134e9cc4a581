package fulfillment_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// testMenus is the menu of the test POS. Prices are chosen so that totals
// are checked to the cent.
var testMenus = []universalpos.Menu{{
	Reference: "main",
	Name:      "Main",
	Type:      universalpos.MenuTypeAny,
	Categories: []universalpos.Category{
		{Reference: "burgers", Name: "Burgers", Items: []universalpos.Item{
			{PLU: "BURGER", Name: "Burger", Price: money("8.50"), Available: true, Modifiers: []universalpos.ModifierGroup{
				{Reference: "extras", Name: "Extras", Min: 0, Max: 2, Options: []universalpos.Option{
					{PLU: "CHEESE", Name: "Cheese", Price: money("1.00")},
					{PLU: "BACON", Name: "Bacon", Price: money("1.50")},
				}},
				{Reference: "cooking", Name: "Cooking", Min: 1, Max: 1, Options: []universalpos.Option{
					{PLU: "RARE", Name: "Rare"},
					{PLU: "WELL", Name: "Well done"},
				}},
			}},
			{PLU: "FRIES", Name: "Fries", Price: money("3.00"), Available: true, Modifiers: []universalpos.ModifierGroup{
				{Reference: "size", Name: "Size", Min: 1, Max: 1, Options: []universalpos.Option{
					{PLU: "REGULAR", Name: "Regular"},
					{PLU: "LARGE", Name: "Large", Price: money("0.80"), Modifiers: []universalpos.ModifierGroup{
						{Reference: "dip", Name: "Dip", Min: 0, Max: 1, Options: []universalpos.Option{
							{PLU: "MAYO", Name: "Mayo", Price: money("0.30")},
						}},
					}},
				}},
			}},
			{PLU: "SOLDOUT", Name: "Sold out special", Price: money("5.00"), Available: false},
		}},
		{Reference: "drinks", Name: "Drinks", Items: []universalpos.Item{
			{PLU: "COLA", Name: "Cola", Price: money("2.10"), Available: true},
			{PLU: "WATER", Name: "Water", Price: money("1.20"), Available: true},
		}},
	},
	Deals: []universalpos.Deal{{
		PLU: "MEAL", Name: "Meal deal", Price: money("11.00"), Groups: []universalpos.DealGroup{
			{Name: "Main", Min: 1, Max: 1, Items: []string{"BURGER"}},
			{Name: "Side", Min: 1, Max: 1, Items: []string{"FRIES"}},
			{Name: "Drink", Min: 1, Max: 1, Items: []string{"COLA", "WATER"}},
		},
	}},
}}

func money(s string) client.Money { return client.MustParseMoney(s) }

// testPOS is a universal POS under the test's control: its Provider counts
// and records orders; the HTTP wrapper in front of universalpos.NewHandler
// can fail requests to POST /orders.
type testPOS struct {
	URL, Token string

	mu     sync.Mutex
	orders []universalpos.Order // every CreateOrder call

	// loseFirst: the first POST /orders is carried out but answered 503,
	// as if the answer was lost.
	loseFirst atomic.Int32
	// always503: every POST /orders is answered 503 without reaching the
	// handler.
	always503 atomic.Bool
	// reject: CreateOrder refuses every order with a 400.
	reject atomic.Bool
	posts  atomic.Int32 // POST /orders requests received
}

func (p *testPOS) Health(context.Context) (universalpos.HealthStatus, error) {
	return universalpos.HealthStatus{Status: universalpos.HealthOK}, nil
}

func (p *testPOS) Menus(context.Context) ([]universalpos.Menu, error) { return testMenus, nil }

func (p *testPOS) CreateOrder(_ context.Context, o universalpos.Order) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.orders = append(p.orders, o)
	if p.reject.Load() {
		return "", &universalpos.Error{StatusCode: http.StatusBadRequest, Message: "we do not sell that"}
	}
	return "POS-" + strconv.Itoa(len(p.orders)), nil
}

func (p *testPOS) createCalls() []universalpos.Order {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]universalpos.Order(nil), p.orders...)
}

func newTestPOS(t *testing.T) *testPOS {
	t.Helper()
	p := &testPOS{Token: "pos-vendor-token-" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	h := universalpos.NewHandler(p, universalpos.HandlerOptions{Token: p.Token})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/orders" {
			p.posts.Add(1)
			if p.always503.Load() {
				http.Error(w, `{"error":"busy"}`, http.StatusServiceUnavailable)
				return
			}
			if p.loseFirst.CompareAndSwap(1, 0) {
				h.ServeHTTP(httptest.NewRecorder(), r) // done, answer lost
				http.Error(w, `{"error":"gateway timeout"}`, http.StatusServiceUnavailable)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// env is a refserver with one user, a location wired to a test POS (menu
// synced) and the SDK service for the user.
type env struct {
	*refservertest.Env
	pos        *testPOS
	locationID int64
	userToken  string
	svc        *fulfillment.Service
	c          *client.Client
}

// fastRetries makes the dispatcher's backoff short, for tests.
func fastRetries(c *refservertest.Options) {
	c.OrderRetryBase = 5 * time.Millisecond
	c.OrderRetryMax = 20 * time.Millisecond
}

func startEnv(t *testing.T, opts ...refservertest.Option) *env {
	t.Helper()
	e := &env{Env: refservertest.Start(t, opts...), pos: newTestPOS(t)}
	e.locationID = e.NewVenue(t, refservertest.VenueConfig{
		Name: "Test Diner", UniversalPOSURL: e.pos.URL, UniversalPOSToken: e.pos.Token,
	}).ID
	d := e.NewDiner(t)
	e.userToken, e.c, e.svc = d.AccessToken, d.Client, d.Order
	e.WaitForMenu(t, e.locationID)
	return e
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// order creates an order for one burger, valid against testMenus.
func (e *env) order(t *testing.T) fulfillment.CreatedOrder {
	t.Helper()
	o, err := e.svc.CreateOrder(ctxT(t), fulfillment.OrderRequest{LocationID: e.locationID, Items: []fulfillment.OrderLine{
		{PLU: "BURGER", Quantity: 1, Options: []fulfillment.OrderLine{{PLU: "RARE", Quantity: 1}}},
	}})
	if err != nil {
		t.Fatalf("CreateOrder: %v", err)
	}
	return o
}

func (e *env) waitSettled(t *testing.T, orderID string) fulfillment.Order {
	t.Helper()
	o, err := e.svc.WaitForStatus(ctxT(t), orderID, fulfillment.Settled, 10*time.Millisecond)
	if err != nil {
		t.Fatalf("WaitForStatus: %v (last status %q)", err, o.Status)
	}
	return o
}

// rawJSON sends a request with the user's token and returns the status and
// the decoded body, bypassing the SDK's own checks.
func (e *env) rawJSON(t *testing.T, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var out map[string]any
	resp, err := e.c.Do(ctxT(t), &client.Request{Method: method, Path: path, Body: body, Auth: client.AuthAccessToken}, &out)
	if err != nil {
		var ae *client.APIError
		if errors.As(err, &ae) {
			var ctx map[string]any
			_ = json.Unmarshal(ae.ContextData, &ctx)
			return ae.HTTPStatus, map[string]any{"code": float64(ae.Code), "contextData": ctx, "message": ae.Message}
		}
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, out
}

// rawPost posts body exactly as given (it need not be JSON) with the
// user's token and returns the status and the decoded error body.
func (e *env) rawPost(t *testing.T, path, body string) (int, map[string]any) {
	t.Helper()
	st, raw := e.Send(t, http.MethodPost, "/"+path+"?accessToken="+url.QueryEscape(e.userToken), nil, []byte(body))
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return st, out
}

// events returns the status column of the order's timeline.
func (e *env) events(t *testing.T, orderID string) []string {
	t.Helper()
	rows, err := e.ReadDB(t).Query(`SELECT status FROM order_events WHERE order_id = ? ORDER BY event_id`, orderID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
