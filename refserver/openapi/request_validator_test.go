package openapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hospo-dev/hospo-go/refserver/openapi"
)

// validCheck is a check push body that the document accepts.
const validCheck = `{
	"tableNumber": 4, "checkNumber": 1001, "locationId": 1, "staffId": "s1", "guests": 2,
	"status": "open", "totalAmount": 24.50, "outstandingAmount": 24.50,
	"serviceChargeAmount": 0, "tipsPaid": 0, "discounts": [],
	"menuItems": [{"id": 1, "name": "Soup", "quantity": 1, "price": 24.50, "priceSold": 24.50,
		"modifiers": null, "discount": null, "category": {"name": "Starters", "category": null}}]
}`

type errorBody struct {
	Error         bool              `json:"error"`
	Code          int               `json:"code"`
	Message       string            `json:"message"`
	ContextData   map[string]string `json:"contextData"`
	DisplayString *string           `json:"displayString"`
	RequestInfo   struct {
		AccessTokenStatus string  `json:"accessTokenStatus"`
		ServerTime        int64   `json:"serverTime"`
		RequestID         *string `json:"requestId"`
		APIVersion        int     `json:"apiVersion"`
	} `json:"requestInfo"`
}

func TestRequestValidator(t *testing.T) {
	t.Parallel()
	clock := time.Unix(1_700_000_000, 0)
	mw, err := openapi.NewRequestValidator(openapi.WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		method      string
		target      string
		contentType string
		body        string
		wantStatus  int // 0: passed through to the server
		wantFields  map[string]string
	}{
		{
			name: "valid check passes", method: "POST", target: "/v1/pos/push-pull/check?accessToken=t",
			contentType: "application/json", body: validCheck,
		},
		{
			// kin-openapi's own multipleOf check refuses this amount.
			name: "money beyond float32 and multipleOf's ten decimals passes", method: "POST",
			target: "/v1/pos/push-pull/check?accessToken=t", contentType: "application/json",
			body: strings.NewReplacer(`"totalAmount": 24.50`, `"totalAmount": 1234567.89`,
				`"outstandingAmount": 24.50`, `"outstandingAmount": 9876543210987.65`).Replace(validCheck),
		},
		{
			name: "bad members are named", method: "POST", target: "/v1/pos/push-pull/check?accessToken=t",
			contentType: "application/json",
			body: strings.NewReplacer(`"checkNumber": 1001, `, ``, `"totalAmount": 24.50`, `"totalAmount": 24.505`,
				`"status": "open"`, `"status": "paid"`, `"priceSold": 24.50`, `"priceSold": null`).Replace(validCheck),
			wantStatus: 400,
			wantFields: map[string]string{
				"checkNumber":            "required",
				"totalAmount":            "must have at most 2 decimal places",
				"status":                 "must be one of open, closed, void",
				"menuItems[0].priceSold": "must not be null",
			},
		},
		{
			name: "nullable member that is neither null nor valid", method: "POST", target: "/v1/pos/push-pull/check",
			contentType: "application/json",
			body:        strings.Replace(validCheck, `"discount": null`, `"discount": {"name": "Staff"}`, 1),
			wantStatus:  400, wantFields: map[string]string{"menuItems[0].discount.value": "required"},
		},
		{
			name: "fulfillment with a missing non-nullable member", method: "POST",
			target:      "/ordering/v3/order/0b7e0e3c-4a3e-4d55-9a3c-2f1de1c6b1a1/fulfillment-type/order-at-table?accessToken=t",
			contentType: "application/json", body: `{"kitchenNotes": "no onions"}`,
			wantStatus: 400, wantFields: map[string]string{"tableNumber": "required"},
		},
		{
			name: "nullable members may be null", method: "POST",
			target:      "/ordering/v3/order/0b7e0e3c-4a3e-4d55-9a3c-2f1de1c6b1a1/fulfillment-type/delivery-by-delivery-partner?accessToken=t",
			contentType: "application/json",
			body: `{"collectionTime": "2025-01-01T12:00:00Z", "collectionNotes": "", "name": "D", "phone": "1",
				"orderReference": "R1", "kitchenNotes": "", "customer": null}`,
		},
		{
			name: "wrong JSON type is left to the server (400001)", method: "POST",
			target: "/v1/pos/push-pull/check", contentType: "application/json",
			body: strings.Replace(validCheck, `"checkNumber": 1001`, `"checkNumber": "1001"`, 1),
		},
		{
			name: "malformed JSON is left to the server", method: "POST", target: "/v1/pos/push-pull/check",
			contentType: "application/json", body: `{"checkNumber":`,
		},
		{
			name: "wrong content type is left to the server", method: "POST", target: "/v1/pos/push-pull/check",
			contentType: "text/plain", body: `{}`,
		},
		{
			name: "unknown route is left to the server", method: "GET", target: "/v9/nothing",
		},
		{
			name: "path id that is not a number is left to the server", method: "GET", target: "/v1/location/abc",
		},
		{
			name: "bad query parameter is 400003", method: "GET",
			target:     "/v3/location/1/bills/closed?from=2025-01-01T00:00:00+01:00&to=2025-01-02T00:00:00Z",
			wantStatus: 400, wantFields: map[string]string{"from": "not a valid date-time"},
		},
		{
			name: "idempotency key too long", method: "POST", target: "/v1/pos/push-pull/heartbeat/1",
			wantStatus: 400, wantFields: map[string]string{"Idempotency-Key": "maximum string length is 255"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var reached bool
			var gotBody string
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reached = true
				b, _ := io.ReadAll(r.Body)
				gotBody = string(b)
				w.WriteHeader(http.StatusNoContent)
			})
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req := httptest.NewRequest(tt.method, tt.target, body)
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			if strings.Contains(tt.name, "idempotency") {
				req.Header.Set("Idempotency-Key", strings.Repeat("k", 256))
			}
			rec := httptest.NewRecorder()
			mw(next).ServeHTTP(rec, req)

			if tt.wantStatus == 0 {
				if !reached || rec.Code != http.StatusNoContent {
					t.Fatalf("request was not passed through: status %d, body %s", rec.Code, rec.Body)
				}
				if gotBody != tt.body {
					t.Errorf("server read body %q, want %q", gotBody, tt.body)
				}
				return
			}
			if reached {
				t.Fatal("invalid request reached the server")
			}
			if rec.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", rec.Code, tt.wantStatus, rec.Body)
			}
			var eb errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil {
				t.Fatal(err)
			}
			wantCode := 400002
			if strings.Contains(tt.target, "from=") {
				wantCode = 400003
			}
			if !eb.Error || eb.Code != wantCode || eb.DisplayString != nil || eb.RequestInfo.APIVersion != 0 ||
				eb.RequestInfo.RequestID != nil || eb.RequestInfo.ServerTime != clock.Unix() || eb.Message == "" {
				t.Errorf("error body = %+v", eb)
			}
			if diff := cmp.Diff(tt.wantFields, eb.ContextData); diff != "" {
				t.Errorf("contextData (-want +got):\n%s", diff)
			}
			if got := rec.Header().Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type = %q", got)
			}
		})
	}
}

func TestRequestValidatorTokenStatus(t *testing.T) {
	t.Parallel()
	mw, err := openapi.NewRequestValidator(openapi.WithTokenStatus(func(*http.Request) string { return "invalid" }))
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", "/v1/pos/push-pull/accept-payment?accessToken=x", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	mw(http.NotFoundHandler()).ServeHTTP(rec, req)
	var eb errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil {
		t.Fatal(err)
	}
	if eb.RequestInfo.AccessTokenStatus != "invalid" || eb.ContextData["paymentId"] != "required" {
		t.Errorf("body = %+v", eb)
	}
	if strings.Contains(rec.Body.String(), "accessToken=x") {
		t.Error("the error body echoes the access token")
	}
}

// deepCategory is a category chain depth levels deep; the deepest has no
// name when nameless is set.
func deepCategory(depth int, nameless bool) string {
	cat := `{"category": null}`
	if !nameless {
		cat = `{"name": "c", "category": null}`
	}
	for range depth - 1 {
		cat = `{"name": "c", "category": ` + cat + `}`
	}
	return cat
}

// The document's nullable members nest (a category's parent is a category
// or null); checking them costs one visit per level, so a deep chain is
// checked, not left running. Before, each level doubled the work and a
// chain of 33 never finished.
func TestRequestValidatorDeepNesting(t *testing.T) {
	t.Parallel()
	mw, err := openapi.NewRequestValidator()
	if err != nil {
		t.Fatal(err)
	}
	const depth = 64
	passed := false
	h := mw(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { passed = true }))
	send := func(category string) *httptest.ResponseRecorder {
		body := strings.Replace(validCheck, `{"name": "Starters", "category": null}`, category, 1)
		req := httptest.NewRequest("POST", "/v1/pos/push-pull/check?accessToken=t", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := send(deepCategory(depth, false)); !passed {
		t.Fatalf("a valid %d-deep chain was refused: %d %s", depth, rec.Code, rec.Body)
	}
	rec := send(deepCategory(depth, true))
	var got errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.Code != 400002 {
		t.Fatalf("nameless deepest category: %d %s", rec.Code, rec.Body)
	}
	want := "menuItems[0]" + strings.Repeat(".category", depth) + ".name"
	if diff := cmp.Diff(map[string]string{want: "required"}, got.ContextData); diff != "" {
		t.Errorf("contextData (-want +got):\n%s", diff)
	}
}

// A body with more failing fields than one 400002 names gets the server's
// own bound: the first 100 paths, and a message saying how many failed.
func TestRequestValidatorBoundsFieldErrors(t *testing.T) {
	t.Parallel()
	mw, err := openapi.NewRequestValidator()
	if err != nil {
		t.Fatal(err)
	}
	item := `{"id": 1, "name": "Soup", "quantity": 1, "price": 24.50, "priceSold": null,
		"modifiers": null, "discount": null, "category": {"name": "Starters", "category": null}}`
	items := strings.TrimSuffix(strings.Repeat(item+",", 150), ",")
	start := strings.Index(validCheck, `[{"id"`)
	body := validCheck[:start] + "[" + items + "]\n}"
	req := httptest.NewRequest("POST", "/v1/pos/push-pull/check", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	mw(http.NotFoundHandler()).ServeHTTP(rec, req)
	var eb errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil {
		t.Fatalf("status %d: %v: %s", rec.Code, err, rec.Body)
	}
	if eb.Code != 400002 || eb.Message != "Validation failed: 100 of 150 problems shown." || len(eb.ContextData) != 100 {
		t.Errorf("code %d, message %q, %d fields", eb.Code, eb.Message, len(eb.ContextData))
	}
}
