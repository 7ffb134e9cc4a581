package hospoapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/genclient/hospoapi"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// accessToken adds a user's or a POS's access token, which the document
// declares as a security scheme (the accessToken query parameter) rather
// than as a parameter of each operation.
func accessToken(tok string) hospoapi.RequestEditorFn {
	return func(_ context.Context, r *http.Request) error {
		q := r.URL.Query()
		q.Set("accessToken", tok)
		r.URL.RawQuery = q.Encode()
		return nil
	}
}

func apiKey(key string) hospoapi.RequestEditorFn {
	return func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Vendor-API-Key", key)
		return nil
	}
}

func money(s string) hospoapi.Money { return client.MustParseMoney(s) }

// The client generated from the served document with oapi-codegen's
// default settings carries a POS and a diner through a whole flow against a
// real refserver (whose responses the harness checks against the document):
// checks with amounts that a float32 loses (1234567.89) and that even a
// float64 loses (987654321012345.67) are pushed, paid in full, polled,
// accepted, closed, listed and fetched as bills, and delivered to a webhook;
// every amount arrives exact to the cent.
func TestGeneratedClientFlowKeepsEveryCent(t *testing.T) {
	env := refservertest.Start(t)
	ctx := context.Background()
	v := env.NewVenue(t, refservertest.VenueConfig{Gateway: wallet.ProviderD})
	diner := env.NewDiner(t)
	card := diner.AddCard(t, "4111111111111111", v.Gateway)
	key := v.NewAPIKey(t)

	api, err := hospoapi.NewClientWithResponses(env.URL)
	if err != nil {
		t.Fatal(err)
	}
	pos, user, vendor := accessToken(v.POSToken), accessToken(diner.AccessToken), apiKey(key)

	// A webhook for bill.closed, with a receiver that hands over each
	// delivery.
	type delivery struct {
		body   []byte
		header http.Header
	}
	deliveries := make(chan delivery, 8)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		deliveries <- delivery{b, r.Header.Clone()}
	}))
	t.Cleanup(recv.Close)
	wh, err := api.CreateWebhookWithResponse(ctx, nil, hospoapi.CreateWebhookJSONRequestBody{
		Url: recv.URL, Events: []hospoapi.WebhookCreateRequestEvents{hospoapi.WebhookCreateRequestEventsBillClosed},
	}, vendor)
	if err != nil || wh.JSON201 == nil {
		t.Fatalf("create webhook: %v %d %s", err, status(wh), body(wh))
	}
	hospoSig := events.NewVerifier([]string{wh.JSON201.Secret})
	standard, err := standardwebhooks.NewWebhook(wh.JSON201.Secret)
	if err != nil {
		t.Fatalf("the webhook secret is not a Standard Webhooks secret: %v", err)
	}

	hb, err := api.HeartbeatWithResponse(ctx, v.ID, nil, pos)
	if err != nil || hb.JSON200 == nil {
		t.Fatalf("heartbeat: %v %d %s", err, status(hb), body(hb))
	}

	type flow struct {
		number      int64
		total, tip  string
		paymentID   int64
		billID      string
		wantPaidTip string
	}
	flows := []*flow{{number: 101, total: "1234567.89", tip: "0.07"}, {number: 102, total: "987654321012345.67", tip: "19.99"}}
	for _, f := range flows {
		res, err := api.PushCheckWithResponse(ctx, nil, check(v.ID, f.number, f.total, f.total, "0.00", hospoapi.CheckStatusOpen), pos)
		if err != nil || res.JSON200 == nil {
			t.Fatalf("push check %d: %v %d %s", f.number, err, status(res), body(res))
		}
		f.billID = res.JSON200.BillId

		pay, err := api.CreatePaymentWithResponse(ctx, nil, hospoapi.CreatePaymentJSONRequestBody{
			LocationId: v.ID, CheckNumber: int(f.number), CardId: card.CardID, Amount: money(f.total), Tip: money(f.tip),
		}, user)
		if err != nil || pay.JSON201 == nil {
			t.Fatalf("pay check %d: %v %d %s", f.number, err, status(pay), body(pay))
		}
		p := pay.JSON201.Payment
		exact(t, "payment amount", p.Amount, f.total)
		exact(t, "payment tip", p.Tip, f.tip)
		f.paymentID = p.PaymentId
	}

	poll, err := api.PollPaymentsWithResponse(ctx, v.ID, pos)
	if err != nil || poll.JSON200 == nil {
		t.Fatalf("poll: %v %d %s", err, status(poll), body(poll))
	}
	for _, f := range flows {
		pending := poll.JSON200.Checks[strconv.FormatInt(f.number, 10)]
		if len(pending) != 1 || pending[0].PaymentId != f.paymentID {
			t.Fatalf("poll: check %d lists %+v, want payment %d", f.number, pending, f.paymentID)
		}
		exact(t, "polled amount", pending[0].PaymentExTip, f.total)
		exact(t, "polled tip", pending[0].Tip, f.tip)

		acc, err := api.AcceptPaymentWithResponse(ctx, nil, hospoapi.AcceptPaymentJSONRequestBody{PaymentId: f.paymentID}, pos)
		if err != nil || acc.JSON200 == nil {
			t.Fatalf("accept %d: %v %d %s", f.paymentID, err, status(acc), body(acc))
		}
		// The POS saves the payment on its check and closes it.
		res, err := api.PushCheckWithResponse(ctx, nil, check(v.ID, f.number, f.total, "0.00", f.tip, hospoapi.CheckStatusClosed), pos)
		if err != nil || res.JSON200 == nil {
			t.Fatalf("close check %d: %v %d %s", f.number, err, status(res), body(res))
		}
	}

	now := time.Unix(hb.JSON200.RequestInfo.ServerTime, 0)
	list, err := api.ListClosedBillsWithResponse(ctx, v.ID, &hospoapi.ListClosedBillsParams{
		From: now.Add(-time.Hour), To: now.Add(24 * time.Hour),
	}, vendor)
	if err != nil || list.JSON200 == nil {
		t.Fatalf("list bills: %v %d %s", err, status(list), body(list))
	}
	listed := map[string]bool{}
	for _, b := range list.JSON200.Bills {
		listed[b.BillId] = true
	}
	for _, f := range flows {
		if !listed[f.billID] {
			t.Errorf("bill %s of check %d not listed: %+v", f.billID, f.number, list.JSON200.Bills)
		}
		scope := []hospoapi.GetBillParamsScope{hospoapi.GetBillParamsScopeBillItems, hospoapi.GetBillParamsScopeBillPayments}
		got, err := api.GetBillWithResponse(ctx, f.billID, &hospoapi.GetBillParams{Scope: &scope}, vendor)
		if err != nil || got.JSON200 == nil {
			t.Fatalf("get bill %s: %v %d %s", f.billID, err, status(got), body(got))
		}
		b := got.JSON200.Bill
		exact(t, "bill total", b.TotalAmount, f.total)
		exact(t, "bill outstanding", b.OutstandingAmount, "0.00")
		exact(t, "bill tips", b.TipsPaid, f.tip)
		if b.Payments == nil || len(*b.Payments) != 1 {
			t.Fatalf("bill %s payments = %v, want one", f.billID, b.Payments)
		}
		exact(t, "bill payment amount", (*b.Payments)[0].Amount, f.total)
		exact(t, "bill payment tip", (*b.Payments)[0].Tip, f.tip)
		exact(t, "bill item price", (*b.Items)[0].Price, f.total)
	}

	// Both bill.closed deliveries decode into the generated event type.
	want := map[string]string{flows[0].billID: flows[0].total, flows[1].billID: flows[1].total}
	deadline, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for len(want) > 0 {
		select {
		case d := <-deliveries:
			raw := d.body
			// Both signatures verify with the secret as the service gave
			// it: Hospo-Signature with the SDK's verifier, the Standard
			// Webhooks headers with that specification's own library.
			if err := hospoSig.Verify(raw, d.header.Get(events.HeaderSignature)); err != nil {
				t.Errorf("Hospo-Signature: %v", err)
			}
			if err := standard.Verify(raw, d.header); err != nil {
				t.Errorf("Standard Webhooks signature: %v", err)
			}
			if d.header.Get("webhook-id") != d.header.Get(events.HeaderEventID) {
				t.Errorf("webhook-id %q, want the event id %q", d.header.Get("webhook-id"), d.header.Get(events.HeaderEventID))
			}
			altered := append([]byte(" "), raw...)
			if err := standard.Verify(altered, d.header); err == nil {
				t.Error("Standard Webhooks library accepts an altered body")
			}
			var ev hospoapi.Event
			if err := json.Unmarshal(raw, &ev); err != nil {
				t.Fatalf("delivery %s: %v", raw, err)
			}
			typed, err := ev.ValueByDiscriminator()
			if err != nil {
				t.Fatalf("delivery %s: %v", raw, err)
			}
			closed, ok := typed.(hospoapi.BillClosedEvent)
			if !ok {
				t.Fatalf("delivery decoded as %T, want BillClosedEvent", typed)
			}
			total, known := want[closed.Data.BillId]
			if !known {
				continue
			}
			exact(t, "delivered bill total", closed.Data.TotalAmount, total)
			delete(want, closed.Data.BillId)
		case <-deadline.Done():
			t.Fatalf("no bill.closed delivery for %v", want)
		}
	}
}

// check builds a pushed check of one item at total.
func check(loc, number int64, total, outstanding, tips string, st hospoapi.CheckStatus) hospoapi.Check {
	return hospoapi.Check{
		TableNumber: 4, CheckNumber: number, LocationId: loc, StaffId: "staff-1", Guests: 2, Status: st,
		TotalAmount: money(total), OutstandingAmount: money(outstanding), ServiceChargeAmount: money("0.00"),
		TipsPaid: money(tips), Discounts: []hospoapi.Discount{},
		MenuItems: []hospoapi.CheckItem{{Id: 1, Name: "Banquet", Quantity: 1, Price: money(total), PriceSold: money(total),
			Category: hospoapi.CheckCategory{Name: "Mains"}}},
	}
}

func exact(t *testing.T, what string, got hospoapi.Money, want string) {
	t.Helper()
	if got.Cmp(money(want)) != 0 {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

type response interface{ StatusCode() int }

func status(r response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode()
}

// body is the raw answer, for failure messages.
func body(r interface{ Status() string }) string {
	if r == nil {
		return ""
	}
	return r.Status()
}
