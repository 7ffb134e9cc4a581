package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// world is what the requests of TestDocumentValidBodiesAreNotRefusedAsInvalid
// refer to: the demo location (providerB, wired to the demo POS, so with
// a menu), online, with an open check; a user with a providerB card and a
// pending payment towards the check.
type world struct {
	env         *refservertest.Env
	loc         int64
	posToken    string
	userToken   string
	cse         string // providerB CSE of testCard
	cardID      int64
	checkNumber int64
	paymentID   int64
	dKey        string // a providerD key not used yet, or ""
}

func newWorld(t *testing.T, env *refservertest.Env) *world {
	t.Helper()
	f := env.Fixtures(t)
	w := &world{env: env, loc: f.Locations[0].LocationID, posToken: f.Locations[0].POSAccessToken, checkNumber: 9001}
	_, w.userToken = env.NewUser(t)
	ws := wallet.NewService(env.Client(t, client.WithAccessToken(w.userToken)))
	var err error
	if w.cse, err = ws.ProviderBCSE(t.Context(), testCard); err != nil {
		t.Fatalf("CSE: %v", err)
	}
	card, err := ws.AddCard(t.Context(), wallet.AddCardRequest{Card: testCard, Providers: []wallet.Gateway{wallet.ProviderB}})
	if err != nil {
		t.Fatalf("AddCard: %v", err)
	}
	w.cardID = card.CardID

	pos := target{method: "POST", auth: posAuth}
	w.mustSend(t, pos, request{path: fmt.Sprintf("/v1/pos/push-pull/heartbeat/%d", w.loc)}, nil)
	w.mustSend(t, pos, request{path: "/v1/pos/push-pull/check", body: jsonObject(t, fmt.Sprintf(`{
		"tableNumber": 1, "checkNumber": %d, "locationId": %d, "staffId": "s", "guests": 1, "status": "open",
		"totalAmount": 1000, "outstandingAmount": 1000, "serviceChargeAmount": 0, "tipsPaid": 0,
		"discounts": [], "menuItems": []}`, w.checkNumber, w.loc))}, nil)
	var paid struct {
		Payment struct {
			PaymentID int64 `json:"paymentId"`
		} `json:"payment"`
	}
	w.mustSend(t, target{method: "POST", auth: userAuth}, request{path: "/payments/v1/payment", body: map[string]any{
		"locationId": w.loc, "checkNumber": w.checkNumber, "cardId": w.cardID, "amount": 1, "tip": 0,
	}}, &paid)
	w.paymentID = paid.Payment.PaymentID
	w.waitForMenu(t)
	return w
}

// send sends req as tg says and returns the answer's error code (0 for a
// success), its status and its body.
func (w *world) send(t *testing.T, tg target, req request) (client.Code, int, string) {
	t.Helper()
	base, hc := w.env.URL, http.DefaultClient
	if tg.tls {
		base, hc = w.env.TLSURL, w.env.HTTPSClient()
	}
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(marshal(t, req.body))
	}
	method := tg.method
	if method == "" {
		method = "POST"
	}
	r, err := http.NewRequestWithContext(t.Context(), method, base+req.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if req.body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range req.header {
		r.Header[k] = v
	}
	if tg.auth != nil {
		tg.auth(w, r)
	}
	resp, err := hc.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, req.path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var eb struct {
		Error bool        `json:"error"`
		Code  client.Code `json:"code"`
	}
	_ = json.Unmarshal(raw, &eb)
	if !eb.Error {
		eb.Code = 0
	}
	if len(raw) > 400 {
		raw = append(raw[:400:400], "..."...)
	}
	return eb.Code, resp.StatusCode, string(raw)
}

// mustSend sends req and fails the test unless it succeeds; out, when not
// nil, receives the answer.
func (w *world) mustSend(t *testing.T, tg target, req request, out any) {
	t.Helper()
	tg.auth = firstNonNil(tg.auth, userAuth)
	base, hc := w.env.URL, http.DefaultClient
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(marshal(t, req.body))
	}
	r, err := http.NewRequestWithContext(t.Context(), tg.method, base+req.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if req.body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	tg.auth(w, r)
	resp, err := hc.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", tg.method, req.path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatal(err)
		}
	}
}

func firstNonNil(fs ...func(*world, *http.Request)) func(*world, *http.Request) {
	for _, f := range fs {
		if f != nil {
			return f
		}
	}
	return nil
}

// orderBody is a one-line order from the demo menu: a halloumi burger with
// one of its optional extras.
func (w *world) orderBody(t *testing.T) map[string]any {
	return jsonObject(t, fmt.Sprintf(`{"locationId": %d, "items": [
		{"plu": "GRL-002", "quantity": 1, "options": [{"plu": "HAL-CHILLI", "quantity": 1, "options": []}]}]}`, w.loc))
}

// newOrder creates an order and returns its id.
func (w *world) newOrder(t *testing.T) string {
	t.Helper()
	var out struct {
		OrderID string `json:"orderId"`
	}
	w.mustSend(t, target{method: "POST", auth: userAuth}, request{path: "/ordering/v3/order", body: w.orderBody(t)}, &out)
	return out.OrderID
}

// providerDKey returns a providerD key that has served no token yet.
func (w *world) providerDKey(t *testing.T) string {
	t.Helper()
	if w.dKey != "" {
		return w.dKey
	}
	var out wallet.ProviderDKey
	w.mustSend(t, target{method: "GET", auth: userAuth}, request{path: "/v2/payment/providerD/keys"}, &out)
	if out.Key.KeyID == "" {
		t.Fatal("no keyId in the keys answer")
	}
	w.dKey = out.Key.KeyID
	return w.dKey
}

// waitForMenu waits until the demo location's menu has been synced from
// the demo POS, which happens in the background at start.
func (w *world) waitForMenu(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var m struct {
			Menus []any `json:"menus"`
		}
		resp, err := http.Get(fmt.Sprintf("%s/v2/location/%d/menu", w.env.URL, w.loc))
		if err == nil {
			_ = json.NewDecoder(resp.Body).Decode(&m)
			resp.Body.Close()
			if len(m.Menus) > 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo location's menu never synced (%v)", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
