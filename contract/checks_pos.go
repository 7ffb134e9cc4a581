package contract

import (
	"fmt"
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/wallet"
)

// posChecks cover interface 4.8 to 4.11 and contract section 5's
// push-pull answers.
var posChecks = []Check{
	{
		Name: "pos/push-check", Endpoint: "POST /v1/pos/push-pull/check",
		Rule:  "a push answers { billId, version, requestInfo } (apiVersion 1); the same content keeps the version, a change moves it, the billId stays",
		Needs: NeedsPOS | WritesData,
		Run: func(t *T) {
			v := t.venue()
			c := check(v, t.nextCheck(), "12.00")
			first := t.push(v, c)
			t.status(http.StatusOK)
			t.shape(with(requestInfoShape, shape{"billId": "string", "version": "int"}))
			t.requestInfo(1, "authenticated")
			same := t.push(v, c)
			t.equal("version after the same push", same.Version, first.Version)
			t.equal("billId after the same push", same.BillID, first.BillID)
			c.Guests++
			changed := t.push(v, c)
			if changed.Version <= first.Version {
				t.Errorf("version after a change: got %d, want more than %d", changed.Version, first.Version)
			}
			t.equal("billId after a change", changed.BillID, first.BillID)
		},
	},
	{
		Name: "pos/push-validation", Endpoint: "POST /v1/pos/push-pull/check",
		Rule:  "a check with an unknown status and a null non-nullable member is 400002 naming both",
		Needs: NeedsPOS | WritesData,
		Run: func(t *T) {
			v := t.venue()
			body := fmt.Appendf(nil, `{"tableNumber":1,"checkNumber":%d,"locationId":%d,"staffId":"s","guests":null,"status":"pending",`+
				`"totalAmount":1.00,"outstandingAmount":1.00,"serviceChargeAmount":0,"tipsPaid":0,"discounts":[],`+
				`"menuItems":[{"id":1,"name":"Tea","quantity":1,"price":1.00,"priceSold":1.00,"modifiers":null,"discount":null,`+
				`"category":{"name":"Drinks","category":null}}]}`, t.nextCheck(), v.ID)
			t.rawFields(rawRequest{Method: http.MethodPost, Path: "/v1/pos/push-pull/check", AccessToken: v.Token, Body: body},
				"status", "guests")
		},
	},
	{
		Name: "pos/push-other-location", Endpoint: "POST /v1/pos/push-pull/check",
		Rule:  "a check pushed with a locationId other than the POS token's location is 403001",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			v := t.venue()
			c := check(v, t.nextCheck(), "1.00")
			c.LocationID = t.otherLocation()
			_, err := v.POS.PushCheck(t.ctx, &c)
			t.wantError(err, client.CodeForbidden)
		},
	},
	{
		Name: "pos/heartbeat", Endpoint: "POST /v1/pos/push-pull/heartbeat/{locationId}, GET /v1/location/{id}",
		Rule:  "a heartbeat answers { status: ok, requestInfo } (apiVersion 1) and turns a new, offline location online",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			v := t.newVenue(wallet.ProviderB, false)
			w := wallet.NewService(t.sdk())
			loc, err := w.GetLocation(t.ctx, v.ID)
			t.ok(err, "get the new location")
			t.equal("location.posStatus before a heartbeat", loc.POSStatus, wallet.POSStatusOffline)
			t.equal("location.lastHeartbeat before a heartbeat", loc.LastHeartbeat, (*client.UnixTime)(nil))
			res, err := v.POS.Heartbeat(t.ctx, v.ID)
			t.ok(err, "heartbeat")
			t.shape(with(requestInfoShape, shape{"status": "string"}))
			t.requestInfo(1, "authenticated")
			t.equal("status", res.Status, "ok")
			loc, err = w.GetLocation(t.ctx, v.ID)
			t.ok(err, "get the location")
			t.equal("location.posStatus after a heartbeat", loc.POSStatus, wallet.POSStatusOnline)
			if loc.LastHeartbeat == nil {
				t.Errorf("location.lastHeartbeat after a heartbeat: got null, want a time")
			}
		},
	},
	{
		Name: "pos/payments-poll", Endpoint: "GET /v1/pos/push-pull/payments/{locationId}",
		Rule:  "the poll answers { checks: { <checkNumber>: [ { paymentId, paymentExTip, tip } ] } }, apiVersion 1",
		Needs: NeedsPOS,
		Run: func(t *T) {
			v := t.venue()
			_, err := v.POS.Payments(t.ctx, v.ID)
			t.ok(err, "poll the payments")
			t.status(http.StatusOK)
			t.shape(with(requestInfoShape, shape{"checks": "object"}))
			t.requestInfo(1, "authenticated")
			checks, _ := t.body()["checks"].(map[string]any)
			for n := range checks {
				t.shape(under("checks."+n+"[]", shape{"paymentId": "int", "paymentExTip": "money", "tip": "money"}))
			}
		},
	},
	{
		Name: "pos/payments-poll-pending", Endpoint: "GET /v1/pos/push-pull/payments/{locationId}",
		Rule:  "the poll lists the payments not yet accepted under their check number, oldest first, with their amounts",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("20.00")
			p1 := t.pay(s, "4.00", "0.40")
			p2 := t.pay(s, "5.00", "0")
			pending, err := s.v.POS.Payments(t.ctx, s.v.ID)
			t.ok(err, "poll the payments")
			got := pending[s.check]
			want := []possync.PaymentNotification{
				{PaymentID: p1.PaymentID, PaymentExTip: p1.Amount, Tip: p1.Tip},
				{PaymentID: p2.PaymentID, PaymentExTip: p2.Amount, Tip: p2.Tip},
			}
			t.equal(fmt.Sprintf("checks.%d", s.check), got, want)
		},
	},
	{
		Name: "pos/accept-payment", Endpoint: "POST /v1/pos/push-pull/accept-payment",
		Rule:  "accepting answers { paymentId, status: accepted } (apiVersion 1), again is 200, and the payment leaves the poll as accepted",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("20.00")
			p := t.pay(s, "4.00", "0")
			res, err := s.v.POS.AcceptPayment(t.ctx, p.PaymentID)
			t.ok(err, "accept the payment")
			t.shape(with(requestInfoShape, shape{"paymentId": "int", "status": "string"}))
			t.requestInfo(1, "authenticated")
			t.equal("paymentId", res.PaymentID, p.PaymentID)
			t.equal("status", res.Status, "accepted")
			_, err = s.v.POS.AcceptPayment(t.ctx, p.PaymentID)
			t.ok(err, "accept the payment again")
			t.status(http.StatusOK)
			pending, err := s.v.POS.Payments(t.ctx, s.v.ID)
			t.ok(err, "poll the payments")
			t.equal(fmt.Sprintf("checks.%d after accepting", s.check), len(pending[s.check]), 0)
			got, err := s.a.Wallet.GetPayment(t.ctx, p.PaymentID)
			t.ok(err, "get the payment")
			t.equal("payment.status", got.Status, wallet.PaymentAccepted)
		},
	},
	{
		Name: "pos/accept-other-location", Endpoint: "POST /v1/pos/push-pull/accept-payment",
		Rule:  "accepting another location's payment is 404001",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("20.00")
			p := t.pay(s, "4.00", "0")
			other := t.newVenue(wallet.ProviderB, false)
			_, err := other.POS.AcceptPayment(t.ctx, p.PaymentID)
			t.wantError(err, client.CodeNotFound)
		},
	},
}
