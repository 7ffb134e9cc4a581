package contract

import (
	"fmt"
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/wallet"
)

// paymentShape is the payment object (contract section 5).
var paymentShape = shape{
	"paymentId": "int", "locationId": "int", "checkNumber": "int", "billId": "string", "cardId": "int",
	"amount": "money", "tip": "money", "status": "string", "createdAt": "int",
}

// check returns an open check of v numbered n with one item, its total
// and outstanding amount outstanding ("20.00").
func check(v *venue, n int64, outstanding string) possync.Check {
	amt := client.MustParseMoney(outstanding)
	return possync.Check{
		TableNumber: 7, CheckNumber: n, LocationID: v.ID, StaffID: "contract", Guests: 2,
		Status: possync.CheckOpen, TotalAmount: amt, OutstandingAmount: amt,
		Discounts: []possync.Discount{},
		MenuItems: []possync.MenuItem{{ID: 1, Name: "Contract stew", Quantity: 1, Price: amt, PriceSold: amt,
			Category: possync.Category{Name: "Mains"}}},
	}
}

// push pushes c as v's POS.
func (t *T) push(v *venue, c possync.Check) possync.PushResult {
	res, err := v.POS.PushCheck(t.ctx, &c)
	t.ok(err, fmt.Sprintf("push check %d", c.CheckNumber))
	return res
}

// scene is what a payment needs: a location whose POS is online, an open
// check there and a user with a card for the location's gateway.
type scene struct {
	v     *venue
	a     *actor
	card  wallet.Card
	check int64
}

// newScene sets up a scene at venue() with a check of outstanding.
func (t *T) newScene(outstanding string) scene {
	return t.sceneAt(t.venue(), outstanding)
}

func (t *T) sceneAt(v *venue, outstanding string) scene {
	s := scene{v: v, a: t.newUser(), check: t.nextCheck()}
	t.push(v, check(v, s.check, outstanding))
	_, err := v.POS.Heartbeat(t.ctx, v.ID)
	t.ok(err, "heartbeat")
	s.card = t.addCard(s.a, testCard, wallet.ProviderB)
	return s
}

// request is a payment of amount and tip towards the scene's check.
func (s scene) request(amount, tip string) wallet.CreatePaymentRequest {
	return wallet.CreatePaymentRequest{LocationID: s.v.ID, CheckNumber: s.check, CardID: s.card.CardID,
		Amount: client.MustParseMoney(amount), Tip: client.MustParseMoney(tip)}
}

// pay pays amount and tip, ending the check if it fails.
func (t *T) pay(s scene, amount, tip string, opts ...client.Option) wallet.Payment {
	p, err := s.a.Wallet.CreatePayment(t.ctx, s.request(amount, tip), opts...)
	t.ok(err, "pay")
	return p
}

// refused sends req as the scene's user and checks that the payment is
// refused with code, which it returns.
func (t *T) refused(s scene, req wallet.CreatePaymentRequest, code client.Code, opts ...client.Option) *client.APIError {
	_, err := s.a.Wallet.CreatePayment(t.ctx, req, opts...)
	return t.wantError(err, code)
}

// paymentChecks cover interface 4.5 and 7 and contract section 5's payment.
var paymentChecks = []Check{
	{
		Name: "payments/create", Endpoint: "POST /payments/v1/payment",
		Rule:  "a payment answers 201 { payment, requestInfo } (apiVersion 1) with status pending and the amounts sent",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("20.00")
			p := t.pay(s, "5.00", "0.50")
			t.status(http.StatusCreated)
			t.shape(with(requestInfoShape, under("payment", paymentShape)))
			t.requestInfo(1, "authenticated")
			t.equal("payment.status", p.Status, wallet.PaymentPending)
			t.equal("payment.amount", p.Amount.String(), "5.00")
			t.equal("payment.tip", p.Tip.String(), "0.50")
			t.equal("payment.checkNumber", p.CheckNumber, s.check)
			t.equal("payment.cardId", p.CardID, s.card.CardID)
		},
	},
	{
		Name: "payments/get", Endpoint: "GET /payments/v1/payment/{paymentId}",
		Rule:  "a payment reads back as it was made, apiVersion 1",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("20.00")
			made := t.pay(s, "3.00", "0")
			got, err := s.a.Wallet.GetPayment(t.ctx, made.PaymentID)
			t.ok(err, "get the payment")
			t.shape(with(requestInfoShape, under("payment", paymentShape)))
			t.requestInfo(1, "authenticated")
			t.equal("payment", got, made)
		},
	},
	{
		Name: "payments/get-unknown", Endpoint: "GET /payments/v1/payment/{paymentId}",
		Rule:  "an unknown payment is 404001",
		Needs: NeedsUser,
		Run: func(t *T) {
			_, err := t.user().Wallet.GetPayment(t.ctx, unknownID)
			t.wantError(err, client.CodeNotFound)
		},
	},
	{
		Name: "payments/card-not-tokenised", Endpoint: "POST /payments/v1/payment",
		Rule:  "a card without the token of the location's gateway is 404006 \"Payment card not tokenised.\" with contextData.gateway",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.sceneAt(t.newVenue(wallet.ProviderD, true), "10.00")
			e := t.refused(s, s.request("1.00", "0"), client.CodeCardNotTokenised)
			t.equal("message", e.Message, "Payment card not tokenised.")
			t.equal("contextData.gateway", t.contextData(e)["gateway"], "providerD")
		},
	},
	{
		Name: "payments/card-not-tokenised-recovery", Endpoint: "GET /v1/location/{id}, POST /v3/user/me/wallet/card/insert, POST /payments/v1/payment",
		Rule:  "after a 404006, tokenising the card for the gateway the location's details name makes the payment go through",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.sceneAt(t.newVenue(wallet.ProviderD, true), "10.00")
			t.refused(s, s.request("1.00", "0"), client.CodeCardNotTokenised)
			loc, err := s.a.Wallet.GetLocation(t.ctx, s.v.ID)
			t.ok(err, "get the location")
			t.equal("location.locationPaymentDetails.gateway", loc.LocationPaymentDetails.Gateway, wallet.ProviderD)
			s.card = t.addCard(s.a, testCard, loc.LocationPaymentDetails.Gateway)
			p := t.pay(s, "1.00", "0")
			t.status(http.StatusCreated)
			t.equal("payment.status", p.Status, wallet.PaymentPending)
		},
	},
	{
		Name: "payments/location-offline", Endpoint: "POST /payments/v1/payment",
		Rule:  "a payment at a location whose POS sent no heartbeat is 409003 with contextData lastHeartbeat null and offlineAfterSeconds 360",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			v := t.newVenue(wallet.ProviderB, false)
			a := t.newUser()
			n := t.nextCheck()
			t.push(v, check(v, n, "10.00"))
			card := t.addCard(a, testCard, wallet.ProviderB)
			_, err := a.Wallet.CreatePayment(t.ctx, wallet.CreatePaymentRequest{LocationID: v.ID, CheckNumber: n,
				CardID: card.CardID, Amount: client.MustParseMoney("1.00"), Tip: client.MustParseMoney("0")})
			cd := t.contextData(t.wantError(err, client.CodeLocationOffline))
			t.equal("contextData.lastHeartbeat", cd["lastHeartbeat"], nil)
			t.equal("contextData.offlineAfterSeconds", cd["offlineAfterSeconds"], float64(360))
		},
	},
	{
		Name: "payments/exceeds-outstanding", Endpoint: "POST /payments/v1/payment",
		Rule:  "a payment above the check's outstanding amount less the payments not yet accepted is 409002",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("10.00")
			t.refused(s, s.request("10.01", "0"), client.CodeAmountExceedsOutstanding)
			t.pay(s, "6.00", "0")
			t.refused(s, s.request("4.01", "0"), client.CodeAmountExceedsOutstanding)
			t.pay(s, "4.00", "0")
		},
	},
	{
		Name: "payments/declined", Endpoint: "POST /payments/v1/payment",
		Rule:  "a payment the provider declines (the sandbox's test card 4000000000000002) is 402001",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("10.00")
			s.card = t.addCard(s.a, declinedCard, wallet.ProviderB)
			t.refused(s, s.request("1.00", "0"), client.CodePaymentDeclined)
		},
	},
	{
		Name: "payments/card-not-usable", Endpoint: "POST /payments/v1/payment",
		Rule:  "a payment with a card whose status is not Live or Temporary is 409005",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("10.00")
			t.ok(t.admin().SetCardStatus(t.ctx, s.card.CardID, wallet.CardStatusUserCancelled), "set-up: cancel the card")
			t.refused(s, s.request("1.00", "0"), client.CodeCardNotUsable)
		},
	},
	{
		Name: "payments/validation", Endpoint: "POST /payments/v1/payment",
		Rule:  "a payment body breaking several rules is one 400002 naming every failing field, money with 3 decimals included",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("10.00")
			req := rawRequest{Method: http.MethodPost, Path: "/payments/v1/payment", AccessToken: s.a.Token}
			req.Body = fmt.Appendf(nil, `{"locationId":%d,"amount":0,"tip":-1}`, s.v.ID)
			t.rawFields(req, "amount", "tip", "cardId", "checkNumber")
			req.Body = fmt.Appendf(nil, `{"locationId":%d,"checkNumber":%d,"cardId":%d,"amount":1.005,"tip":0}`, s.v.ID, s.check, s.card.CardID)
			t.rawFields(req, "amount")
		},
	},
	{
		Name: "payments/not-found", Endpoint: "POST /payments/v1/payment, GET /payments/v1/payment/{paymentId}",
		Rule:  "another user's card or payment, an unknown check and an unknown location are 404001, never 403",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("10.00")
			other := t.newUser()
			otherCard := t.addCard(other, testCard, wallet.ProviderB)
			req := s.request("1.00", "0")
			req.CardID = otherCard.CardID
			t.refused(s, req, client.CodeNotFound)
			req = s.request("1.00", "0")
			req.CheckNumber = unknownID
			t.refused(s, req, client.CodeNotFound)
			req = s.request("1.00", "0")
			req.LocationID = unknownID
			t.refused(s, req, client.CodeNotFound)
			p := t.pay(s, "1.00", "0")
			_, err := other.Wallet.GetPayment(t.ctx, p.PaymentID)
			t.wantError(err, client.CodeNotFound)
		},
	},
}

// idempotencyChecks cover contract section 4.
var idempotencyChecks = []Check{
	{
		Name: "idempotency/payment-replay", Endpoint: "POST /payments/v1/payment",
		Rule:  "a payment sent again with the same Idempotency-Key and body answers the first response and pays once",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("10.00")
			key := client.WithIdempotencyKey(fmt.Sprintf("contract-%d-%d", s.v.ID, s.check))
			first := t.pay(s, "2.00", "0", key)
			again := t.pay(s, "2.00", "0", key)
			t.status(http.StatusCreated)
			t.equal("payment (replayed)", again, first)
			pending, err := s.v.POS.Payments(t.ctx, s.v.ID)
			t.ok(err, "poll the payments")
			t.equal(fmt.Sprintf("checks.%d: payments", s.check), len(pending[s.check]), 1)
		},
	},
	{
		Name: "idempotency/key-reused", Endpoint: "POST /payments/v1/payment",
		Rule:  "the same Idempotency-Key with another body is 409004",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("10.00")
			key := client.WithIdempotencyKey(fmt.Sprintf("contract-reuse-%d-%d", s.v.ID, s.check))
			t.pay(s, "2.00", "0", key)
			t.refused(s, s.request("3.00", "0"), client.CodeIdempotencyKeyReused, key)
		},
	},
	{
		Name: "idempotency/webhook-replay", Endpoint: "POST /v1/webhooks, DELETE /v1/webhooks/{webhookId}",
		Rule:  "a webhook created again with the same Idempotency-Key and body is the same webhook, created once",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			ev := t.vendor().Events
			key := client.WithIdempotencyKey("contract-webhook-" + randomID())
			first := t.createWebhook(key)
			again := t.createWebhook(key)
			t.equal("webhook.webhookId (replayed)", again.Webhook.WebhookID, first.Webhook.WebhookID)
			hooks, err := ev.ListWebhooks(t.ctx)
			t.ok(err, "list the webhooks")
			n := 0
			for _, h := range hooks {
				if h.WebhookID == first.Webhook.WebhookID {
					n++
				}
			}
			t.equal("webhooks with that webhookId", n, 1)
		},
	},
}
