package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// credKind is the credential an endpoint takes.
type credKind int

const (
	credNone credKind = iota
	credUser
	credPOS
	credAPIKey
	credAdmin
)

// badRequest is one request that the server must refuse.
type badRequest struct {
	name        string
	method      string
	path        string
	token       string // accessToken query parameter
	header      map[string]string
	addHeader   map[string]string // added after header: a second value
	body        []byte
	contentType string // default application/json when there is a body
	chunked     bool   // send the body without a Content-Length
	tls         bool   // send to the HTTPS listener
	want        client.Code
}

// endpoint describes one route for the generated cases: its credential, a
// valid body, and a body with a wrong JSON type.
type endpoint struct {
	method, path string
	cred         credKind
	body         string // valid body; "" for none
	typeErr      string // body with a field of the wrong JSON type; "" when there is no body to spoil
	tls          bool   // served over HTTPS only (the providers' endpoints)
}

// badInputFixture is the data the bad requests aim at: two users, two
// locations with their POS tokens, a card, a check, a payment and an order
// of user A, a closed bill of location 2, and an API key for location 1.
type badInputFixture struct {
	w            *world
	tokenA       string
	tokenB       string
	pos1, pos2   string
	loc1, loc2   int64
	cardA        int64
	check1       int64
	paymentA     int64
	orderA       string
	bill2        string
	key1         string
	demoLocation int64
}

func newBadInputFixture(t *testing.T) badInputFixture {
	t.Helper()
	w := newWorld(t)
	w.waitForMenu(t)
	f := badInputFixture{w: w, tokenA: w.diner.AccessToken, pos1: w.venue.POSToken, loc1: w.venue.ID, key1: w.apiKey, demoLocation: w.demoLoc}
	_, f.tokenB = w.env.NewUser(t)
	other := w.env.NewVenue(t, refservertest.VenueConfig{Name: "Other Tenant", Gateway: wallet.ProviderD})
	f.loc2, f.pos2 = other.ID, other.POSToken
	f.cardA = w.addCard(t)
	f.check1 = 42
	w.pushCheck(t, f.check1, "50.00")
	f.paymentA = w.pay(t, f.check1, "5.00").PaymentID
	f.orderA = w.createOrder(t)
	c := other.OpenCheck(7, "0.00")
	c.Status = possync.CheckClosed
	f.bill2 = other.PushCheck(t, c).BillID
	// Make the lazily created sandbox state exist before the first dump.
	if _, err := w.diner.Wallet.ProviderBPublicKey(t.Context()); err != nil {
		t.Fatal(err)
	}
	return f
}

// checkBody is a valid check push body for loc, with guests as given (a
// JSON value).
func checkBody(loc int64, guests string) string {
	return `{"tableNumber":1,"checkNumber":9999,"locationId":` + fmt.Sprint(loc) + `,"staffId":"s","guests":` + guests +
		`,"status":"open","totalAmount":1.00,"outstandingAmount":1.00,"serviceChargeAmount":0,"tipsPaid":0,"discounts":[],` +
		`"menuItems":[{"id":1,"name":"Tea","quantity":1,"price":1.00,"priceSold":1.00,"modifiers":null,"discount":null,"category":{"name":"Drinks","category":null}}]}`
}

// endpoints lists every route of the API and the sandbox admin API with
// ids from f.
func (f badInputFixture) endpoints() []endpoint {
	id := func(n int64) string { return fmt.Sprint(n) }
	card := `{"expiryMonth":%s,"expiryYear":29,"first6Digits":"411111","last4Digits":"1111","nickname":"n","save":true,"default":false,"providerBCse":"not-a-jwe"}`
	pay := `{"locationId":%s,"checkNumber":` + id(f.check1) + `,"cardId":` + id(f.cardA) + `,"amount":1.00,"tip":0}`
	order := `{"locationId":` + id(f.demoLocation) + `,"items":[{"plu":"SD-FRIES","quantity":%s,"options":[]}]}`
	return []endpoint{
		{method: "GET", path: "/v1/location/" + id(f.loc1)},
		ep("GET", "/v2/location/"+id(f.demoLocation)+"/menu", credNone, "", ""),
		ep("GET", "/sandbox/providerB/public-key", credNone, "", ""),
		{method: "POST", path: "/sandbox/providerD/tokenise", tls: true,
			body:    `{"keyId":"no-such-key","number":"4111111111111111","expiryMonth":7,"expiryYear":29,"cvc":"123"}`,
			typeErr: `{"keyId":"no-such-key","number":4111111111111111,"expiryMonth":7,"expiryYear":29,"cvc":"123"}`},
		ep("GET", "/v1/user/me?scope=wallet", credUser, "", ""),
		ep("POST", "/v3/user/me/wallet/card/insert", credUser, fmt.Sprintf(card, "7"), fmt.Sprintf(card, `"7"`)),
		ep("GET", "/v2/payment/providerD/keys", credUser, "", ""),
		ep("POST", "/payments/v1/payment", credUser, fmt.Sprintf(pay, id(f.loc1)), fmt.Sprintf(pay, `"`+id(f.loc1)+`"`)),
		ep("GET", "/payments/v1/payment/"+id(f.paymentA), credUser, "", ""),
		ep("POST", "/ordering/v3/order", credUser, fmt.Sprintf(order, "1"), fmt.Sprintf(order, `"1"`)),
		ep("GET", "/ordering/v3/order/"+f.orderA, credUser, "", ""),
		ep("POST", "/ordering/v3/order/"+f.orderA+"/fulfillment-type/order-at-table", credUser,
			`{"kitchenNotes":"","tableNumber":3}`, `{"kitchenNotes":"","tableNumber":"3"}`),
		ep("POST", "/v1/pos/push-pull/check", credPOS, checkBody(f.loc1, "2"), checkBody(f.loc1, `"2"`)),
		ep("GET", "/v1/pos/push-pull/payments/"+id(f.loc1), credPOS, "", ""),
		ep("POST", "/v1/pos/push-pull/accept-payment", credPOS, `{"paymentId":`+id(f.paymentA)+`}`, `{"paymentId":"`+id(f.paymentA)+`"}`),
		ep("POST", "/v1/pos/push-pull/heartbeat/"+id(f.loc1), credPOS, "", ""),
		ep("GET", "/v3/location/"+id(f.loc1)+"/bills/closed?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z", credAPIKey, "", ""),
		ep("GET", "/v3/bill/"+f.bill2+"?scope=bill.items", credAPIKey, "", ""),
		ep("GET", "/sandbox/fixtures", credAdmin, "", ""),
		ep("POST", "/sandbox/users", credAdmin, "", ""),
		ep("POST", "/sandbox/locations", credAdmin, `{"name":"X","gateway":"providerB"}`, `{"name":5,"gateway":"providerB"}`),
		ep("POST", "/sandbox/api-keys", credAdmin, `{"locationIds":[`+id(f.loc1)+`]}`, `{"locationIds":"`+id(f.loc1)+`"}`),
		ep("GET", "/sandbox/clock", credAdmin, "", ""),
		ep("POST", "/sandbox/clock", credAdmin, `{"advanceSeconds":60}`, `{"advanceSeconds":"60"}`),
		ep("POST", "/sandbox/reset", credAdmin, "", ""),
		ep("GET", "/sandbox/faults", credAdmin, "", ""),
		ep("POST", "/sandbox/faults", credAdmin, `{"pathPrefix":"/v1/","status":503}`, `{"pathPrefix":"/v1/","status":"503"}`),
		ep("DELETE", "/sandbox/faults", credAdmin, "", ""),
		ep("POST", "/sandbox/cards/"+id(f.cardA)+"/status", credAdmin, `{"cardStatusId":2}`, `{"cardStatusId":"2"}`),
	}
}

// ep is an endpoint of the plain HTTP listener.
func ep(method, path string, cred credKind, body, typeErr string) endpoint {
	return endpoint{method: method, path: path, cred: cred, body: body, typeErr: typeErr}
}

// goodCred returns f's valid credential of kind k for location 1 / user A.
func (f badInputFixture) goodCred(k credKind) (token string, header map[string]string) {
	switch k {
	case credUser:
		return f.tokenA, nil
	case credPOS:
		return f.pos1, nil
	case credAPIKey:
		return "", map[string]string{client.HeaderAPIKey: f.key1}
	case credAdmin:
		return "", map[string]string{client.HeaderAdminKey: f.w.env.AdminKey}
	}
	return "", nil
}

// cases generates the bad requests for every endpoint, then adds the ones
// that need a particular resource: another tenant's credential and unknown
// ids.
func (f badInputFixture) cases() []badRequest {
	var out []badRequest
	huge := []byte(`{"pad":"` + strings.Repeat("a", 2<<20) + `"}`)
	for _, e := range f.endpoints() {
		name := e.method + " " + strings.SplitN(e.path, "?", 2)[0]
		tok, hdr := f.goodCred(e.cred)
		base := badRequest{method: e.method, path: e.path, token: tok, header: hdr, tls: e.tls}
		add := func(suffix string, mod func(r *badRequest)) {
			r := base
			r.name = name + ": " + suffix
			if e.body != "" {
				r.body = []byte(e.body)
			}
			mod(&r)
			out = append(out, r)
		}
		switch e.cred {
		case credUser, credPOS:
			add("no credential", func(r *badRequest) { r.token, r.want = "", client.CodeAccessTokenMissing })
			add("wrong credential", func(r *badRequest) { r.token, r.want = "not-a-token", client.CodeAccessTokenInvalid })
		case credAPIKey:
			add("no credential", func(r *badRequest) { r.header, r.want = nil, client.CodeAPIKeyMissing })
			add("wrong credential", func(r *badRequest) {
				r.header, r.want = map[string]string{client.HeaderAPIKey: "not-a-key"}, client.CodeAPIKeyInvalid
			})
		case credAdmin:
			add("no credential", func(r *badRequest) { r.header, r.want = nil, client.CodeAdminKeyInvalid })
			add("wrong credential", func(r *badRequest) {
				r.header, r.want = map[string]string{client.HeaderAdminKey: "not-the-key"}, client.CodeAdminKeyInvalid
			})
		}
		if e.method == http.MethodPost {
			add("huge body", func(r *badRequest) { r.body, r.want = huge, client.CodeBodyTooLarge })
			add("huge chunked body", func(r *badRequest) { r.body, r.chunked, r.want = huge, true, client.CodeBodyTooLarge })
			add("wrong content type", func(r *badRequest) {
				r.contentType, r.want = "text/plain", client.CodeUnsupportedMediaType
				if r.body == nil {
					r.body = []byte(`{}`)
				}
			})
		}
		if e.body != "" {
			add("malformed JSON", func(r *badRequest) { r.body, r.want = []byte(e.body[:len(e.body)/2]), client.CodeMalformedJSON })
			add("not an object", func(r *badRequest) { r.body, r.want = []byte(`[1,2]`), client.CodeMalformedJSON })
			add("trailing garbage", func(r *badRequest) { r.body, r.want = []byte(e.body+`}`), client.CodeMalformedJSON })
			add("wrong types", func(r *badRequest) { r.body, r.want = []byte(e.typeErr), client.CodeMalformedJSON })
			add("empty object", func(r *badRequest) { r.body, r.want = []byte(`{}`), 0 })
			add("null", func(r *badRequest) { r.body, r.want = []byte(`null`), 0 })
			add("empty body", func(r *badRequest) { r.body, r.want = nil, 0 })
			add("invalid UTF-8", func(r *badRequest) { r.body, r.want = []byte("{\"name\":\"\xff\xfe\"}"), 0 })
		}
	}

	id := func(n int64) string { return fmt.Sprint(n) }
	admin := map[string]string{client.HeaderAdminKey: f.w.env.AdminKey}
	apiKey := map[string]string{client.HeaderAPIKey: f.key1}
	body := func(s string) []byte { return []byte(s) }
	out = append(out,
		// Another tenant's credential.
		badRequest{name: "user B reads user A's payment", method: "GET", path: "/payments/v1/payment/" + id(f.paymentA), token: f.tokenB, want: client.CodeNotFound},
		badRequest{name: "user B reads user A's order", method: "GET", path: "/ordering/v3/order/" + f.orderA, token: f.tokenB, want: client.CodeNotFound},
		badRequest{name: "user B sets user A's fulfillment", method: "POST", path: "/ordering/v3/order/" + f.orderA + "/fulfillment-type/order-at-table",
			token: f.tokenB, body: body(`{"kitchenNotes":"","tableNumber":3}`), want: client.CodeNotFound},
		badRequest{name: "user B pays with user A's card", method: "POST", path: "/payments/v1/payment", token: f.tokenB,
			body: body(`{"locationId":` + id(f.loc1) + `,"checkNumber":` + id(f.check1) + `,"cardId":` + id(f.cardA) + `,"amount":1.00,"tip":0}`), want: client.CodeNotFound},
		badRequest{name: "POS 2 polls location 1", method: "GET", path: "/v1/pos/push-pull/payments/" + id(f.loc1), token: f.pos2, want: client.CodeForbidden},
		badRequest{name: "POS 2 heartbeats location 1", method: "POST", path: "/v1/pos/push-pull/heartbeat/" + id(f.loc1), token: f.pos2, want: client.CodeForbidden},
		badRequest{name: "POS 2 pushes a check of location 1", method: "POST", path: "/v1/pos/push-pull/check", token: f.pos2,
			body: body(checkBody(f.loc1, "2")), want: client.CodeForbidden},
		badRequest{name: "POS 2 accepts location 1's payment", method: "POST", path: "/v1/pos/push-pull/accept-payment", token: f.pos2,
			body: body(`{"paymentId":` + id(f.paymentA) + `}`), want: client.CodeNotFound},
		badRequest{name: "user token on the POS poll", method: "GET", path: "/v1/pos/push-pull/payments/" + id(f.loc1), token: f.tokenA, want: client.CodeForbidden},
		badRequest{name: "user token on a check push", method: "POST", path: "/v1/pos/push-pull/check", token: f.tokenA,
			body: body(checkBody(f.loc1, "2")), want: client.CodeForbidden},
		badRequest{name: "POS token on the wallet", method: "GET", path: "/v1/user/me", token: f.pos1},
		badRequest{name: "POS token on a payment", method: "POST", path: "/payments/v1/payment", token: f.pos1,
			body: body(`{"locationId":` + id(f.loc1) + `,"checkNumber":` + id(f.check1) + `,"cardId":` + id(f.cardA) + `,"amount":1.00,"tip":0}`)},
		badRequest{name: "key of location 1 lists location 2", method: "GET", path: "/v3/location/" + id(f.loc2) + "/bills/closed?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z",
			header: apiKey, want: client.CodeForbidden},
		badRequest{name: "key of location 1 reads location 2's bill", method: "GET", path: "/v3/bill/" + f.bill2, header: apiKey, want: client.CodeNotFound},
		badRequest{name: "API key as admin key", method: "GET", path: "/sandbox/fixtures", header: map[string]string{client.HeaderAdminKey: f.key1}, want: client.CodeAdminKeyInvalid},
		badRequest{name: "user token as API key", method: "GET", path: "/v3/bill/" + f.bill2, header: map[string]string{client.HeaderAPIKey: f.tokenA}, want: client.CodeAPIKeyInvalid},

		// Unknown ids.
		badRequest{name: "unknown location", method: "GET", path: "/v1/location/999999", want: client.CodeNotFound},
		badRequest{name: "location id not a number", method: "GET", path: "/v1/location/abc", want: client.CodeNotFound},
		badRequest{name: "location id overflows", method: "GET", path: "/v1/location/99999999999999999999999", want: client.CodeNotFound},
		badRequest{name: "unknown location's menu", method: "GET", path: "/v2/location/999999/menu", want: client.CodeNotFound},
		badRequest{name: "unknown payment", method: "GET", path: "/payments/v1/payment/999999", token: f.tokenA, want: client.CodeNotFound},
		badRequest{name: "payment id not a number", method: "GET", path: "/payments/v1/payment/-1", token: f.tokenA, want: client.CodeNotFound},
		badRequest{name: "unknown order", method: "GET", path: "/ordering/v3/order/00000000-0000-4000-8000-000000000000", token: f.tokenA, want: client.CodeNotFound},
		badRequest{name: "order id not a uuid", method: "GET", path: "/ordering/v3/order/%27%20OR%201=1--", token: f.tokenA, want: client.CodeNotFound},
		badRequest{name: "fulfillment of an unknown order", method: "POST", path: "/ordering/v3/order/00000000-0000-4000-8000-000000000000/fulfillment-type/order-at-table",
			token: f.tokenA, body: body(`{"kitchenNotes":"","tableNumber":3}`), want: client.CodeNotFound},
		badRequest{name: "unknown fulfillment method", method: "POST", path: "/ordering/v3/order/" + f.orderA + "/fulfillment-type/by-drone",
			token: f.tokenA, body: body(`{}`), want: client.CodeNotFound},
		badRequest{name: "order at an unknown location", method: "POST", path: "/ordering/v3/order", token: f.tokenA,
			body: body(`{"locationId":999999,"items":[{"plu":"SD-FRIES","quantity":1,"options":[]}]}`), want: client.CodeNotFound},
		badRequest{name: "order of an unknown plu", method: "POST", path: "/ordering/v3/order", token: f.tokenA,
			body: body(`{"locationId":` + id(f.demoLocation) + `,"items":[{"plu":"NOPE","quantity":1,"options":[]}]}`), want: client.CodeValidation},
		badRequest{name: "payment at an unknown location", method: "POST", path: "/payments/v1/payment", token: f.tokenA,
			body: body(`{"locationId":999999,"checkNumber":` + id(f.check1) + `,"cardId":` + id(f.cardA) + `,"amount":1.00,"tip":0}`), want: client.CodeNotFound},
		badRequest{name: "payment of an unknown check", method: "POST", path: "/payments/v1/payment", token: f.tokenA,
			body: body(`{"locationId":` + id(f.loc1) + `,"checkNumber":999999,"cardId":` + id(f.cardA) + `,"amount":1.00,"tip":0}`), want: client.CodeNotFound},
		badRequest{name: "payment with an unknown card", method: "POST", path: "/payments/v1/payment", token: f.tokenA,
			body: body(`{"locationId":` + id(f.loc1) + `,"checkNumber":` + id(f.check1) + `,"cardId":999999,"amount":1.00,"tip":0}`), want: client.CodeNotFound},
		badRequest{name: "payment over the outstanding amount", method: "POST", path: "/payments/v1/payment", token: f.tokenA,
			body: body(`{"locationId":` + id(f.loc1) + `,"checkNumber":` + id(f.check1) + `,"cardId":` + id(f.cardA) + `,"amount":1000.00,"tip":0}`), want: client.CodeAmountExceedsOutstanding},
		badRequest{name: "payment with three decimals", method: "POST", path: "/payments/v1/payment", token: f.tokenA,
			body: body(`{"locationId":` + id(f.loc1) + `,"checkNumber":` + id(f.check1) + `,"cardId":` + id(f.cardA) + `,"amount":1.001,"tip":0}`), want: client.CodeValidation},
		badRequest{name: "payment of a huge amount", method: "POST", path: "/payments/v1/payment", token: f.tokenA,
			body: body(`{"locationId":` + id(f.loc1) + `,"checkNumber":` + id(f.check1) + `,"cardId":` + id(f.cardA) + `,"amount":1e300,"tip":0}`)},
		badRequest{name: "accept an unknown payment", method: "POST", path: "/v1/pos/push-pull/accept-payment", token: f.pos1,
			body: body(`{"paymentId":999999}`), want: client.CodeNotFound},
		badRequest{name: "poll an unknown location", method: "GET", path: "/v1/pos/push-pull/payments/999999", token: f.pos1, want: client.CodeForbidden},
		badRequest{name: "heartbeat of an unknown location", method: "POST", path: "/v1/pos/push-pull/heartbeat/999999", token: f.pos1, want: client.CodeForbidden},
		badRequest{name: "check of an unknown location", method: "POST", path: "/v1/pos/push-pull/check", token: f.pos1,
			body: body(checkBody(999999, "2")), want: client.CodeForbidden},
		badRequest{name: "unknown bill", method: "GET", path: "/v3/bill/no-such-bill", header: apiKey, want: client.CodeNotFound},
		badRequest{name: "bills of an unknown location", method: "GET", path: "/v3/location/999999/bills/closed?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z",
			header: apiKey, want: client.CodeForbidden},
		badRequest{name: "bills with a bad range", method: "GET", path: "/v3/location/" + id(f.loc1) + "/bills/closed?from=yesterday&to=today", header: apiKey, want: client.CodeInvalidQuery},
		badRequest{name: "bill with an unknown scope", method: "GET", path: "/v3/bill/" + f.bill2 + "?scope=bill.secrets", header: apiKey},
		badRequest{name: "status of an unknown card", method: "POST", path: "/sandbox/cards/999999/status", header: admin,
			body: body(`{"cardStatusId":2}`), want: client.CodeNotFound},
		badRequest{name: "api key for an unknown location", method: "POST", path: "/sandbox/api-keys", header: admin, body: body(`{"locationIds":[999999]}`)},
		badRequest{name: "clock backwards", method: "POST", path: "/sandbox/clock", header: admin, body: body(`{"advanceSeconds":-60}`), want: client.CodeValidation},
		badRequest{name: "clock overflow", method: "POST", path: "/sandbox/clock", header: admin, body: body(`{"advanceSeconds":9223372036854775807}`)},
		badRequest{name: "unknown route", method: "GET", path: "/v1/nothing-here", want: client.CodeNotFound},
		badRequest{name: "wrong method", method: "DELETE", path: "/v1/user/me", token: f.tokenA, want: client.CodeMethodNotAllowed},
		badRequest{name: "Idempotency-Key too long", method: "POST", path: "/v1/pos/push-pull/heartbeat/" + id(f.loc1), token: f.pos1,
			header: map[string]string{client.HeaderIdempotencyKey: strings.Repeat("k", 256)}, want: client.CodeValidation},
		badRequest{name: "two Idempotency-Keys", method: "POST", path: "/v1/pos/push-pull/heartbeat/" + id(f.loc1), token: f.pos1,
			header:    map[string]string{client.HeaderIdempotencyKey: "one"},
			addHeader: map[string]string{client.HeaderIdempotencyKey: "two"}, want: client.CodeValidation},
	)
	// A reset that the server wrongly accepts would wipe the fixture under
	// every later case; run those last so that a failure stays one failure.
	slices.SortStableFunc(out, func(a, b badRequest) int {
		ra, rb := strings.HasPrefix(a.path, "/sandbox/reset"), strings.HasPrefix(b.path, "/sandbox/reset")
		switch {
		case ra == rb:
			return 0
		case ra:
			return 1
		}
		return -1
	})
	return out
}

// errorBody is the error body of the interface.
type errorBody struct {
	Error       *bool               `json:"error"`
	Code        client.Code         `json:"code"`
	Message     string              `json:"message"`
	ContextData json.RawMessage     `json:"contextData"`
	RequestInfo *client.RequestInfo `json:"requestInfo"`
}

// TestBadInput sends every endpoint requests without a credential, with a
// wrong or another tenant's credential, with malformed, mistyped and huge
// bodies and with unknown ids. Every answer must be an error of the
// catalogue (status = code / 1000, the error body shape, a request id), and
// the database must be unchanged (every table but the idempotency records
// compared before and after each request).
func TestBadInput(t *testing.T) {
	t.Parallel()
	f := newBadInputFixture(t)
	hc, tlsc := &http.Client{}, f.w.env.HTTPSClient()
	for _, r := range f.cases() {
		t.Run(r.name, func(t *testing.T) {
			before := dump(t, f.w.env)
			c, base := hc, f.w.env.URL
			if r.tls {
				c, base = tlsc, f.w.env.TLSURL
			}
			status, hdr, raw := send(t, c, base, r)
			checkCatalogueError(t, status, hdr, raw, r.want)
			if diff := cmp.Diff(before, dump(t, f.w.env)); diff != "" {
				t.Errorf("the database changed (-before +after):\n%s", diff)
			}
		})
	}
}

// send sends r and returns the status, headers and body.
func send(t *testing.T, hc *http.Client, base string, r badRequest) (int, http.Header, []byte) {
	t.Helper()
	u, err := url.Parse(base + r.path)
	if err != nil {
		t.Fatal(err)
	}
	if r.token != "" {
		q := u.Query()
		q.Set(client.QueryAccessToken, r.token)
		u.RawQuery = q.Encode()
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
		if r.chunked {
			body = io.MultiReader(body) // hides the length: sent chunked
		}
	}
	req, err := http.NewRequestWithContext(t.Context(), r.method, u.String(), body)
	if err != nil {
		t.Fatal(err)
	}
	if r.body != nil {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	for k, v := range r.addHeader {
		req.Header.Add(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return resp.StatusCode, resp.Header, raw
}

// checkCatalogueError checks that an answer is an error of the catalogue,
// with code want when want is not 0.
func checkCatalogueError(t *testing.T, status int, hdr http.Header, raw []byte, want client.Code) {
	t.Helper()
	var e errorBody
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("status %d, body is not JSON: %v: %.300q", status, err, raw)
	}
	switch {
	case e.Error == nil || !*e.Error:
		t.Errorf("status %d: body has no \"error\": true: %.300s", status, raw)
	case !e.Code.Known():
		t.Errorf("status %d: code %d is not in the catalogue: %.300s", status, e.Code, raw)
	case status != e.Code.HTTPStatus():
		t.Errorf("status %d does not match code %d", status, e.Code)
	case status >= 500:
		t.Errorf("bad input answered with a server error: %d %.300s", status, raw)
	case want != 0 && e.Code != want:
		t.Errorf("code %d (%s), want %d", e.Code, e.Message, want)
	case e.Message == "":
		t.Errorf("code %d without a message", e.Code)
	case e.RequestInfo == nil || e.RequestInfo.APIVersion != 0:
		t.Errorf("requestInfo %+v, want apiVersion 0", e.RequestInfo)
	case hdr.Get(client.HeaderRequestID) == "":
		t.Errorf("no %s header", client.HeaderRequestID)
	}
}
