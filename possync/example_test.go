package possync_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
)

// fakeService is a minimal stand-in for the service's push-pull endpoints,
// holding one unaccepted payment of 20.00 + 2.00 tip on check 1001, so that
// the examples run without a server.
func fakeService() *httptest.Server {
	var mu sync.Mutex
	versions := map[int64]int64{}
	last := map[int64]string{}
	accepted := false
	const ri = `"requestInfo":{"accessTokenStatus":"authenticated","serverTime":1767225600,"requestId":null,"apiVersion":1}`
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/pos/push-pull/check", func(w http.ResponseWriter, r *http.Request) {
		var c possync.Check
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			http.Error(w, `{"error":true,"code":400001,"message":"Malformed JSON body."}`, 400)
			return
		}
		b, _ := json.Marshal(c)
		mu.Lock()
		if last[c.CheckNumber] != string(b) {
			versions[c.CheckNumber]++
			last[c.CheckNumber] = string(b)
		}
		v := versions[c.CheckNumber]
		mu.Unlock()
		fmt.Fprintf(w, `{"billId":"bill-%d","version":%d,%s}`, c.CheckNumber, v, ri)
	})
	mux.HandleFunc("GET /v1/pos/push-pull/payments/{loc}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if accepted {
			fmt.Fprintf(w, `{"checks":{},%s}`, ri)
			return
		}
		fmt.Fprintf(w, `{"checks":{"1001":[{"paymentId":77,"paymentExTip":20.00,"tip":2.00}]},%s}`, ri)
	})
	mux.HandleFunc("POST /v1/pos/push-pull/accept-payment", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accepted = true
		mu.Unlock()
		fmt.Fprintf(w, `{"paymentId":77,"status":"accepted",%s}`, ri)
	})
	mux.HandleFunc("POST /v1/pos/push-pull/heartbeat/{loc}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"status":"ok",%s}`, ri)
	})
	return httptest.NewServer(mux)
}

// exampleCheck is a small open check of location 1.
func exampleCheck() *possync.Check {
	return &possync.Check{
		TableNumber: 4, CheckNumber: 1001, LocationID: 1, StaffID: "S-7", Guests: 2,
		Status:            possync.CheckOpen,
		TotalAmount:       client.MustParseMoney("42.00"),
		OutstandingAmount: client.MustParseMoney("42.00"),
		MenuItems: []possync.MenuItem{{
			ID: 10, Name: "Steak frites", Quantity: 2,
			Price: client.MustParseMoney("21.00"), PriceSold: client.MustParseMoney("21.00"),
			Category: possync.Category{Name: "Mains", Category: &possync.Category{Name: "Food"}},
		}},
	}
}

// Example shows a POS integration with an Agent: push a check, receive a
// payment through SavePayment, and push the check again with the new
// outstanding amount.
func Example() {
	srv := fakeService()
	defer srv.Close()

	c, err := client.New(client.WithBaseURL(srv.URL), client.WithAccessToken("POS-TOKEN"))
	if err != nil {
		log.Fatal(err)
	}
	check := exampleCheck()
	var agent *possync.Agent
	saved := make(chan struct{})
	agent, err = possync.NewAgent(possync.NewService(c), possync.AgentConfig{
		LocationID: 1,
		SavePayment: func(ctx context.Context, checkNumber int64, p possync.PaymentNotification) error {
			// Save the payment in the POS, then send the check's new state.
			fmt.Printf("check %d paid %s + tip %s\n", checkNumber, p.PaymentExTip, p.Tip)
			check.OutstandingAmount = check.OutstandingAmount.Sub(p.PaymentExTip)
			close(saved)
			return agent.Push(check)
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := agent.Push(check); err != nil { // never blocks, may come before Run
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- agent.Run(ctx) }()
	<-saved
	for agent.Stats().PaymentsAccepted == 0 || agent.Stats().Queued > 0 {
		time.Sleep(time.Millisecond)
	}
	stop()
	if err := <-done; err != nil {
		log.Fatal(err)
	}
	fmt.Println("outstanding now", check.OutstandingAmount, "- accepted", agent.Stats().PaymentsAccepted)
	// Output:
	// check 1001 paid 20.00 + tip 2.00
	// outstanding now 22.00 - accepted 1
}

func ExampleService_PushCheck() {
	srv := fakeService()
	defer srv.Close()
	c, _ := client.New(client.WithBaseURL(srv.URL), client.WithAccessToken("POS-TOKEN"))
	pos := possync.NewService(c)

	check := exampleCheck()
	res, err := pos.PushCheck(context.Background(), check)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.BillID, "version", res.Version)

	// The same state again keeps the version; a change moves it.
	res, _ = pos.PushCheck(context.Background(), check)
	fmt.Println(res.BillID, "version", res.Version)
	check.Status = possync.CheckClosed
	res, _ = pos.PushCheck(context.Background(), check)
	fmt.Println(res.BillID, "version", res.Version)
	// Output:
	// bill-1001 version 1
	// bill-1001 version 1
	// bill-1001 version 2
}

func ExampleService_Payments() {
	srv := fakeService()
	defer srv.Close()
	c, _ := client.New(client.WithBaseURL(srv.URL), client.WithAccessToken("POS-TOKEN"))
	pos := possync.NewService(c)

	checks, err := pos.Payments(context.Background(), 1)
	if err != nil {
		log.Fatal(err)
	}
	for checkNumber, payments := range checks {
		for _, p := range payments {
			fmt.Printf("check %d: payment %d of %s, tip %s\n", checkNumber, p.PaymentID, p.PaymentExTip, p.Tip)
		}
	}
	// Output:
	// check 1001: payment 77 of 20.00, tip 2.00
}

func ExampleService_AcceptPayment() {
	srv := fakeService()
	defer srv.Close()
	c, _ := client.New(client.WithBaseURL(srv.URL), client.WithAccessToken("POS-TOKEN"))
	pos := possync.NewService(c)

	// Only after the payment is saved on the POS:
	res, err := pos.AcceptPayment(context.Background(), 77)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.PaymentID, res.Status)
	// Output:
	// 77 accepted
}

func ExampleService_Heartbeat() {
	srv := fakeService()
	defer srv.Close()
	c, _ := client.New(client.WithBaseURL(srv.URL), client.WithAccessToken("POS-TOKEN"))
	pos := possync.NewService(c)

	res, err := pos.Heartbeat(context.Background(), 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status)
	// Output:
	// ok
}

func ExampleCheck_Validate() {
	check := exampleCheck()
	check.MenuItems[0].Quantity = -1
	check.Status = "parked"
	err := check.Validate()

	var ve *client.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(strings.TrimPrefix(err.Error(), "hospo: "))
	}
	fmt.Println(errors.Is(err, client.ErrValidation))
	// Output:
	// invalid request: menuItems[0].quantity: must not be negative; status: must be open, closed or void
	// true
}

func ExampleAgent_Stats() {
	c, _ := client.New(client.WithBaseURL("http://127.0.0.1:1"), client.WithAccessToken("POS-TOKEN"))
	agent, err := possync.NewAgent(possync.NewService(c), possync.AgentConfig{
		LocationID:  1,
		SavePayment: func(context.Context, int64, possync.PaymentNotification) error { return nil },
		MaxQueued:   1,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()
	_ = agent.Push(exampleCheck())
	other := exampleCheck()
	other.CheckNumber++
	fmt.Println(agent.Push(other))
	fmt.Println("queued:", agent.Stats().Queued)
	fmt.Println(agent.Stats())
	// Output:
	// possync: outbox full
	// queued: 1
	// queued 1, sent 0
}
