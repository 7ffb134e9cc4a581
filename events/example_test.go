package events_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
)

// A webhook receiver: NewHandler checks each delivery's signature, decodes
// the event and calls the function; a nil error answers 2xx, anything
// else makes the service deliver again later.
func Example() {
	const secret = "whsec_example" // as CreateWebhook returned it

	receiver := httptest.NewServer(events.NewHandler([]string{secret},
		func(ctx context.Context, ev events.Event) error {
			switch ev.Type {
			case events.TypeBillClosed:
				b, err := ev.BillClosed()
				if err != nil {
					return err
				}
				fmt.Printf("%s: bill %s closed at %s for %s\n", ev.ID, b.BillID, b.LastUpdated.Format(time.DateTime), b.TotalAmount)
			default:
				fmt.Printf("%s: %s\n", ev.ID, ev.Type)
			}
			return nil
		}))
	defer receiver.Close()

	// Play the service: deliver one event, signed, then one with a forged
	// signature.
	body := `{"id":"evt_1","type":"bill.closed","createdAt":1777665600,"locationId":7,
		"data":{"billId":"B-1","locationId":7,"checkNumber":1001,"totalAmount":42.50,"lastUpdated":"2026-05-01 20:00:00"}}`
	for _, sig := range []string{
		events.Sign([]byte(body), time.Now(), secret),
		events.Sign([]byte(body), time.Now(), "whsec_guessed"),
	} {
		req, _ := http.NewRequest(http.MethodPost, receiver.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(events.HeaderSignature, sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Println("answer:", resp.StatusCode)
	}
	// Output:
	// evt_1: bill B-1 closed at 2026-05-01 20:00:00 for 42.50
	// answer: 204
	// answer: 400
}

// Checking a delivery without NewHandler, in any router: the body must be
// the bytes as received.
func ExampleVerifier_VerifyEvent() {
	v := events.NewVerifier([]string{"whsec_new", "whsec_old"}) // during a rotation
	body := []byte(`{"id":"evt_2","type":"ping","createdAt":1777665600,"locationId":null,"data":{"webhookId":"wh_1"}}`)
	header := events.Sign(body, time.Now(), "whsec_old")

	ev, err := v.VerifyEvent(body, header)
	if err != nil {
		fmt.Println("refused:", err)
		return
	}
	ping, _ := ev.Ping()
	fmt.Println(ev.ID, ev.Type, ping.WebhookID)

	_, err = v.VerifyEvent([]byte(`{"id":"evt_3"}`), header)
	fmt.Println(err)
	// Output:
	// evt_2 ping wh_1
	// events: no signature matches the body
}

// Reading the feed until it is caught up, and keeping the cursor to resume
// from next time.
func ExampleFeed_All() {
	mux := http.NewServeMux() // stands in for the service
	mux.HandleFunc("GET /v1/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("after") == "c2" {
			fmt.Fprint(w, `{"events":[],"nextCursor":"c2","requestInfo":{"apiVersion":1}}`)
			return
		}
		fmt.Fprint(w, `{"events":[
			{"id":"evt_1","type":"location.online","createdAt":1777665600,"locationId":7,"data":{"locationId":7,"lastHeartbeat":1777665600},"cursor":"c1"},
			{"id":"evt_2","type":"payment.created","createdAt":1777665660,"locationId":7,"data":{"paymentId":5,"locationId":7,"checkNumber":1001,"billId":"B-1","cardId":3,"amount":20.00,"tip":2.00,"status":"pending","createdAt":1777665660},"cursor":"c2"}],
			"nextCursor":"c2","requestInfo":{"apiVersion":1}}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	c, err := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey("demo-key"))
	if err != nil {
		log.Fatal(err)
	}
	feed := events.NewService(c).Feed(events.FeedQuery{})
	for ev, err := range feed.All(context.Background()) {
		if err != nil {
			log.Fatal(err)
		}
		v, err := ev.Decode()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s %s %+v\n", ev.ID, ev.Type, v)
	}
	fmt.Println("resume after", feed.Cursor())
	// Output:
	// evt_1 location.online {LocationID:7 LastHeartbeat:2026-05-01 20:00:00 +0000 UTC}
	// evt_2 payment.created {PaymentID:5 LocationID:7 CheckNumber:1001 BillID:B-1 CardID:3 Amount:20.00 Tip:2.00 Status:pending CreatedAt:2026-05-01 20:01:00 +0000 UTC}
	// resume after c2
}
