package refserver_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/console"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// fuzzRoutes are the routes FuzzRouter aims at: every endpoint of the API
// and of the sandbox admin API. {a} and {b} are replaced by the fuzzed
// path segments; the last entry takes its method and whole path from them.
var fuzzRoutes = []struct{ method, path string }{
	{"GET", "/v1/location/{a}"},
	{"GET", "/v2/location/{a}/menu"},
	{"GET", "/sandbox/providerB/public-key"},
	{"POST", "/sandbox/providerD/tokenise"},
	{"GET", "/v1/user/me"},
	{"POST", "/v3/user/me/wallet/card/insert"},
	{"GET", "/v2/payment/providerD/keys"},
	{"POST", "/payments/v1/payment"},
	{"GET", "/payments/v1/payment/{a}"},
	{"POST", "/ordering/v3/order"},
	{"GET", "/ordering/v3/order/{a}"},
	{"POST", "/ordering/v3/order/{a}/fulfillment-type/{b}"},
	{"POST", "/v1/pos/push-pull/check"},
	{"GET", "/v1/pos/push-pull/payments/{a}"},
	{"POST", "/v1/pos/push-pull/accept-payment"},
	{"POST", "/v1/pos/push-pull/heartbeat/{a}"},
	{"GET", "/v3/location/{a}/bills/closed"},
	{"GET", "/v3/bill/{a}"},
	{"GET", "/sandbox/fixtures"},
	{"POST", "/sandbox/users"},
	{"POST", "/sandbox/locations"},
	{"POST", "/sandbox/api-keys"},
	{"GET", "/sandbox/clock"},
	{"POST", "/sandbox/clock"},
	{"POST", "/sandbox/reset"},
	{"GET", "/sandbox/faults"},
	{"POST", "/sandbox/faults"},
	{"DELETE", "/sandbox/faults"},
	{"POST", "/sandbox/cards/{a}/status"},
	{"{b}", "{a}"},
}

// fuzzContentTypes are the Content-Types a fuzzed request may carry.
var fuzzContentTypes = []string{"application/json", "", "text/plain", "application/json; charset=utf-8", "application/json; =="}

// routerTarget is the server FuzzRouter sends its requests to, with the
// demo fixture's credentials (which a fuzzed /sandbox/reset recreates the
// same) and ids of real resources for the seeds.
type routerTarget struct {
	h       http.Handler
	admin   string
	users   [2]string
	pos     [2]string
	apiKeys [2]string
	locs    [2]int64
	seeds   map[string]string // name -> id, for the seed corpus
}

// loopbackOnly refuses connections to anything but the loopback interface,
// so that a fuzzed universal POS URL (POST /sandbox/locations posUrl) can
// never send the server's POS monitor or order dispatcher off the machine.
func loopbackOnly() *http.Client {
	d := &net.Dialer{Timeout: time.Second}
	return &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				return nil, errors.New("fuzz: only loopback addresses are allowed")
			}
			return d.DialContext(ctx, network, addr)
		},
	}}
}

func newRouterTarget(f *testing.F) *routerTarget {
	env := refservertest.Start(f, func(c *refservertest.Options) { c.HTTPClient = loopbackOnly() })
	fx := env.Fixtures(f)
	rt := &routerTarget{h: env.Server.Handler(), admin: env.AdminKey, seeds: map[string]string{}}
	for i := range 2 {
		rt.users[i] = fx.Users[i].AccessToken
		rt.pos[i] = fx.Locations[i].POSAccessToken
		rt.locs[i] = fx.Locations[i].LocationID
		rt.apiKeys[i] = fx.APIKeys[i].APIKey
	}

	// Real resources, so that seeds reach past the "unknown id" checks.
	ctx := f.Context()
	uc := env.Client(f, client.WithAccessToken(rt.users[0]))
	pos := possync.NewService(env.Client(f, client.WithAccessToken(rt.pos[0])))
	if _, err := pos.Heartbeat(ctx, rt.locs[0]); err != nil {
		f.Fatal(err)
	}
	res, err := pos.PushCheck(ctx, &possync.Check{TableNumber: 1, CheckNumber: 77, LocationID: rt.locs[0], StaffID: "s",
		Status: possync.CheckOpen, TotalAmount: client.MustParseMoney("50.00"), OutstandingAmount: client.MustParseMoney("50.00")})
	if err != nil {
		f.Fatal(err)
	}
	rt.seeds["bill"] = res.BillID
	card, err := wallet.NewService(uc).AddCard(ctx, wallet.AddCardRequest{Card: wallet.CardDetails{
		Number: "4111111111111111", CVC: "123", ExpiryMonth: 12, ExpiryYear: (time.Now().Year() + 2) % 100}, Providers: []wallet.Gateway{wallet.ProviderB}})
	if err != nil {
		f.Fatal(err)
	}
	rt.seeds["card"] = fmt.Sprint(card.CardID)
	p, err := wallet.NewService(uc).CreatePayment(ctx, wallet.CreatePaymentRequest{LocationID: rt.locs[0], CheckNumber: 77,
		CardID: card.CardID, Amount: client.MustParseMoney("1.00")})
	if err != nil {
		f.Fatal(err)
	}
	rt.seeds["payment"] = fmt.Sprint(p.PaymentID)
	orders := fulfillment.NewService(uc)
	deadline := time.Now().Add(time.Minute)
	for {
		o, err := orders.CreateOrder(ctx, fulfillment.OrderRequest{LocationID: rt.locs[0], Items: []fulfillment.OrderLine{{PLU: "SD-FRIES", Quantity: 1}}})
		if err == nil {
			rt.seeds["order"] = o.OrderID
			break
		}
		if time.Now().After(deadline) { // the demo menu never synced
			f.Fatalf("create order: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return rt
}

// request builds the fuzzed request, or nil when the input makes no valid
// HTTP request at all (which no client could send).
func (rt *routerTarget) request(route, cred uint8, a, b, query string, body []byte, ctype uint8) *http.Request {
	r := fuzzRoutes[int(route)%len(fuzzRoutes)]
	method, path := r.method, r.path
	if method == "{b}" {
		method, path = b, a
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
	} else {
		path = strings.ReplaceAll(path, "{a}", url.PathEscape(a))
		path = strings.ReplaceAll(path, "{b}", url.PathEscape(b))
	}
	u, err := url.Parse("http://127.0.0.1" + path)
	if err != nil || u.Host != "127.0.0.1" {
		return nil
	}
	u.RawQuery = query
	var token string
	hdr := http.Header{}
	switch cred % 8 {
	case 1, 2:
		token = rt.users[cred%8-1]
	case 3, 4:
		token = rt.pos[cred%8-3]
	case 5:
		hdr.Set(client.HeaderAPIKey, rt.apiKeys[(cred/16)%2])
	case 6:
		hdr.Set(client.HeaderAdminKey, rt.admin)
	case 7:
		token = "usr_not-a-real-token"
		hdr.Set(client.HeaderAPIKey, "not-a-real-key")
		hdr.Set(client.HeaderAdminKey, "not-the-admin-key")
	}
	if token != "" {
		if u.RawQuery != "" {
			u.RawQuery += "&"
		}
		u.RawQuery += "accessToken=" + url.QueryEscape(token)
	}
	req, err := http.NewRequest(method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil
	}
	if len(body) == 0 {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	if ct := fuzzContentTypes[int(ctype)%len(fuzzContentTypes)]; ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if cred&8 != 0 { // as if it came in on the HTTPS listener
		req.TLS = &tls.ConnectionState{HandshakeComplete: true, Version: tls.VersionTLS13}
	}
	req.RemoteAddr = "127.0.0.1:40000"
	return req
}

// notJSON reports whether path is one of the server's pages that are not
// JSON on success: the home page, the CA certificate and the console.
func notJSON(path string) bool {
	return path == "/" || path == "/sandbox/ca.pem" || path == console.Prefix || strings.HasPrefix(path, console.Prefix+"/")
}

// FuzzRouter sends fuzzed requests to every route of the server, through
// its whole middleware chain and router, with each kind of credential. No
// request may panic or cause a 500, and every error must be an error of the
// catalogue: JSON with "error": true, a known code, and the status that
// code implies. Seeds are in testdata/fuzz/FuzzRouter, beside those added
// here.
//
//	go test -run='^$' -fuzz='^FuzzRouter$' -fuzztime=60s ./refserver/
func FuzzRouter(f *testing.F) {
	rt := newRouterTarget(f)
	loc1, loc2 := fmt.Sprint(rt.locs[0]), fmt.Sprint(rt.locs[1])
	check := `{"tableNumber":1,"checkNumber":78,"locationId":` + loc1 + `,"staffId":"s","guests":2,"status":"open",` +
		`"totalAmount":1.00,"outstandingAmount":1.00,"serviceChargeAmount":0,"tipsPaid":0,"discounts":[],"menuItems":[]}`
	seeds := []struct {
		route, cred uint8
		a, b, query string
		body        string
	}{
		{0, 0, loc1, "", "", ""},
		{1, 0, loc1, "", "", ""},
		{1, 0, "-1", "", "", ""},
		{2, 0, "", "", "", ""},
		{3, 8, "", "", "", `{"keyId":"k","number":"4111111111111111","expiryMonth":7,"expiryYear":29,"cvc":"123"}`},
		{4, 1, "", "", "scope=wallet", ""},
		{5, 1, "", "", "", `{"expiryMonth":7,"expiryYear":29,"first6Digits":"411111","last4Digits":"1111","nickname":"n","save":true,"default":false,"providerBCse":"x.y.z.w.v"}`},
		{7, 1, "", "", "", `{"locationId":` + loc1 + `,"checkNumber":77,"cardId":` + rt.seeds["card"] + `,"amount":1.00,"tip":0.10}`},
		{7, 2, "", "", "", `{"locationId":` + loc1 + `,"checkNumber":77,"cardId":` + rt.seeds["card"] + `,"amount":1e400,"tip":-0}`},
		{8, 1, rt.seeds["payment"], "", "", ""},
		{9, 1, "", "", "", `{"locationId":` + loc1 + `,"items":[{"plu":"GRL-001","quantity":1,"options":[{"plu":"CK-MEDIUM","quantity":1,"options":[]}]}]}`},
		{9, 1, "", "", "", `{"locationId":` + loc1 + `,"items":[{"plu":"DEAL-BURGER-MEAL","quantity":2,"options":[{"plu":"GRL-002","quantity":1},{"plu":"SD-SLAW","quantity":1},{"plu":"DRK-003","quantity":1}]}]}`},
		{10, 1, rt.seeds["order"], "", "", ""},
		{11, 1, rt.seeds["order"], "order-at-table", "", `{"kitchenNotes":"","tableNumber":3}`},
		{11, 1, rt.seeds["order"], "delivery-by-delivery-partner", "", `{"collectionTime":"2026-01-01T10:00:00Z","collectionNotes":"","name":"n","phone":"p","orderReference":"r","kitchenNotes":"","customer":{"name":"c","phone":"p","email":"e","address":{"lineOne":"1","lineTwo":"","city":"c","postcode":"p","coordinates":{"latitude":1.5,"longitude":-0.1}}}}`},
		{12, 3, "", "", "", check},
		{12, 4, "", "", "", check},
		{13, 3, loc1, "", "", ""},
		{14, 3, "", "", "", `{"paymentId":` + rt.seeds["payment"] + `}`},
		{15, 3, loc1, "", "", ""},
		{16, 5, loc1, "", "from=2026-01-01T00:00:00%2B01:00&to=2026-01-30T00:00:00Z", ""},
		{16, 5 | 16, loc2, "", "from=2026-01-01T00:00:00+01:00&to=2026-01-30T00:00:00Z", ""},
		{17, 5, rt.seeds["bill"], "", "scope=bill.items,bill.payments,bill.users,bill.table,table.location,bill.staff", ""},
		{18, 6, "", "", "", ""},
		{19, 6, "", "", "", ""},
		{20, 6, "", "", "", `{"name":"Fuzz","gateway":"providerD","posUrl":"http://127.0.0.1:1/pos","posToken":"t"}`},
		{21, 6, "", "", "", `{"locationIds":[` + loc1 + `,` + loc2 + `]}`},
		{22, 6, "", "", "", ""},
		{23, 6, "", "", "", `{"advanceSeconds":60}`},
		{24, 6, "", "", "", ""},
		{26, 6, "", "", "", `{"method":"GET","pathPrefix":"/v1/","status":503,"count":2,"latencyMs":1}`},
		{27, 6, "", "", "", ""},
		{28, 6, rt.seeds["card"], "", "", `{"cardStatusId":5}`},
		{29, 1, "/v1/user/me", "PATCH", "", ""},
		{29, 0, "/../../etc/passwd", "GET", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.route, s.cred, s.a, s.b, s.query, []byte(s.body), uint8(0))
	}

	f.Fuzz(func(t *testing.T, route, cred uint8, a, b, query string, body []byte, ctype uint8) {
		req := rt.request(route, cred, a, b, query, body, ctype)
		if req == nil {
			return
		}
		rec := httptest.NewRecorder()
		rt.h.ServeHTTP(rec, req)
		// Faults registered by this input must not fail the next one.
		clear := httptest.NewRequest(http.MethodDelete, "http://127.0.0.1/sandbox/faults", nil)
		clear.Header.Set(client.HeaderAdminKey, rt.admin)
		cleared := httptest.NewRecorder()
		rt.h.ServeHTTP(cleared, clear)
		if cleared.Code != http.StatusNoContent {
			t.Fatalf("clearing the faults: %d %s", cleared.Code, cleared.Body)
		}

		status, raw := rec.Code, rec.Body.Bytes()
		where := fmt.Sprintf("%s %s (credential %d)", req.Method, req.URL.Path, cred)
		if status >= 500 {
			t.Fatalf("%s: status %d: %.500s", where, status, raw)
		}
		if status < 400 {
			if len(raw) > 0 && !json.Valid(raw) && !notJSON(req.URL.Path) {
				t.Fatalf("%s: status %d with a body that is not JSON: %.500q", where, status, raw)
			}
			return
		}
		var e struct {
			Error   bool        `json:"error"`
			Code    client.Code `json:"code"`
			Message string      `json:"message"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatalf("%s: status %d, body is not JSON (%v): %.500q", where, status, err, raw)
		}
		if !e.Error || !e.Code.Known() || e.Code.HTTPStatus() != status || e.Message == "" {
			t.Fatalf("%s: status %d is not a catalogue error: %.500s", where, status, raw)
		}
	})
}
