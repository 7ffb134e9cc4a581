package e2e_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// TestFaultsEndpoint checks POST/GET/DELETE /sandbox/faults itself, through
// the SDK: validation, counting, method matching, the injected error's
// code, after-commit semantics and that admin endpoints are never faulted.
// Faults are the server's state, so each case has a server of its own.
func TestFaultsEndpoint(t *testing.T) {
	t.Parallel()
	noRetry := client.WithMaxRetries(0)

	inOwnWorld(t, "needs the admin key", func(t *testing.T, w *world) {
		ctx := t.Context()
		var out any
		_, err := w.diner.Client.Do(ctx, &client.Request{Method: http.MethodPost, Path: "sandbox/faults",
			Body: fault{PathPrefix: "/v1/", Status: 503}, Auth: client.AuthAdminKey}, &out,
			client.WithAdminKey("not-the-admin-key"))
		if !errors.Is(err, client.ErrAdminKeyInvalid) {
			t.Fatalf("err = %v, want 401005", err)
		}
		if got := w.faults(t); len(got) != 0 {
			t.Fatalf("a refused fault was registered: %+v", got)
		}
	})

	inOwnWorld(t, "validation", func(t *testing.T, w *world) {
		ctx := t.Context()
		tests := []struct {
			body  any
			field string
		}{
			{fault{PathPrefix: "/v1/", Status: 200}, "status"},
			{fault{PathPrefix: "/v1/", Status: 600}, "status"},
			{fault{PathPrefix: "/v1/"}, "status"}, // neither status nor latency
			{fault{Status: 503}, "pathPrefix"},
			{fault{PathPrefix: "v1/", Status: 503}, "pathPrefix"},
			{fault{PathPrefix: "/sandbox/faults", Status: 503}, "pathPrefix"},
			{fault{PathPrefix: "/sandbox/users", Status: 503}, "pathPrefix"},
			{fault{Method: "BREW", PathPrefix: "/v1/", Status: 503}, "method"},
			{map[string]any{"pathPrefix": "/v1/", "status": 503, "count": 0}, "count"},
			{map[string]any{"pathPrefix": "/v1/", "status": 503, "count": 1001}, "count"},
			{fault{PathPrefix: "/v1/", LatencyMs: -1}, "latencyMs"},
			{fault{PathPrefix: "/v1/", LatencyMs: 60_001}, "latencyMs"},
		}
		for _, tt := range tests {
			_, err := w.admin.Do(ctx, &client.Request{Method: http.MethodPost, Path: "sandbox/faults", Body: tt.body, Auth: client.AuthAdminKey}, nil)
			var apiErr *client.APIError
			if !errors.As(err, &apiErr) || apiErr.Code != client.CodeValidation {
				t.Errorf("%+v: err = %v, want 400002", tt.body, err)
				continue
			}
			if _, ok := apiErr.FieldErrors()[tt.field]; !ok {
				t.Errorf("%+v: field errors %v do not name %q", tt.body, apiErr.FieldErrors(), tt.field)
			}
		}
		if got := w.faults(t); len(got) != 0 {
			t.Fatalf("refused faults were registered: %+v", got)
		}
	})

	inOwnWorld(t, "count, method and the injected code", func(t *testing.T, w *world) {
		ctx := t.Context()
		f := w.addFault(t, fault{Method: "post", PathPrefix: "/v1/pos/push-pull/heartbeat/", Status: 503, Count: 2})
		if f.ID == 0 || f.Method != "POST" || f.Remaining != 2 || f.Count != 2 {
			t.Fatalf("created fault %+v", f)
		}
		// A GET of another path is not matched.
		if _, err := w.venue.POS.Payments(ctx, w.venue.ID, noRetry); err != nil {
			t.Fatalf("payments poll under a POST fault: %v", err)
		}
		for i := range 2 {
			_, err := w.venue.POS.Heartbeat(ctx, w.venue.ID, noRetry)
			var apiErr *client.APIError
			if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 503 || apiErr.Code != 503001 || apiErr.RequestID == "" {
				t.Fatalf("heartbeat %d: err = %#v, want an injected 503001", i, err)
			}
			if left := w.faults(t); i == 0 && (len(left) != 1 || left[0].Remaining != 1) {
				t.Fatalf("after one match: %+v", left)
			}
		}
		if left := w.faults(t); len(left) != 0 {
			t.Fatalf("a used-up fault is still listed: %+v", left)
		}
		if _, err := w.venue.POS.Heartbeat(ctx, w.venue.ID, noRetry); err != nil {
			t.Fatalf("heartbeat after the fault: %v", err)
		}
	})

	inOwnWorld(t, "admin endpoints are never faulted", func(t *testing.T, w *world) {
		ctx := t.Context()
		w.addFault(t, fault{PathPrefix: "/", Status: 500, Count: 1000})
		// The admin API works under a catch-all fault...
		if _, _, err := newUserVia(ctx, w.admin); err != nil {
			t.Fatalf("POST /sandbox/users under a catch-all fault: %v", err)
		}
		if got := w.faults(t); len(got) != 1 || got[0].Remaining != 1000 {
			t.Fatalf("the admin calls used up the fault: %+v", got)
		}
		// ...while the API does not.
		if _, err := w.diner.Wallet.GetLocation(ctx, w.venue.ID, noRetry); !errors.Is(err, client.Code(500001)) {
			t.Fatalf("GET location under a catch-all fault: %v", err)
		}
		w.clearFaults(t)
		if got := w.faults(t); len(got) != 0 {
			t.Fatalf("after DELETE: %+v", got)
		}
		if _, err := w.diner.Wallet.GetLocation(ctx, w.venue.ID, noRetry); err != nil {
			t.Fatalf("GET location after DELETE: %v", err)
		}
	})

	inOwnWorld(t, "the sandbox's own calls neither use nor suffer faults", func(t *testing.T, w *world) {
		// Every GET of the demo POS fails, which is what the server's
		// health checks and menu syncs of it are. Wiring the venue to the
		// demo POS makes the server sync its menu from there at once.
		const count = 1000
		w.addFault(t, fault{Method: "GET", PathPrefix: "/sandbox/demo-pos/", Status: 500, Count: count})
		if _, err := w.admin.Do(t.Context(), &client.Request{Method: http.MethodPut, Path: "sandbox/locations/" + strconv.FormatInt(w.venue.ID, 10) + "/demo-pos",
			Body: map[string]string{"mode": "accept"}, Auth: client.AuthAdminKey}, nil); err != nil {
			t.Fatalf("PUT demo-pos: %v", err)
		}
		w.env.WaitForMenu(t, w.venue.ID)
		if got := w.faults(t); len(got) != 1 || got[0].Remaining != count {
			t.Fatalf("the sandbox's own calls used up the fault: %+v", got)
		}
		// A client calling the demo POS still meets the fault.
		res, err := http.Get(w.env.URL + "/sandbox/demo-pos/health")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusInternalServerError {
			t.Fatalf("a client's GET of the demo POS under the fault: %d, want 500", res.StatusCode)
		}
	})

	inOwnWorld(t, "latency only", func(t *testing.T, w *world) {
		ctx := t.Context()
		w.addFault(t, fault{Method: "GET", PathPrefix: "/v1/location/", LatencyMs: 50})
		if _, err := w.diner.Wallet.GetLocation(ctx, w.venue.ID, noRetry); err != nil {
			t.Fatalf("GET location with injected latency: %v", err)
		}
		if got := w.faults(t); len(got) != 0 {
			t.Fatalf("latency fault not used: %+v", got)
		}
	})

	inOwnWorld(t, "after commit the work is done and the answer lost", func(t *testing.T, w *world) {
		ctx := t.Context()
		w.addFault(t, fault{Method: "POST", PathPrefix: "/v1/pos/push-pull/check", Status: 502, AfterCommit: true})
		_, err := w.venue.POS.PushCheck(ctx, w.check(9001, "12.00"), noRetry)
		if !errors.Is(err, client.Code(502001)) {
			t.Fatalf("push: err = %v, want the injected 502001", err)
		}
		if n := count(t, w.db, `SELECT COUNT(*) FROM bills WHERE location_id = ? AND check_number = 9001`, w.venue.ID); n != 1 {
			t.Fatalf("%d bills for the check whose answer was lost, want 1", n)
		}
	})

	inOwnWorld(t, "reset clears faults", func(t *testing.T, w *world) {
		ctx := t.Context()
		w.addFault(t, fault{PathPrefix: "/v1/", Status: 503, Count: 5})
		if _, err := w.admin.Do(ctx, &client.Request{Method: http.MethodPost, Path: "sandbox/reset", Auth: client.AuthAdminKey}, nil); err != nil {
			t.Fatalf("reset: %v", err)
		}
		if got := w.faults(t); len(got) != 0 {
			t.Fatalf("faults after reset: %+v", got)
		}
	})
}

// inOwnWorld runs f as a parallel subtest on a world of its own, so that
// no subtest sees what another did to the server.
func inOwnWorld(t *testing.T, name string, f func(t *testing.T, w *world)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		f(t, newWorld(t))
	})
}

// newUserVia creates a user with the admin API through c.
func newUserVia(ctx context.Context, c *client.Client) (int64, string, error) {
	var out struct {
		UserID      int64  `json:"userId"`
		AccessToken string `json:"accessToken"`
	}
	_, err := c.Do(ctx, &client.Request{Method: http.MethodPost, Path: "sandbox/users", Auth: client.AuthAdminKey}, &out)
	return out.UserID, out.AccessToken, err
}

// retryCase is one SDK call that the SDK retries (an idempotent method, or
// a POST with its Idempotency-Key). prepare sets up what the call needs and
// returns the path prefix to fault and the call itself.
type retryCase struct {
	name    string
	method  string
	prepare func(t *testing.T, w *world) (prefix string, call func(context.Context) error)
	// check, when set, verifies afterwards that the work was done once.
	check func(t *testing.T, w *world)
}

// retryCases lists every SDK call that is retried.
func retryCases() []retryCase {
	// Each case runs on a world of its own, so one check number serves
	// every case.
	const caseCheck = 101
	newCheck := func(t *testing.T, w *world, outstanding string) int64 {
		w.pushCheck(t, caseCheck, outstanding)
		return caseCheck
	}
	return []retryCase{
		{name: "get wallet", method: "GET", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			return "/v1/user/me", func(ctx context.Context) error { _, err := w.diner.Wallet.GetWallet(ctx); return err }
		}},
		{name: "get location", method: "GET", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			return "/v1/location/" + itoa(w.venue.ID), func(ctx context.Context) error { _, err := w.diner.Wallet.GetLocation(ctx, w.venue.ID); return err }
		}},
		{name: "location menu", method: "GET", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			return "/v2/location/", func(ctx context.Context) error { _, err := w.diner.Order.Menu(ctx, w.demoLoc); return err }
		}},
		{name: "providerB public key", method: "GET", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			return "/sandbox/providerB/public-key", func(ctx context.Context) error { _, err := w.diner.Wallet.ProviderBPublicKey(ctx); return err }
		}},
		{name: "providerD keys", method: "GET", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			return "/v2/payment/providerD/keys", func(ctx context.Context) error { _, err := w.diner.Wallet.ProviderDKeys(ctx); return err }
		}},
		{name: "card insert", method: "POST", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			return "/v3/user/me/wallet/card/insert", func(ctx context.Context) error {
				c, err := w.diner.Wallet.AddCard(ctx, wallet.AddCardRequest{Card: refservertest.Card(visaNumber), Providers: []wallet.Gateway{wallet.ProviderB}})
				w.diner.Card = c
				return err
			}
		}, check: func(t *testing.T, w *world) {
			if n := count(t, w.db, `SELECT COUNT(*) FROM cards WHERE user_id = ?`, w.diner.UserID); n != 1 {
				t.Errorf("%d cards, want 1", n)
			}
		}},
		{name: "create payment", method: "POST", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			n := newCheck(t, w, "40.00")
			req := w.payment(t, n, "10.00")
			return "/payments/v1/payment", func(ctx context.Context) error { _, err := w.diner.Wallet.CreatePayment(ctx, req); return err }
		}, check: func(t *testing.T, w *world) {
			if n := count(t, w.db, `SELECT COUNT(*) FROM payments WHERE check_number = ?`, caseCheck); n != 1 {
				t.Errorf("%d payments, want 1", n)
			}
		}},
		{name: "get payment", method: "GET", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			p := w.pay(t, newCheck(t, w, "40.00"), "1.00")
			return "/payments/v1/payment/" + itoa(p.PaymentID), func(ctx context.Context) error { _, err := w.diner.Wallet.GetPayment(ctx, p.PaymentID); return err }
		}},
		{name: "create order", method: "POST", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			return "/ordering/v3/order", func(ctx context.Context) error {
				_, err := w.diner.Order.CreateOrder(ctx, w.orderRequest())
				return err
			}
		}, check: func(t *testing.T, w *world) {
			if n := count(t, w.db, `SELECT COUNT(*) FROM orders WHERE user_id = ?`, w.diner.UserID); n != 1 {
				t.Errorf("%d orders, want 1", n)
			}
		}},
		{name: "get order", method: "GET", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			o := w.createOrder(t)
			return "/ordering/v3/order/" + o, func(ctx context.Context) error { _, err := w.diner.Order.Order(ctx, o); return err }
		}},
		{name: "set fulfillment", method: "POST", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			o := w.createOrder(t)
			return "/ordering/v3/order/" + o + "/fulfillment-type/", func(ctx context.Context) error {
				return w.diner.Order.Set(ctx, o, fulfillment.OrderAtTable{TableNumber: 4})
			}
		}},
		{name: "check push", method: "POST", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			c := w.check(caseCheck, "20.00")
			return "/v1/pos/push-pull/check", func(ctx context.Context) error { _, err := w.venue.POS.PushCheck(ctx, c); return err }
		}, check: func(t *testing.T, w *world) {
			if n := count(t, w.db, `SELECT version FROM bills WHERE location_id = ? AND check_number = ?`, w.venue.ID, caseCheck); n != 1 {
				t.Errorf("version %d, want 1", n)
			}
		}},
		{name: "payments poll", method: "GET", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			return "/v1/pos/push-pull/payments/" + itoa(w.venue.ID), func(ctx context.Context) error { _, err := w.venue.POS.Payments(ctx, w.venue.ID); return err }
		}},
		{name: "accept payment", method: "POST", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			p := w.pay(t, newCheck(t, w, "40.00"), "2.00")
			return "/v1/pos/push-pull/accept-payment", func(ctx context.Context) error { _, err := w.venue.POS.AcceptPayment(ctx, p.PaymentID); return err }
		}},
		{name: "heartbeat", method: "POST", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			return "/v1/pos/push-pull/heartbeat/", func(ctx context.Context) error { _, err := w.venue.POS.Heartbeat(ctx, w.venue.ID); return err }
		}},
		{name: "closed bills", method: "GET", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			c := w.check(caseCheck, "0.00")
			c.Status = possync.CheckClosed
			if _, err := w.venue.POS.PushCheck(t.Context(), c); err != nil {
				t.Fatalf("push a closed check: %v", err)
			}
			return "/v3/location/", func(ctx context.Context) error {
				now := time.Now()
				_, err := w.bills.ListClosed(ctx, w.venue.ID, now.Add(-time.Hour), now.Add(time.Hour))
				return err
			}
		}},
		{name: "get bill", method: "GET", prepare: func(t *testing.T, w *world) (string, func(context.Context) error) {
			res := w.pushCheck(t, caseCheck, "7.00")
			return "/v3/bill/", func(ctx context.Context) error {
				_, err := w.bills.Get(ctx, res.BillID, bills.AllScopes())
				return err
			}
		}},
	}
}

// createOrder creates an order at the demo location and returns its id.
func (w *world) createOrder(t *testing.T) string {
	t.Helper()
	o, err := w.diner.Order.CreateOrder(t.Context(), w.orderRequest())
	if err != nil {
		t.Fatalf("CreateOrder: %v", err)
	}
	w.rec.take()
	return o.OrderID
}

// TestFaults503ThenSuccess fails every retried SDK call twice with an
// injected 503 and checks that the SDK's own retries get it through: three
// attempts, the same Idempotency-Key on each attempt of a POST, and the work
// done once. Each call has a world of its own.
func TestFaults503ThenSuccess(t *testing.T) {
	t.Parallel()
	for _, tc := range retryCases() {
		inOwnWorld(t, tc.name, func(t *testing.T, w *world) {
			w.waitForMenu(t)
			prefix, call := tc.prepare(t, w)
			w.rec.take()
			w.addFault(t, fault{Method: tc.method, PathPrefix: prefix, Status: 503, Count: 2})
			if err := call(t.Context()); err != nil {
				t.Fatalf("call after two 503s: %v", err)
			}
			if left := w.faults(t); len(left) != 0 {
				w.clearFaults(t)
				t.Fatalf("the fault was not used up: %+v", left)
			}
			as := on(w.rec.take(), tc.method, prefix)
			var statuses []int
			for _, a := range as {
				statuses = append(statuses, a.Status)
			}
			if len(statuses) != 3 || statuses[0] != 503 || statuses[1] != 503 || statuses[2]/100 != 2 {
				t.Fatalf("attempts %v, want [503 503 2xx]", statuses)
			}
			if tc.method == http.MethodPost {
				if as[0].Key == "" || as[1].Key != as[0].Key || as[2].Key != as[0].Key {
					t.Errorf("Idempotency-Keys %q %q %q, want one key on every attempt", as[0].Key, as[1].Key, as[2].Key)
				}
			}
			if tc.check != nil {
				tc.check(t, w)
			}
		})
	}
}

// TestFaultsAfterCommit loses the answer of each state-changing call after
// its work has been committed and lets the SDK retry on its own: the retry
// must be answered from the idempotency record, and the work must exist
// exactly once. Each call has a world of its own, set up with what it
// needs (a check to pay, a payment to accept, an order) before the fault.
func TestFaultsAfterCommit(t *testing.T) {
	t.Parallel()

	// lose injects one after-commit fault on prefix, runs call and checks
	// the two attempts: a lost answer, then a replay under the same key.
	lose := func(t *testing.T, w *world, prefix string, call func() error) {
		t.Helper()
		w.rec.take()
		w.addFault(t, fault{Method: "POST", PathPrefix: prefix, Status: 503, AfterCommit: true})
		if err := call(); err != nil {
			t.Fatalf("call with its first answer lost: %v", err)
		}
		as := on(w.rec.take(), "POST", prefix)
		if len(as) != 2 || as[0].Status != 503 || as[1].Status/100 != 2 {
			t.Fatalf("attempts %+v, want a 503 then a 2xx", as)
		}
		if as[0].Key == "" || as[1].Key != as[0].Key {
			t.Errorf("Idempotency-Keys %q and %q, want the same", as[0].Key, as[1].Key)
		}
		if !as[1].Replayed {
			t.Errorf("the retry was not answered from the idempotency record: %+v", as[1])
		}
	}

	inOwnWorld(t, "card insert", func(t *testing.T, w *world) {
		ctx := t.Context()
		var card wallet.Card
		lose(t, w, "/v3/user/me/wallet/card/insert", func() (err error) {
			card, err = w.diner.Wallet.AddCard(ctx, wallet.AddCardRequest{Card: refservertest.Card(visaNumber), Providers: []wallet.Gateway{wallet.ProviderB}})
			return err
		})
		u, err := w.diner.Wallet.GetWallet(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(u.Wallet) != 1 || u.Wallet[0].CardID != card.CardID {
			t.Errorf("wallet %+v, want the one card %d", u.Wallet, card.CardID)
		}
		if n := count(t, w.db, `SELECT COUNT(*) FROM card_tokens t JOIN cards c USING (card_id) WHERE c.user_id = ?`, w.diner.UserID); n != 1 {
			t.Errorf("%d card tokens, want 1", n)
		}
	})

	inOwnWorld(t, "check push", func(t *testing.T, w *world) {
		ctx := t.Context()
		var res possync.PushResult
		lose(t, w, "/v1/pos/push-pull/check", func() (err error) {
			res, err = w.venue.POS.PushCheck(ctx, w.check(501, "30.00"))
			return err
		})
		if res.Version != 1 || res.BillID == "" {
			t.Errorf("push result %+v, want version 1", res)
		}
		if n := count(t, w.db, `SELECT COUNT(*) FROM bills WHERE location_id = ? AND check_number = 501`, w.venue.ID); n != 1 {
			t.Errorf("%d bills, want 1", n)
		}
		if v := count(t, w.db, `SELECT version FROM bills WHERE location_id = ? AND check_number = 501`, w.venue.ID); v != 1 {
			t.Errorf("stored version %d, want 1", v)
		}
		// The same content again (a new call, a new key) keeps the version.
		again, err := w.venue.POS.PushCheck(ctx, w.check(501, "30.00"))
		if err != nil || again.Version != 1 || again.BillID != res.BillID {
			t.Errorf("re-push: %+v, %v; want the same bill at version 1", again, err)
		}
	})

	inOwnWorld(t, "payment create", func(t *testing.T, w *world) {
		ctx := t.Context()
		w.pushCheck(t, 501, "30.00")
		req := w.payment(t, 501, "12.25")
		var payment wallet.Payment
		lose(t, w, "/payments/v1/payment", func() (err error) {
			payment, err = w.diner.Wallet.CreatePayment(ctx, req)
			return err
		})
		if n := count(t, w.db, `SELECT COUNT(*) FROM payments WHERE location_id = ? AND check_number = 501`, w.venue.ID); n != 1 {
			t.Errorf("%d payments, want 1", n)
		}
		polled, err := w.venue.POS.Payments(ctx, w.venue.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int64][]possync.PaymentNotification{501: {{PaymentID: payment.PaymentID,
			PaymentExTip: client.MustParseMoney("12.25"), Tip: client.MustParseMoney("0.50")}}}
		if diff := cmp.Diff(want, polled, cmp.Comparer(func(a, b client.Money) bool { return a == b })); diff != "" {
			t.Errorf("payments poll (-want +got):\n%s", diff)
		}
	})

	inOwnWorld(t, "accept payment", func(t *testing.T, w *world) {
		ctx := t.Context()
		w.pushCheck(t, 501, "30.00")
		payment := w.pay(t, 501, "12.25")
		var res possync.AcceptResult
		lose(t, w, "/v1/pos/push-pull/accept-payment", func() (err error) {
			res, err = w.venue.POS.AcceptPayment(ctx, payment.PaymentID)
			return err
		})
		if res.PaymentID != payment.PaymentID || res.Status != "accepted" {
			t.Errorf("accept result %+v", res)
		}
		if n := count(t, w.db, `SELECT COUNT(*) FROM payments WHERE payment_id = ? AND status = 'accepted' AND accepted_at IS NOT NULL`, payment.PaymentID); n != 1 {
			t.Errorf("payment not accepted once: %d rows", n)
		}
		polled, err := w.venue.POS.Payments(ctx, w.venue.ID)
		if err != nil || len(polled) != 0 {
			t.Errorf("payments poll after accepting: %v, %v; want none", polled, err)
		}
		p, err := w.diner.Wallet.GetPayment(ctx, payment.PaymentID)
		if err != nil || p.Status != wallet.PaymentAccepted {
			t.Errorf("payment %+v, %v; want accepted", p, err)
		}
	})

	inOwnWorld(t, "order create", func(t *testing.T, w *world) {
		w.waitForMenu(t)
		ctx := t.Context()
		var o fulfillment.CreatedOrder
		lose(t, w, "/ordering/v3/order", func() (err error) {
			o, err = w.diner.Order.CreateOrder(ctx, w.orderRequest())
			return err
		})
		if n := count(t, w.db, `SELECT COUNT(*) FROM orders WHERE user_id = ?`, w.diner.UserID); n != 1 {
			t.Errorf("%d orders, want 1", n)
		}
		got, err := w.diner.Order.Order(ctx, o.OrderID)
		if err != nil || got.Total != o.Total {
			t.Errorf("order %+v, %v; want total %v", got, err, o.Total)
		}
	})

	inOwnWorld(t, "fulfillment set", func(t *testing.T, w *world) {
		w.waitForMenu(t)
		ctx := t.Context()
		o := w.createOrder(t)
		lose(t, w, "/ordering/v3/order/"+o+"/fulfillment-type/", func() error {
			return w.diner.Order.Set(ctx, o, fulfillment.OrderAtTable{TableNumber: 12})
		})
		got, err := w.diner.Order.WaitForStatus(ctx, o, fulfillment.Settled, 20*time.Millisecond)
		if err != nil || got.Status != fulfillment.StatusAcceptedByPOS {
			t.Fatalf("order %+v, %v; want accepted by the POS", got, err)
		}
		// Sent to the POS once: one attempt recorded in the order.
		if n := count(t, w.db, `SELECT attempts FROM orders WHERE order_id = ?`, o); n != 1 {
			t.Errorf("order sent %d times, want 1", n)
		}
	})
}

// TestFaultsLatencyBeyondTimeout holds the first attempt of each call
// longer than the client's per-attempt timeout: the SDK gives up on it,
// retries, and the work is done once, even though the server, which cannot
// see that the client of a POST has gone before it reads the body, carries
// the abandoned attempt on once the latency is over (it is then answered
// from the idempotency record). Nothing here measures time: the injected
// latency only needs to exceed the client's timeout.
func TestFaultsLatencyBeyondTimeout(t *testing.T) {
	t.Parallel()
	// Only the call under test has the short attempt timeout: the world's
	// setup calls keep the usual one, which a busy machine needs. The
	// timeout is long enough for any attempt that is not held, and the
	// held one is held three times longer (the server carries an abandoned
	// POST out once the latency is over, which the test waits for).
	const clientTimeout = 5 * time.Second
	hold := fault{Status: 0, LatencyMs: 15_000}
	short := []client.Option{client.WithTimeout(clientTimeout), client.WithRetryPolicy(client.RetryPolicy{
		MaxRetries: 4, MinBackoff: 5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
	})}
	// Each case has a server of its own, whose abandoned attempt cannot
	// overlap another case. The OpenAPI check would report the abandoned
	// attempt (the server answers no one, which net/http sends as an empty
	// 200), so it is off.
	newLatencyWorld := func(t *testing.T) *world {
		t.Helper()
		return newWorldOn(t, refservertest.Start(t, refservertest.WithoutOpenAPIChecks()))
	}

	t.Run("GET", func(t *testing.T) {
		t.Parallel()
		w := newLatencyWorld(t)
		f := hold
		f.Method, f.PathPrefix = "GET", "/v1/user/me"
		w.addFault(t, f)
		u, err := w.diner.Wallet.GetWallet(t.Context(), short...)
		if err != nil || u.UserID != w.diner.UserID {
			t.Fatalf("GetWallet: %+v, %v", u, err)
		}
		as := on(w.rec.take(), "GET", "/v1/user/me")
		if len(as) < 2 || as[0].Err == nil || as[len(as)-1].Status != 200 {
			t.Fatalf("attempts %+v, want a timed-out attempt then a 200", as)
		}
	})

	for _, tc := range []struct {
		name, prefix string
		// prepare sets up what the call needs and returns it.
		prepare func(t *testing.T, w *world) (call func(context.Context) error)
		check   func(t *testing.T, w *world)
	}{
		{"payment", "/payments/v1/payment", func(t *testing.T, w *world) func(context.Context) error {
			w.pushCheck(t, 801, "25.00")
			req := w.payment(t, 801, "5.00")
			return func(ctx context.Context) error {
				_, err := w.diner.Wallet.CreatePayment(ctx, req, short...)
				return err
			}
		}, func(t *testing.T, w *world) {
			if n := count(t, w.db, `SELECT COUNT(*) FROM payments WHERE check_number = 801`); n != 1 {
				t.Errorf("%d payments, want 1", n)
			}
		}},
		{"check push", "/v1/pos/push-pull/check", func(t *testing.T, w *world) func(context.Context) error {
			return func(ctx context.Context) error {
				_, err := w.venue.POS.PushCheck(ctx, w.check(802, "9.00"), short...)
				return err
			}
		}, func(t *testing.T, w *world) {
			if v := count(t, w.db, `SELECT version FROM bills WHERE location_id = ? AND check_number = 802`, w.venue.ID); v != 1 {
				t.Errorf("version %d, want 1", v)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newLatencyWorld(t)
			w.addCard(t)
			call := tc.prepare(t, w)
			w.rec.take()
			f := hold
			f.Method, f.PathPrefix = "POST", tc.prefix
			w.addFault(t, f)
			if err := call(t.Context()); err != nil {
				t.Fatalf("call: %v", err)
			}
			as := on(w.rec.take(), "POST", tc.prefix)
			if len(as) < 2 || as[0].Err == nil || as[len(as)-1].Status/100 != 2 {
				t.Fatalf("attempts %+v, want a timed-out attempt then a 2xx", as)
			}
			for _, a := range as {
				if a.Key != as[0].Key || a.Key == "" {
					t.Errorf("attempts %+v: want one Idempotency-Key on all", as)
					break
				}
			}
			w.env.WaitIdle(t) // the abandoned attempt has run too
			tc.check(t, w)
		})
	}
}

// TestFaultsProviderDTokenise covers the one call the SDK deliberately does
// not retry: the providerD tokenisation, whose key serves a single token.
// An injected 503 there fails AddCard cleanly with nothing stored; calling
// AddCard again adds exactly one card.
func TestFaultsProviderDTokenise(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	w.addFault(t, fault{Method: "POST", PathPrefix: "/sandbox/providerD/tokenise", Status: 503})
	req := wallet.AddCardRequest{Card: refservertest.Card(visaNumber), Providers: []wallet.Gateway{wallet.ProviderD}}
	if _, err := w.diner.Wallet.AddCard(ctx, req); !errors.Is(err, client.Code(503001)) {
		t.Fatalf("AddCard with the provider failing: %v, want the injected 503001", err)
	}
	if n := count(t, w.db, `SELECT COUNT(*) FROM cards WHERE user_id = ?`, w.diner.UserID); n != 0 {
		t.Fatalf("%d cards after a failed AddCard", n)
	}
	c, err := w.diner.Wallet.AddCard(ctx, req)
	if err != nil || !c.Gateways.ProviderD {
		t.Fatalf("AddCard again: %+v, %v", c, err)
	}
	if n := count(t, w.db, `SELECT COUNT(*) FROM cards WHERE user_id = ?`, w.diner.UserID); n != 1 {
		t.Fatalf("%d cards, want 1", n)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
