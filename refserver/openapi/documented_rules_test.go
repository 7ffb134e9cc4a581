package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/openapi"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// The document states every rule the server enforces on a request body:
// a body that the document accepts is never refused with 400002. For each
// endpoint with a JSON body, a valid request is varied one member at a
// time through boundary values (lengths around every maxLength, numbers
// around every minimum and maximum, blank strings, nulls, absent members,
// empty and full arrays, time and money edge cases); each variant that
// the document accepts is sent, and the answer must be a 2xx or any code
// but 400002.
//
// Members that refer to other data (ids, tokens, PLUs) or must agree with
// it (a card's digits with its tokenised card) stay as they are: rules of
// that kind cannot be schema keywords and are stated in the descriptions.
// Their boundary values that such data allows are listed with the target.
func TestDocumentValidBodiesAreNotRefusedAsInvalid(t *testing.T) {
	t.Parallel()
	judge := newDocJudge(t)
	for _, tg := range bodyTargets() {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			env := refservertest.Start(t)
			w := newWorld(t, env)
			sample := tg.base(t, w)
			code, status, body := w.send(t, tg, sample)
			if status/100 != 2 {
				t.Fatalf("the valid base request got %d (code %d): %s", status, code, body)
			}
			if tg.after != nil {
				tg.after(t, w, status)
			}
			sent := 0
			for _, v := range variants(sample, tg) {
				req := tg.base(t, w)
				if !v.apply(req.body) {
					continue
				}
				if !judge.accepts(t, tg.method, req) {
					continue
				}
				sent++
				code, status, body := w.send(t, tg, req)
				if code == client.CodeValidation {
					t.Errorf("%s = %s: the document accepts it, the server answered 400002: %s", v.path, v.desc, body)
				}
				if tg.after != nil {
					tg.after(t, w, status)
				}
			}
			if sent < tg.minSent {
				t.Errorf("only %d document-valid variants sent; want at least %d", sent, tg.minSent)
			}
			t.Logf("%d document-valid variants sent", sent)
		})
	}
}

// The Idempotency-Key header's rules are in the document too.
func TestDocumentValidIdempotencyKeysAreAccepted(t *testing.T) {
	t.Parallel()
	judge := newDocJudge(t)
	env := refservertest.Start(t)
	w := newWorld(t, env)
	tg := target{method: "POST", auth: posAuth}
	candidates := []string{"", " ", "a", " a", "a b", "é", "\x7f", strings.Repeat("k", 255), strings.Repeat("k", 256),
		strings.Repeat("é", 127), strings.Repeat("é", 128), "~!@#$%^&*()"}
	sent := 0
	for _, key := range candidates {
		req := request{path: fmt.Sprintf("/v1/pos/push-pull/heartbeat/%d", w.loc), header: http.Header{"Idempotency-Key": {key}}}
		if !judge.accepts(t, tg.method, req) {
			continue
		}
		sent++
		if code, _, body := w.send(t, tg, req); code == client.CodeValidation {
			t.Errorf("Idempotency-Key %q: the document accepts it, the server answered 400002: %s", key, body)
		}
	}
	if sent < 4 {
		t.Errorf("only %d keys sent", sent)
	}
}

// target is one endpoint with a JSON body.
type target struct {
	name   string
	method string
	// base returns a fresh valid request: new prerequisites each time, so
	// that one variant's success (a consumed key, a set fulfillment)
	// cannot hide another's verdict.
	base func(t *testing.T, w *world) request
	auth func(w *world, r *http.Request)
	tls  bool
	// fixed are the paths (array indexes as []) left as base made them.
	fixed []string
	// extra are values tried at a path besides the generic ones, also at
	// fixed paths: the boundary values that the data allows there.
	extra map[string][]any
	// after runs after each variant, with its status (to undo what it
	// set up).
	after func(t *testing.T, w *world, status int)
	// minSent guards against a test that checks nothing.
	minSent int
}

type request struct {
	path   string
	body   map[string]any // nil: no body
	header http.Header
}

func userAuth(w *world, r *http.Request) { setQuery(r, "accessToken", w.userToken) }
func posAuth(w *world, r *http.Request)  { setQuery(r, "accessToken", w.posToken) }
func adminAuth(w *world, r *http.Request) {
	r.Header.Set("X-Sandbox-Admin-Key", refservertest.AdminKey)
}

func setQuery(r *http.Request, k, v string) {
	q := r.URL.Query()
	q.Set(k, v)
	r.URL.RawQuery = q.Encode()
}

func bodyTargets() []target {
	return []target{
		{
			name: "card insert", method: "POST", auth: userAuth,
			base: func(t *testing.T, w *world) request {
				return request{path: "/v3/user/me/wallet/card/insert", body: map[string]any{
					"expiryMonth": testCard.ExpiryMonth, "expiryYear": testCard.ExpiryYear,
					"first6Digits": testCard.Number[:6], "last4Digits": testCard.Number[len(testCard.Number)-4:],
					"nickname": "Work card", "save": true, "default": false, "providerBCse": w.cse,
				}}
			},
			// The digits and expiry must be those of the encrypted card.
			fixed:   []string{"expiryMonth", "expiryYear", "first6Digits", "last4Digits", "providerBCse"},
			minSent: 20,
		},
		{
			name: "payment", method: "POST", auth: userAuth,
			base: func(t *testing.T, w *world) request {
				return request{path: "/payments/v1/payment", body: map[string]any{
					"locationId": w.loc, "checkNumber": w.checkNumber, "cardId": w.cardID,
					"amount": json.Number("0.07"), "tip": json.Number("0.50"),
				}}
			},
			fixed:   []string{"locationId", "checkNumber", "cardId"},
			minSent: 15,
		},
		{
			name: "check push", method: "POST", auth: posAuth,
			base: func(t *testing.T, w *world) request {
				return request{path: "/v1/pos/push-pull/check", body: jsonObject(t, fmt.Sprintf(`{
					"tableNumber": 4, "checkNumber": 77, "locationId": %d, "staffId": "s-1", "guests": 2,
					"status": "open", "totalAmount": 19.99, "outstandingAmount": 19.99,
					"serviceChargeAmount": 0.07, "tipsPaid": 0,
					"discounts": [{"name": "Happy hour", "value": -1.25}],
					"menuItems": [{"id": 1, "name": "Chowder", "quantity": 1, "price": 19.99, "priceSold": 18.74,
						"discount": {"name": "Loyalty", "value": -1.25},
						"modifiers": [{"id": 2, "name": "Bread", "price": 0.5, "modifiers": [{"id": 3, "name": "Butter", "price": 0}]}],
						"category": {"name": "Soups", "category": {"name": "Food", "category": null}}}]
				}`, w.loc))}
			},
			// The POS token's own location; another is 403001.
			fixed:   []string{"locationId"},
			minSent: 100,
		},
		{
			name: "accept payment", method: "POST", auth: posAuth,
			base: func(t *testing.T, w *world) request {
				return request{path: "/v1/pos/push-pull/accept-payment", body: map[string]any{"paymentId": w.paymentID}}
			},
			minSent: 3,
		},
		{
			name: "order", method: "POST", auth: userAuth,
			base: func(t *testing.T, w *world) request {
				return request{path: "/ordering/v3/order", body: w.orderBody(t)}
			},
			// The menu decides the PLUs and how many of an option may be
			// chosen (the halloumi burger's "Add" group: 0 to 2).
			fixed: []string{"locationId", "items[].plu", "items[].options", "items[].options[].plu", "items[].options[].quantity"},
			extra: map[string][]any{
				"items[].options":            {[]any{}, nil},
				"items[].options[].quantity": {1, 2},
			},
			minSent: 8,
		},
		fulfillmentTarget("delivery-by-operator", `{
			"deliveryTime": "2030-01-01T12:00:00+01:00", "deliveryNotes": "Ring twice", "deliveryCharge": 2.5,
			"customerName": "Ada", "customerPhone": "+44 20 7946 0000", "customerEmail": "ada@example.com",
			"addressLineOne": "1 High St", "addressLineTwo": "", "city": "Bath", "postCode": "BA1 1AA",
			"kitchenNotes": "", "coordinates": {"latitude": 51.38, "longitude": -2.36}}`),
		fulfillmentTarget("delivery-by-delivery-partner", `{
			"collectionTime": "2030-01-01T12:00:00Z", "collectionNotes": "", "name": "Driver", "phone": "07700 900000",
			"orderReference": "DP-1", "kitchenNotes": "No nuts",
			"customer": {"name": "Ada", "phone": "07700 900001", "email": "ada@example.com",
				"address": {"lineOne": "1 High St", "lineTwo": "Flat 2", "city": "Bath", "postcode": "BA1 1AA",
					"coordinates": {"latitude": -90, "longitude": 180}}}}`),
		fulfillmentTarget("collection-by-customer", `{
			"collectionTime": "2030-01-01T12:00:00-05:00", "collectionNotes": "At the bar", "name": "Ada",
			"phone": "07700 900000", "orderReference": "C-1", "kitchenNotes": ""}`),
		fulfillmentTarget("order-at-table", `{"kitchenNotes": "", "tableNumber": 1}`),
		{
			name: "providerD tokenise", method: "POST", tls: true,
			base: func(t *testing.T, w *world) request {
				return request{path: "/sandbox/providerD/tokenise", body: map[string]any{
					"keyId": w.providerDKey(t), "number": "4111111111111111", "expiryMonth": 12, "expiryYear": 99, "cvc": "123",
				}}
			},
			// A key serves one token: a new one after each success.
			after: func(t *testing.T, w *world, status int) {
				if status/100 == 2 {
					w.dKey = ""
				}
			},
			// A number must pass the Luhn check and an expiry must not
			// have passed: the boundary values that do.
			fixed: []string{"keyId", "number", "expiryYear"},
			extra: map[string][]any{
				"number":     {"400000000002", "4000000000000000006", "4000000000000002"},
				"expiryYear": {99, thisYear() + 1},
			},
			minSent: 8,
		},
		{
			name: "sandbox location", method: "POST", auth: adminAuth,
			base: func(t *testing.T, w *world) request {
				return request{path: "/sandbox/locations", body: map[string]any{
					"name": "Pier Kiosk", "gateway": "providerB", "posUrl": "http://127.0.0.1:9/pos", "posToken": "pos-token",
				}}
			},
			minSent: 20,
		},
		{
			name: "sandbox api key", method: "POST", auth: adminAuth,
			base: func(t *testing.T, w *world) request {
				return request{path: "/sandbox/api-keys", body: map[string]any{"locationIds": []any{w.loc}}}
			},
			// An unknown location is named in the 400002.
			fixed:   []string{"locationIds[]"},
			minSent: 1,
		},
		{
			name: "sandbox card status", method: "POST", auth: adminAuth,
			base: func(t *testing.T, w *world) request {
				return request{path: fmt.Sprintf("/sandbox/cards/%d/status", w.cardID), body: map[string]any{"cardStatusId": 1}}
			},
			minSent: 5,
		},
		{
			name: "sandbox clock", method: "POST", auth: adminAuth,
			base: func(t *testing.T, w *world) request {
				return request{path: "/sandbox/clock", body: map[string]any{"advanceSeconds": 60}}
			},
			minSent: 3,
		},
		{
			name: "sandbox diners", method: "PUT", auth: adminAuth,
			base: func(t *testing.T, w *world) request {
				return request{path: fmt.Sprintf("/sandbox/locations/%d/diners", w.loc), body: map[string]any{
					"everySeconds": 60, "split": 2, "tipPercent": 10,
				}}
			},
			minSent: 8,
		},
		{
			name: "sandbox demo POS", method: "PUT", auth: adminAuth,
			base: func(t *testing.T, w *world) request {
				return request{path: fmt.Sprintf("/sandbox/locations/%d/demo-pos", w.loc), body: map[string]any{
					"mode": "fail-then-accept", "failCount": 2, "delayMs": 100,
				}}
			},
			minSent: 8,
		},
		{
			name: "sandbox fault", method: "POST", auth: adminAuth,
			base: func(t *testing.T, w *world) request {
				return request{path: "/sandbox/faults", body: map[string]any{
					"method": "GET", "pathPrefix": "/v9/nothing", "status": 503, "count": 1, "latencyMs": 0, "afterCommit": false,
				}}
			},
			// Faults would slow every later request down; each goes at once.
			after: func(t *testing.T, w *world, _ int) {
				if got := w.env.AdminDo(t, "DELETE", "/sandbox/faults", nil, nil); got != http.StatusNoContent {
					t.Fatalf("clear faults: %d", got)
				}
			},
			minSent: 20,
		},
	}
}

func fulfillmentTarget(method, body string) target {
	return target{
		name: "fulfillment " + method, method: "POST", auth: userAuth,
		base: func(t *testing.T, w *world) request {
			return request{path: "/ordering/v3/order/" + w.newOrder(t) + "/fulfillment-type/" + method, body: jsonObject(t, body)}
		},
		minSent: 8,
	}
}

// docJudge answers whether the document accepts a request, with
// kin-openapi on the document as the refserver loads it.
type docJudge struct {
	router routers.Router
}

func newDocJudge(t *testing.T) *docJudge {
	doc, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	doc.Servers = nil
	r, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &docJudge{router: r}
}

func (j *docJudge) accepts(t *testing.T, method string, req request) bool {
	t.Helper()
	if method == "" {
		method = "POST"
	}
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(marshal(t, req.body))
	}
	r, err := http.NewRequest(method, "http://sandbox"+req.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if req.body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range req.header {
		r.Header[k] = v
	}
	route, params, err := j.router.FindRoute(r)
	if err != nil {
		t.Fatalf("%s: not in the document: %v", req.path, err)
	}
	return openapi3filter.ValidateRequest(t.Context(), &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{
			SkipSettingDefaults: true,
			AuthenticationFunc:  openapi3filter.NoopAuthenticationFunc,
		},
	}) == nil
}

// variant is one change to a request body: the value at path replaced
// (or removed).
type variant struct {
	path  string
	desc  string
	value any
	unset bool
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// variants lists, for every member of sample, the generic boundary values
// of its JSON type and the target's extra values for it.
func variants(sample request, tg target) []variant {
	var out []variant
	seen := map[string]bool{}
	add := func(v variant) {
		key := v.path + "\x00" + v.desc
		if !seen[key] {
			seen[key] = true
			out = append(out, v)
		}
	}
	walk(sample.body, "", func(path string, v any) {
		pattern := indexRE.ReplaceAllString(path, "[]")
		for _, x := range tg.extra[pattern] {
			add(variant{path: path, desc: describeValue(x), value: x})
		}
		if slices.Contains(tg.fixed, pattern) {
			return
		}
		add(variant{path: path, desc: "absent", unset: true})
		add(variant{path: path, desc: "null", value: nil})
		for _, x := range genericValues(v) {
			add(variant{path: path, desc: describeValue(x), value: x})
		}
	})
	return out
}

func describeValue(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return fmt.Sprintf("%.40s... (%d bytes)", b, len(b))
	}
	return string(b)
}

// walk calls fn for every member and array element under v, parents first.
func walk(v any, path string, fn func(path string, v any)) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			fn(p, x[k])
			walk(x[k], p, fn)
		}
	case []any:
		for i, e := range x {
			p := path + "[" + strconv.Itoa(i) + "]"
			fn(p, e)
			walk(e, p, fn)
		}
	}
}

// apply makes the change in body; false when body lacks the path's parent.
func (v variant) apply(body map[string]any) bool {
	segs := splitPath(v.path)
	var cur any = body
	for _, s := range segs[:len(segs)-1] {
		next, ok := child(cur, s)
		if !ok {
			return false
		}
		cur = next
	}
	last := segs[len(segs)-1]
	switch c := cur.(type) {
	case map[string]any:
		if v.unset {
			delete(c, last)
		} else {
			c[last] = deepCopy(v.value)
		}
		return true
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i >= len(c) {
			return false
		}
		if v.unset {
			return false // an element cannot be absent
		}
		c[i] = deepCopy(v.value)
		return true
	}
	return false
}

func splitPath(p string) []string {
	p = strings.ReplaceAll(p, "[", ".")
	p = strings.ReplaceAll(p, "]", "")
	return strings.Split(p, ".")
}

func child(v any, seg string) (any, bool) {
	switch c := v.(type) {
	case map[string]any:
		x, ok := c[seg]
		return x, ok
	case []any:
		i, err := strconv.Atoi(seg)
		if err != nil || i >= len(c) {
			return nil, false
		}
		return c[i], true
	}
	return nil, false
}

// genericValues are the boundary values tried for a member whose valid
// value is v: the same JSON type, at and around the document's bounds.
func genericValues(v any) []any {
	switch x := v.(type) {
	case string:
		return stringValues
	case bool:
		return []any{true, false}
	case json.Number, float64, int, int64:
		return numberValues
	case []any:
		out := []any{[]any{}}
		if len(x) > 0 {
			full := make([]any, 200)
			for i := range full {
				full[i] = x[0]
			}
			out = append(out, []any{x[0], x[0]}, full)
		}
		return out
	case map[string]any:
		return []any{map[string]any{}}
	}
	return nil
}

var stringValues = func() []any {
	vals := []string{
		"", " ", "\t", "\u00a0", "\u3000", " x ", "x", "é", "tab\there", "nul\x00", "\u0085", "\u009f", "\x7f",
		// Email-like.
		"@", "a@b", "a@", "@b", "a b@c", "a@b c", "a@@", "\u00a0@\u00a0", "ada@example.com",
		// Times.
		"1999-12-31T23:59:59Z", "2000-01-01T00:00:00Z", "2000-01-01T00:30:00+01:00", "1999-12-31T23:30:00-01:00",
		"9999-12-31T23:59:59.999999999+23:59", "2024-02-29T12:00:00Z", "2025-06-01t18:30:00z",
		"2025-06-01T18:30:60Z", "2025-06-01T24:00:00Z", "2025-06-01 18:30:00Z", "2025-06-01T18:30:00",
		// Paths and URLs.
		"/", "/v1", "/sandbox/", "/sandbox/faults", "/sandbox/faultsx", "/sandbox/cards", "/sandbox/cards/1",
		"http://127.0.0.1:9", "HTTPS://example.com/x?y#z", "http://user@host", "ftp://x", "http://[::1]:9/",
		"http://a b", "http://x/%zz", "http://x:port", "http://x/%41", "//x",
		// Methods, gateways, digits.
		"GET", "get", "*", "Post", "TRACE", "providerA", "providerE", "providerZ",
		"0", "12", "123", "1234", "12345", "0000", "000000", "4111111111111111",
	}
	for _, n := range []int{49, 50, 51, 199, 200, 201, 254, 255, 256, 999, 1000, 1001, 4095, 4096, 4097} {
		vals = append(vals, strings.Repeat("a", n), strings.Repeat("é", n))
	}
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}()

var numberValues = func() []any {
	vals := []string{
		"-1000000000000000.01", "-1000000000000000", "-180", "-90", "-1.25", "-1", "-0.01", "0", "0.01", "0.07",
		"0.1", "0.29", "1", "1.5", "2", "3", "4", "5", "6", "10.005", "12", "13", "19.99", "59", "60", "90", "90.5",
		"99", "100", "180", "180.0001", "255", "399", "400", "599", "600", "999", "1000", "1001", "59999", "60000",
		"60001", "316224000", "316224001", "999999.99", "1000000", "1000000.01", "2147483647", "2147483648",
		"9007199254740993", "999999999999999.99", "1000000000000000", "1000000000000000.01", "1e2", "1e16",
	}
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = json.Number(v)
	}
	return out
}()

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

func jsonObject(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("bad base body: %v", err)
	}
	return m
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testCard is a card that tokenises and expires in three years.
var testCard = wallet.CardDetails{
	Number: "4111111111111111", CVC: "739", ExpiryMonth: 7,
	ExpiryYear: (time.Now().UTC().Year() + 3) % 100, HolderName: "Doc Rules",
}

func thisYear() int { return time.Now().UTC().Year() % 100 }
