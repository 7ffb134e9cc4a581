package bills_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
)

// exampleServer stands in for the service in the examples: two closed bills
// at location 7, served to the API key "demo-key".
func exampleServer() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v3/location/7/bills/closed", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(client.HeaderAPIKey) != "demo-key" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":true,"code":401004,"message":"API key invalid.","contextData":null,"displayString":null,"requestInfo":{"apiVersion":0}}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"bills":[
			{"billId":"B-2","status":"closed","lastUpdated":"2026-05-01 20:15:00"},
			{"billId":"B-1","status":"closed","lastUpdated":"2026-05-01 19:45:00"}],
			"requestInfo":{"accessTokenStatus":"missing","serverTime":1777665600,"requestId":null,"apiVersion":3}}`)
	})
	mux.HandleFunc("GET /v3/bill/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		total := map[string]string{"B-1": "42.50", "B-2": "18.00"}[id]
		if total == "" {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":true,"code":404001,"message":"Not found.","contextData":null,"displayString":null,"requestInfo":{"apiVersion":0}}`)
			return
		}
		table := ""
		if strings.Contains(r.URL.Query().Get("scope"), "bill.table") {
			table = `,"table":{"tableNumber":12,"guests":3}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"bill":{"billId":%q,"locationId":7,"checkNumber":1001,"status":"closed",
			"lastUpdated":"2026-05-01 19:45:00","totalAmount":%s,"outstandingAmount":0,
			"serviceChargeAmount":0,"tipsPaid":0,"discounts":[]%s},
			"requestInfo":{"accessTokenStatus":"missing","serverTime":1777665600,"requestId":null,"apiVersion":3}}`, id, total, table)
	})
	return httptest.NewServer(mux)
}

// The package in one go: list a day's closed bills and fetch each.
func Example() {
	srv := exampleServer() // stands in for the service
	defer srv.Close()

	c, err := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey("demo-key"))
	if err != nil {
		log.Fatal(err)
	}
	svc := bills.NewService(c)
	ctx := context.Background()

	bst := time.FixedZone("BST", 3600) // the venue's local time
	from := time.Date(2026, 5, 1, 0, 0, 0, 0, bst)
	list, err := svc.ListClosed(ctx, 7, from, from.Add(24*time.Hour-time.Second))
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range list {
		b, err := svc.Get(ctx, s.BillID, []bills.Scope{bills.ScopeTable})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s table %d total %s\n", b.BillID, b.Table.TableNumber, b.TotalAmount)
	}
	// Output:
	// B-2 table 12 total 18.00
	// B-1 table 12 total 42.50
}

func ExampleService_ListClosed() {
	srv := exampleServer()
	defer srv.Close()
	c, err := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey("demo-key"))
	if err != nil {
		log.Fatal(err)
	}
	svc := bills.NewService(c)

	// The offset travels as %2B01:00; lastUpdated comes back in UTC.
	plus1 := time.FixedZone("CET", 3600)
	from := time.Date(2026, 5, 1, 0, 0, 0, 0, plus1)
	list, err := svc.ListClosed(context.Background(), 7, from, from.AddDate(0, 0, 7))
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range list {
		fmt.Println(s.BillID, s.Status, s.LastUpdated.Format(time.RFC3339))
	}
	// Output:
	// B-2 closed 2026-05-01T20:15:00Z
	// B-1 closed 2026-05-01T19:45:00Z
}

func ExampleService_Get() {
	srv := exampleServer()
	defer srv.Close()
	c, err := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey("demo-key"))
	if err != nil {
		log.Fatal(err)
	}
	svc := bills.NewService(c)

	// table.location needs bill.table: Get adds it, so Table is filled.
	b, err := svc.Get(context.Background(), "B-1", []bills.Scope{bills.ScopeTableLocation})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.BillID, b.TotalAmount, b.Table.TableNumber, b.Table.Guests)

	_, err = svc.Get(context.Background(), "B-404", nil)
	fmt.Println(errors.Is(err, client.ErrNotFound))
	// Output:
	// B-1 42.50 12 3
	// true
}

func ExampleService_All() {
	srv := exampleServer()
	defer srv.Close()
	c, err := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey("demo-key"))
	if err != nil {
		log.Fatal(err)
	}
	svc := bills.NewService(c, bills.WithConcurrency(2))

	// 90 days: three list calls, then each bill fetched once, yielded by
	// lastUpdated then bill id.
	to := time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC)
	for b, err := range svc.All(context.Background(), 7, to.AddDate(0, 0, -90), to, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(b.BillID, b.TotalAmount)
	}
	// Output:
	// B-1 42.50
	// B-2 18.00
}
