package fulfillment_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
)

// fakeOrdering stands in for the service in the examples: one location
// with a burger, one order that the POS accepts on the second look.
func fakeOrdering() *httptest.Server {
	const ri = `"requestInfo":{"accessTokenStatus":"authenticated","serverTime":1767000000,"requestId":null,"apiVersion":3}`
	var polls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/location/7/menu", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"menus":[{"reference":"main","name":"Main","type":"ANY","categories":[{"reference":"b","name":"Burgers","description":"",
			"items":[{"plu":"BURGER","name":"Burger","description":"","price":8.50,"available":true,"modifiers":[
			{"reference":"cook","name":"Cooking","min":1,"max":1,"options":[{"plu":"RARE","name":"Rare","price":0,"modifiers":[]}]}]}]}],
			"deals":[]}],"syncedAt":1767000000,`+ri+`}`)
	})
	mux.HandleFunc("POST /ordering/v3/order", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"orderId":"0b7e4c2a-5d1f-4e8a-9c3b-2f6d8a1e7c40","total":17.00,`+ri+`}`)
	})
	mux.HandleFunc("POST /ordering/v3/order/{id}/fulfillment-type/{method}", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprint(w, `{}`)
	})
	mux.HandleFunc("GET /ordering/v3/order/{id}", func(w http.ResponseWriter, r *http.Request) {
		status, pos := "sent_to_pos", "null"
		if polls.Add(1) > 1 {
			status, pos = "accepted_by_pos", `"POS-1042"`
		}
		fmt.Fprintf(w, `{"order":{"orderId":%q,"locationId":7,"items":[],"total":17.00,"fulfillmentType":"collection-by-customer",
			"fulfillment":{},"status":%q,"posOrderId":%s,"createdAt":1767000000},%s}`, r.PathValue("id"), status, pos, ri)
	})
	return httptest.NewServer(mux)
}

// A kiosk reads the menu, orders, chooses collection and waits for the POS.
func Example() {
	srv := fakeOrdering()
	defer srv.Close()
	c, err := client.New(client.WithBaseURL(srv.URL), client.WithAccessToken("user-token"))
	if err != nil {
		log.Fatal(err)
	}
	svc := fulfillment.NewService(c)
	ctx := context.Background()

	menu, err := svc.Menu(ctx, 7)
	if err != nil {
		log.Fatal(err)
	}
	burger, _ := menu.Menus[0].FindItem("BURGER")
	fmt.Println("menu:", burger.Name, burger.Price)

	order, err := svc.CreateOrder(ctx, fulfillment.OrderRequest{LocationID: 7, Items: []fulfillment.OrderLine{
		{PLU: burger.PLU, Quantity: 2, Options: []fulfillment.OrderLine{{PLU: "RARE", Quantity: 1}}},
	}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("total:", order.Total)

	err = svc.Set(ctx, order.OrderID, fulfillment.CollectionByCustomer{
		CollectionTime: time.Date(2030, 1, 2, 12, 30, 0, 0, time.UTC),
		Name:           "Ann",
		Phone:          "07700 900001",
		OrderReference: "K-17",
	})
	if err != nil {
		log.Fatal(err)
	}
	done, err := svc.WaitForStatus(ctx, order.OrderID, fulfillment.Settled, 10*time.Millisecond)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(done.Status, *done.POSOrderID)
	// Output:
	// menu: Burger 8.50
	// total: 17.00
	// accepted_by_pos POS-1042
}

// CreateOrder checks the lines it can check without the menu before
// sending anything; the service checks the rest against the menu and
// reports the same kind of JSON paths.
func ExampleService_CreateOrder() {
	srv := fakeOrdering()
	defer srv.Close()
	c, _ := client.New(client.WithBaseURL(srv.URL), client.WithAccessToken("user-token"))
	svc := fulfillment.NewService(c)

	_, err := svc.CreateOrder(context.Background(), fulfillment.OrderRequest{LocationID: 7, Items: []fulfillment.OrderLine{
		{PLU: "BURGER", Quantity: 1, Options: []fulfillment.OrderLine{{PLU: "", Quantity: 1}}},
	}})
	var ve *client.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(ve.Paths())
	}

	// A meal deal: one option line per item picked for the deal, each with
	// its own options nested under it.
	order, err := svc.CreateOrder(context.Background(), fulfillment.OrderRequest{LocationID: 7, Items: []fulfillment.OrderLine{
		{PLU: "MEAL", Quantity: 1, Options: []fulfillment.OrderLine{
			{PLU: "BURGER", Quantity: 1, Options: []fulfillment.OrderLine{{PLU: "RARE", Quantity: 1}}},
			{PLU: "COLA", Quantity: 1},
		}},
	}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(order.OrderID)
	// Output:
	// [items[0].options[0].plu]
	// 0b7e4c2a-5d1f-4e8a-9c3b-2f6d8a1e7c40
}

// Set validates the method first; a nil nullable member goes out as null.
func ExampleService_Set() {
	srv := fakeOrdering()
	defer srv.Close()
	c, _ := client.New(client.WithBaseURL(srv.URL), client.WithAccessToken("user-token"))
	svc := fulfillment.NewService(c)
	ctx := context.Background()

	err := svc.Set(ctx, "0b7e4c2a-5d1f-4e8a-9c3b-2f6d8a1e7c40", fulfillment.DeliveryByDeliveryPartner{
		CollectionTime: time.Date(2030, 1, 2, 12, 30, 0, 0, time.UTC),
		Name:           "Driver Dan",
		Customer:       &fulfillment.Customer{Name: "Ann"},
	})
	var ve *client.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(strings.Join(ve.Paths(), "\n"))
	}

	table := fulfillment.OrderAtTable{KitchenNotes: "no onions", TableNumber: 12}
	if err := svc.Set(ctx, "0b7e4c2a-5d1f-4e8a-9c3b-2f6d8a1e7c40", table); err != nil {
		log.Fatal(err)
	}
	b, _ := json.Marshal(fulfillment.DeliveryByDeliveryPartner{Name: "Dan"})
	fmt.Println(strings.Contains(string(b), `"customer":null`))
	// Output:
	// customer.address.city
	// customer.address.lineOne
	// customer.address.postcode
	// customer.email
	// customer.phone
	// orderReference
	// phone
	// true
}
