package universalpos_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// cafe is the business logic of a tiny POS: one coffee, with a milk
// choice.
type cafe struct{ orders atomic.Int64 }

func (c *cafe) Health(context.Context) (universalpos.HealthStatus, error) {
	return universalpos.HealthStatus{Status: universalpos.HealthOK}, nil
}

func (c *cafe) Menus(context.Context) ([]universalpos.Menu, error) {
	return []universalpos.Menu{{
		Reference: "all-day", Name: "All day", Type: universalpos.MenuTypeAny,
		Categories: []universalpos.Category{{Reference: "coffee", Name: "Coffee", Items: []universalpos.Item{{
			PLU: "FW", Name: "Flat white", Price: client.MustParseMoney("3.20"), Available: true,
			Modifiers: []universalpos.ModifierGroup{{Reference: "milk", Name: "Milk", Min: 1, Max: 1, Options: []universalpos.Option{
				{PLU: "MILK-WHOLE", Name: "Whole"},
				{PLU: "MILK-OAT", Name: "Oat", Price: client.MustParseMoney("0.40")},
			}}},
		}}}},
	}}, nil
}

func (c *cafe) CreateOrder(_ context.Context, o universalpos.Order) (string, error) {
	if o.POSLocationID != "7" {
		return "", universalpos.RejectOrder("unknown location", map[string]string{"posLocationId": "not served by this POS"})
	}
	return "CAFE-" + strconv.FormatInt(c.orders.Add(1), 10), nil
}

// The vendor serves a Provider with NewHandler; the service talks to it
// with a Client.
func Example() {
	// The POS vendor's side.
	pos := httptest.NewServer(universalpos.NewHandler(&cafe{}, universalpos.HandlerOptions{Token: "s3cret"}))
	defer pos.Close()

	// The service's side.
	ctx := context.Background()
	c := universalpos.NewClient(pos.URL, "s3cret")
	health, _ := c.Health(ctx)
	fmt.Println("health:", health.Status)

	menus, _ := c.Menus(ctx)
	flatWhite, _ := menus[0].FindItem("FW")
	oat, _ := flatWhite.FindOption("MILK-OAT")
	order := universalpos.Order{
		OrderID:         "0b7e3a52-1d7c-4f57-9b1e-6d2f0c1a9e33",
		POSLocationID:   "7",
		FulfillmentType: universalpos.FulfillmentOrderAtTable,
		Fulfillment:     json.RawMessage(`{"kitchenNotes":"","tableNumber":4}`),
		Items: []universalpos.OrderItem{{
			PLU: flatWhite.PLU, Name: flatWhite.Name, Quantity: 2, Price: flatWhite.Price,
			Options: []universalpos.OrderOption{{PLU: oat.PLU, Name: oat.Name, Quantity: 1, Price: oat.Price}},
		}},
		CreatedAt: client.UnixTime{Time: time.Unix(1767225600, 0)},
	}
	order.Total = order.ComputeTotal()
	fmt.Println("total:", order.Total)

	id, _ := c.SendOrder(ctx, order)
	again, _ := c.SendOrder(ctx, order) // a resend after a lost answer
	fmt.Println("posOrderId:", id, "resend:", again)
	// Output:
	// health: OK
	// total: 7.20
	// posOrderId: CAFE-1 resend: CAFE-1
}

// A vendor mounts the handler wherever its POS lives; under a path
// prefix, strip the prefix so the handler sees /health, /menus, /orders.
func ExampleNewHandler() {
	h := universalpos.NewHandler(&cafe{}, universalpos.HandlerOptions{
		Token: "s3cret",
		// With several instances, plug in shared storage here:
		// Orders: myDatabaseOrderStore,
	})
	mux := http.NewServeMux()
	mux.Handle("/universal-pos/", http.StripPrefix("/universal-pos", h))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, token := range []string{"s3cret", "guess"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/universal-pos/health", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	// Output:
	// 200
	// 401
}

// The service decides what to do with a failed send from the error:
// Temporary errors (5xx, timeouts) are retried later, others fail the
// order.
func ExampleClient_SendOrder() {
	pos := httptest.NewServer(universalpos.NewHandler(&cafe{}, universalpos.HandlerOptions{Token: "s3cret"}))
	defer pos.Close()
	c := universalpos.NewClient(pos.URL, "s3cret", universalpos.WithTimeout(5*time.Second), universalpos.WithRetries(1))

	order := universalpos.Order{
		OrderID: "5c1d1f0e-0000-4000-8000-000000000001", POSLocationID: "99",
		FulfillmentType: universalpos.FulfillmentOrderAtTable, Fulfillment: json.RawMessage(`{}`),
		Items:     []universalpos.OrderItem{{PLU: "FW", Name: "Flat white", Quantity: 1, Price: client.MustParseMoney("3.20")}},
		Total:     client.MustParseMoney("3.20"),
		CreatedAt: client.UnixTime{Time: time.Unix(1767225600, 0)},
	}
	_, err := c.SendOrder(context.Background(), order)
	var e *universalpos.Error
	if errors.As(err, &e) {
		fmt.Println("status:", e.StatusCode, "temporary:", e.Temporary())
		fmt.Println("posLocationId:", e.Fields["posLocationId"])
	}
	// Output:
	// status: 422 temporary: false
	// posLocationId: not served by this POS
}

// Check exercises a POS the way the service will.
func ExampleRunConformance() {
	pos := httptest.NewServer(universalpos.NewHandler(&cafe{}, universalpos.HandlerOptions{Token: "s3cret"}))
	defer pos.Close()

	report := universalpos.RunConformance(context.Background(), universalpos.ConformanceConfig{
		URL: pos.URL, Token: "s3cret", LocationID: "7",
	})
	for _, r := range report.Results {
		fmt.Println(r.Passed, r.Name)
	}
	fmt.Println("all passed:", report.Passed())
	// report.Write(os.Stdout) prints the same with reasons.
	// Output:
	// true health
	// true menus/shape
	// true menus/consistency
	// true auth/missing-token
	// true auth/wrong-token
	// true orders/accepted
	// true orders/idempotent-resend
	// true orders/rejects-invalid
	// all passed: true
}

// ValidateMenus finds what would confuse the service in a menu.
func ExampleValidateMenus() {
	menus := []universalpos.Menu{{
		Reference: "m", Name: "Menu", Type: universalpos.MenuTypeDelivery,
		Categories: []universalpos.Category{{Name: "Pizza", Items: []universalpos.Item{
			{PLU: "P1", Name: "Margherita", Available: true, Modifiers: []universalpos.ModifierGroup{
				{Name: "Size", Min: 2, Max: 1, Options: []universalpos.Option{{PLU: "P1", Name: "Large"}}},
			}},
		}}},
	}}
	for _, p := range universalpos.ValidateMenus(menus) {
		fmt.Println(p)
	}
	// Output:
	// menus[0].categories[0].items[0].modifiers[0].min: min 2 is greater than max 1
	// menus[0].categories[0].items[0].modifiers[0].options[0].plu: duplicate plu "P1" (also at menus[0].categories[0].items[0])
}
