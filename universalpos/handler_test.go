package universalpos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/universalpos"
)

// validOrderJSON is a complete order body; tests vary it.
const validOrderJSON = `{
  "orderId": "6f1c1e9a-6a55-4a39-9d8c-2f0f3f8f7a10",
  "posLocationId": "1",
  "fulfillmentType": "order-at-table",
  "fulfillment": {"kitchenNotes": "no onions", "tableNumber": 12},
  "items": [{"plu": "B1", "name": "Cheeseburger", "quantity": 2, "price": 8.50,
             "options": [{"plu": "S1", "name": "Fries", "quantity": 1, "price": 2.50,
                          "options": [{"plu": "S1L", "name": "Large", "quantity": 1, "price": 0.70}]}]}],
  "total": 23.40,
  "createdAt": 1767225600
}`

// serve runs one request through h and returns the status and the decoded
// error body (if any).
type errBody struct {
	Error  string            `json:"error"`
	Fields map[string]string `json:"fields"`
}

func do(t *testing.T, h http.Handler, method, path, auth, contentType, body string) (*httptest.ResponseRecorder, errBody) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var eb errBody
	if rec.Code >= 400 {
		if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil {
			t.Fatalf("%s %s: error body %q is not JSON: %v", method, path, rec.Body, err)
		}
		if eb.Error == "" {
			t.Errorf("%s %s: error body %q has no error message", method, path, rec.Body)
		}
	}
	return rec, eb
}

func TestHandlerPassesChecker(t *testing.T) {
	t.Parallel()
	srv := startPOS(t, newTestProvider())
	report := universalpos.RunConformance(context.Background(), universalpos.ConformanceConfig{URL: srv.URL, Token: testToken, HTTPClient: srv.Client()})
	var out bytes.Buffer
	_ = report.Write(&out)
	if !report.Passed() {
		t.Fatalf("checker failed:\n%s", out.String())
	}
	if len(report.Results) != 8 {
		t.Errorf("got %d results, want 8:\n%s", len(report.Results), out.String())
	}
}

func TestHandlerAuth(t *testing.T) {
	t.Parallel()
	h := universalpos.NewHandler(newTestProvider(), universalpos.HandlerOptions{Token: testToken})
	tests := []struct {
		name, auth string
		want       int
	}{
		{"no header", "", http.StatusUnauthorized},
		{"wrong token", "Bearer nope", http.StatusUnauthorized},
		{"token prefix", "Bearer " + testToken[:10], http.StatusUnauthorized},
		{"token with suffix", "Bearer " + testToken + "x", http.StatusUnauthorized},
		{"basic scheme", "Basic " + testToken, http.StatusUnauthorized},
		{"no scheme", testToken, http.StatusUnauthorized},
		{"empty bearer", "Bearer ", http.StatusUnauthorized},
		{"right token", "Bearer " + testToken, http.StatusOK},
		{"scheme case-insensitive", "bearer " + testToken, http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, path := range []string{"/health", "/menus"} {
				rec, _ := do(t, h, http.MethodGet, path, tc.auth, "", "")
				if rec.Code != tc.want {
					t.Errorf("GET %s: status %d, want %d", path, rec.Code, tc.want)
				}
				if tc.want == http.StatusUnauthorized && !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("GET %s: WWW-Authenticate = %q", path, rec.Header().Get("WWW-Authenticate"))
				}
			}
		})
	}
}

func TestHandlerWithoutTokenRefusesAll(t *testing.T) {
	t.Parallel()
	h := universalpos.NewHandler(newTestProvider(), universalpos.HandlerOptions{})
	for _, auth := range []string{"", "Bearer ", "Bearer x"} {
		if rec, _ := do(t, h, http.MethodGet, "/health", auth, "", ""); rec.Code != http.StatusUnauthorized {
			t.Errorf("auth %q: status %d, want 401", auth, rec.Code)
		}
	}
}

func TestHandlerAuthorizeHook(t *testing.T) {
	t.Parallel()
	h := universalpos.NewHandler(newTestProvider(), universalpos.HandlerOptions{
		Authorize: func(_ *http.Request, token string) bool { return token == "old" || token == "new" },
	})
	for auth, want := range map[string]int{"Bearer old": 200, "Bearer new": 200, "Bearer other": 401, "": 401} {
		if rec, _ := do(t, h, http.MethodGet, "/health", auth, "", ""); rec.Code != want {
			t.Errorf("auth %q: status %d, want %d", auth, rec.Code, want)
		}
	}
}

func TestHandlerRoutes(t *testing.T) {
	t.Parallel()
	h := universalpos.NewHandler(newTestProvider(), universalpos.HandlerOptions{Token: testToken})
	auth := "Bearer " + testToken
	tests := []struct {
		method, path string
		want         int
		allow        string
	}{
		{http.MethodGet, "/nope", http.StatusNotFound, ""},
		{http.MethodGet, "/health/", http.StatusNotFound, ""},
		{http.MethodPost, "/health", http.StatusMethodNotAllowed, "GET"},
		{http.MethodDelete, "/menus", http.StatusMethodNotAllowed, "GET"},
		{http.MethodGet, "/orders", http.StatusMethodNotAllowed, "POST"},
	}
	for _, tc := range tests {
		rec, _ := do(t, h, tc.method, tc.path, auth, "", "")
		if rec.Code != tc.want || rec.Header().Get("Allow") != tc.allow {
			t.Errorf("%s %s: status %d Allow %q, want %d %q", tc.method, tc.path, rec.Code, rec.Header().Get("Allow"), tc.want, tc.allow)
		}
	}
}

func TestHandlerHealth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		health universalpos.HealthStatus
		err    error
		want   string
	}{
		{"ok", universalpos.HealthStatus{Status: universalpos.HealthOK, Message: "ignored"}, nil, `{"status":"OK"}`},
		{"failed", universalpos.HealthStatus{Status: universalpos.HealthFailed, Message: "printer offline"}, nil, `{"status":"FAILED","message":"printer offline"}`},
		{"failed without message", universalpos.HealthStatus{Status: universalpos.HealthFailed}, nil, `{"status":"FAILED","message":"unavailable"}`},
		{"unknown status", universalpos.HealthStatus{Status: "MEH"}, nil, `{"status":"FAILED","message":"unknown health status MEH"}`},
		{"error is not leaked", universalpos.HealthStatus{}, errors.New("db password=secret refused"), `{"status":"FAILED","message":"health check failed"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newTestProvider()
			p.health, p.healthE = tc.health, tc.err
			h := universalpos.NewHandler(p, universalpos.HandlerOptions{Token: testToken})
			rec, _ := do(t, h, http.MethodGet, "/health", "Bearer "+testToken, "", "")
			if rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != tc.want {
				t.Errorf("got %d %s, want 200 %s", rec.Code, rec.Body, tc.want)
			}
		})
	}
}

func TestHandlerMenus(t *testing.T) {
	t.Parallel()
	p := newTestProvider()
	p.menus = nil
	h := universalpos.NewHandler(p, universalpos.HandlerOptions{Token: testToken})
	rec, _ := do(t, h, http.MethodGet, "/menus", "Bearer "+testToken, "", "")
	if got := strings.TrimSpace(rec.Body.String()); rec.Code != 200 || got != `{"menus":[]}` {
		t.Errorf("nil menus: got %d %s", rec.Code, got)
	}
	p.menusE = errors.New("upstream down")
	rec, eb := do(t, h, http.MethodGet, "/menus", "Bearer "+testToken, "", "")
	if rec.Code != http.StatusInternalServerError || strings.Contains(eb.Error, "upstream") {
		t.Errorf("menus error: got %d %+v", rec.Code, eb)
	}
}

func TestHandlerOrderValidation(t *testing.T) {
	t.Parallel()
	// mutate returns validOrderJSON with one change applied.
	mutate := func(fn func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(validOrderJSON), &m); err != nil {
			t.Fatal(err)
		}
		fn(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	item := func(m map[string]any) map[string]any { return m["items"].([]any)[0].(map[string]any) }
	option := func(m map[string]any) map[string]any { return item(m)["options"].([]any)[0].(map[string]any) }
	tests := []struct {
		name        string
		contentType string
		body        string
		status      int
		fields      map[string]string
	}{
		{name: "not JSON", body: `{"orderId":`, status: 400},
		{name: "trailing data", body: validOrderJSON + `{}`, status: 400},
		{name: "array", body: `[]`, status: 400},
		{name: "wrong content type", contentType: "text/plain", body: validOrderJSON, status: 415},
		{name: "no content type", contentType: "-", body: validOrderJSON, status: 415},
		{name: "too large", body: `{"orderId":"` + strings.Repeat("x", 2<<20) + `"}`, status: 413},
		{name: "empty object", body: `{}`, status: 400, fields: map[string]string{
			"orderId": "required", "posLocationId": "required", "fulfillmentType": "required",
			"fulfillment": "required", "items": "required", "total": "required", "createdAt": "required",
		}},
		{name: "nulls are missing", body: mutate(func(m map[string]any) { m["orderId"] = nil; m["fulfillment"] = nil }), status: 400,
			fields: map[string]string{"orderId": "required", "fulfillment": "required"}},
		{name: "wrong types", body: mutate(func(m map[string]any) {
			m["orderId"] = 5
			m["posLocationId"] = 1
			m["fulfillment"] = "x"
			m["total"] = "23.40"
			m["createdAt"] = 1.5
		}), status: 400, fields: map[string]string{
			"orderId": "must be a string", "posLocationId": "must be a string", "fulfillment": "must be an object",
			"total": "must be a number", "createdAt": "must be an integer",
		}},
		{name: "no items", body: mutate(func(m map[string]any) { m["items"] = []any{} }), status: 400,
			fields: map[string]string{"items": "must not be empty"}},
		{name: "bad item", body: mutate(func(m map[string]any) {
			it := item(m)
			it["plu"] = ""
			it["quantity"] = 0
			it["price"] = json.Number("8.505")
			it["options"] = "none"
		}), status: 400, fields: map[string]string{
			"items[0].plu": "must not be empty", "items[0].quantity": "must be between 1 and 1000000",
			"items[0].price": "must have at most 2 decimal places", "items[0].options": "must be an array",
		}},
		{name: "bad nested option", body: mutate(func(m map[string]any) {
			nested := option(m)["options"].([]any)[0].(map[string]any)
			delete(nested, "plu")
			nested["price"] = -1
		}), status: 400, fields: map[string]string{
			"items[0].options[0].options[0].plu":   "required",
			"items[0].options[0].options[0].price": "must not be negative",
		}},
		{name: "negative total", body: mutate(func(m map[string]any) { m["total"] = -1 }), status: 400,
			fields: map[string]string{"total": "must not be negative"}},
		{name: "options may be absent", body: mutate(func(m map[string]any) { delete(item(m), "options") }), status: 201},
		{name: "unknown fields and fulfillment types pass", body: mutate(func(m map[string]any) {
			m["fulfillmentType"] = "drone"
			m["extra"] = true
		}), status: 201},
		{name: "charset in content type", contentType: "application/json; charset=utf-8", body: validOrderJSON, status: 201},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newTestProvider()
			h := universalpos.NewHandler(p, universalpos.HandlerOptions{Token: testToken})
			ct := tc.contentType
			switch ct {
			case "":
				ct = "application/json"
			case "-":
				ct = ""
			}
			rec, eb := do(t, h, http.MethodPost, "/orders", "Bearer "+testToken, ct, tc.body)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d; body %s", rec.Code, tc.status, rec.Body)
			}
			if diff := cmp.Diff(tc.fields, eb.Fields); tc.fields != nil && diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if wantCalls := int64(0); tc.status != 201 && p.calls.Load() != wantCalls {
				t.Errorf("CreateOrder called %d times for a refused order", p.calls.Load())
			}
		})
	}
}

func TestHandlerOrderDecoded(t *testing.T) {
	t.Parallel()
	p := newTestProvider()
	h := universalpos.NewHandler(p, universalpos.HandlerOptions{Token: testToken})
	rec, _ := do(t, h, http.MethodPost, "/orders", "Bearer "+testToken, "application/json", validOrderJSON)
	if rec.Code != http.StatusCreated || strings.TrimSpace(rec.Body.String()) != `{"posOrderId":"POS-1"}` {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
	want, err := universalpos.DecodeOrder([]byte(validOrderJSON))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]universalpos.Order{want}, p.orders, cmpMoney); diff != "" {
		t.Errorf("order given to the provider (-want +got):\n%s", diff)
	}
	o := p.orders[0]
	if o.Total.String() != "23.40" || o.ComputeTotal().String() != "23.40" || o.Items[0].Options[0].Options[0].PLU != "S1L" {
		t.Errorf("decoded order: %+v", o)
	}
	if o.CreatedAt.Unix() != 1767225600 || string(o.Fulfillment) != `{"kitchenNotes":"no onions","tableNumber":12}` {
		t.Errorf("createdAt %v fulfillment %s", o.CreatedAt, o.Fulfillment)
	}
}

func TestHandlerDeduplicates(t *testing.T) {
	t.Parallel()
	p := newTestProvider()
	h := universalpos.NewHandler(p, universalpos.HandlerOptions{Token: testToken})
	send := func(body string) (int, string) {
		rec, _ := do(t, h, http.MethodPost, "/orders", "Bearer "+testToken, "application/json", body)
		var oc struct{ PosOrderID string }
		_ = json.Unmarshal(rec.Body.Bytes(), &oc)
		return rec.Code, oc.PosOrderID
	}
	if code, id := send(validOrderJSON); code != 201 || id != "POS-1" {
		t.Fatalf("first send: %d %q", code, id)
	}
	for range 3 {
		if code, id := send(validOrderJSON); code != 200 || id != "POS-1" {
			t.Fatalf("resend: %d %q, want 200 POS-1", code, id)
		}
	}
	other := strings.Replace(validOrderJSON, "6f1c1e9a", "00000000", 1)
	if code, id := send(other); code != 201 || id != "POS-2" {
		t.Fatalf("another order: %d %q", code, id)
	}
	if n := p.calls.Load(); n != 2 {
		t.Errorf("CreateOrder called %d times, want 2", n)
	}
}

func TestHandlerDeduplicatesConcurrentSends(t *testing.T) {
	t.Parallel()
	p := newTestProvider()
	p.block = make(chan struct{})
	h := universalpos.NewHandler(p, universalpos.HandlerOptions{Token: testToken})
	const n = 8
	type result struct {
		code int
		body string
	}
	results := make(chan result, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			rec, _ := do(t, h, http.MethodPost, "/orders", "Bearer "+testToken, "application/json", validOrderJSON)
			results <- result{rec.Code, strings.TrimSpace(rec.Body.String())}
		})
	}
	// Hold the first sender inside CreateOrder until it is there, so the
	// others arrive while the order is being created; then release it.
	for p.calls.Load() == 0 {
		runtime.Gosched()
	}
	close(p.block)
	wg.Wait()
	close(results)
	created := 0
	for r := range results {
		if r.body != `{"posOrderId":"POS-1"}` {
			t.Errorf("body %s, want POS-1", r.body)
		}
		if r.code == 201 {
			created++
		} else if r.code != 200 {
			t.Errorf("status %d", r.code)
		}
	}
	if created != 1 || p.calls.Load() != 1 {
		t.Errorf("%d answers were 201 and CreateOrder ran %d times; want 1 and 1", created, p.calls.Load())
	}
}

func TestHandlerCreateOrderErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		create func(universalpos.Order) (string, error)
		status int
		want   errBody
	}{
		{"rejected", func(universalpos.Order) (string, error) {
			return "", universalpos.RejectOrder("item sold out", map[string]string{"items[0].plu": "sold out"})
		}, 422, errBody{Error: "item sold out", Fields: map[string]string{"items[0].plu": "sold out"}}},
		{"custom status", func(universalpos.Order) (string, error) {
			return "", &universalpos.Error{StatusCode: 503, Message: "kitchen closed for a minute"}
		}, 503, errBody{Error: "kitchen closed for a minute"}},
		{"plain error is not leaked", func(universalpos.Order) (string, error) {
			return "", errors.New("sql: connection refused to 10.0.0.5")
		}, 500, errBody{Error: "internal error"}},
		{"empty posOrderId", func(universalpos.Order) (string, error) { return "", nil }, 500, errBody{Error: "internal error"}},
		{"panic", func(universalpos.Order) (string, error) { panic("boom") }, 500, errBody{Error: "internal error"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newTestProvider()
			p.create = tc.create
			h := universalpos.NewHandler(p, universalpos.HandlerOptions{Token: testToken})
			rec, eb := do(t, h, http.MethodPost, "/orders", "Bearer "+testToken, "application/json", validOrderJSON)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d", rec.Code, tc.status)
			}
			if diff := cmp.Diff(tc.want, eb); diff != "" {
				t.Errorf("error body (-want +got):\n%s", diff)
			}
			// A failed order is not remembered: the resend tries again.
			do(t, h, http.MethodPost, "/orders", "Bearer "+testToken, "application/json", validOrderJSON)
			if p.calls.Load() != 2 {
				t.Errorf("CreateOrder ran %d times over two sends, want 2", p.calls.Load())
			}
		})
	}
}

// failingStore is an OrderStore whose lookups fail.
type failingStore struct{ universalpos.OrderStore }

func (failingStore) Get(context.Context, string) (string, bool, error) {
	return "", false, errors.New("store down")
}

func TestHandlerOrderStoreFailure(t *testing.T) {
	t.Parallel()
	p := newTestProvider()
	h := universalpos.NewHandler(p, universalpos.HandlerOptions{Token: testToken, Orders: failingStore{}})
	rec, _ := do(t, h, http.MethodPost, "/orders", "Bearer "+testToken, "application/json", validOrderJSON)
	if rec.Code < 500 || p.calls.Load() != 0 {
		t.Errorf("status %d, CreateOrder calls %d; want a 5xx and no call", rec.Code, p.calls.Load())
	}
}

// lockingStore records that the handler takes its shared lock.
type lockingStore struct {
	*universalpos.MemoryOrderStore
	mu     sync.Mutex
	locked []string
}

func (s *lockingStore) LockOrder(_ context.Context, id string) (func(), error) {
	s.mu.Lock()
	s.locked = append(s.locked, id)
	s.mu.Unlock()
	return func() {}, nil
}

func TestHandlerUsesOrderLocker(t *testing.T) {
	t.Parallel()
	store := &lockingStore{MemoryOrderStore: universalpos.NewMemoryOrderStore(10)}
	h := universalpos.NewHandler(newTestProvider(), universalpos.HandlerOptions{Token: testToken, Orders: store})
	do(t, h, http.MethodPost, "/orders", "Bearer "+testToken, "application/json", validOrderJSON)
	if diff := cmp.Diff([]string{"6f1c1e9a-6a55-4a39-9d8c-2f0f3f8f7a10"}, store.locked); diff != "" {
		t.Errorf("locked (-want +got):\n%s", diff)
	}
	if store.Len() != 1 {
		t.Errorf("store holds %d orders, want 1", store.Len())
	}
}

func TestMemoryOrderStoreIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := universalpos.NewMemoryOrderStore(2)
	_ = s.Put(ctx, "a", "1")
	_ = s.Put(ctx, "b", "2")
	if _, ok, _ := s.Get(ctx, "a"); !ok { // a is now the most recently used
		t.Fatal("a missing")
	}
	_ = s.Put(ctx, "c", "3") // evicts b
	for id, want := range map[string]bool{"a": true, "b": false, "c": true} {
		if _, ok, _ := s.Get(ctx, id); ok != want {
			t.Errorf("Get(%q) found=%v, want %v", id, ok, want)
		}
	}
	if s.Len() != 2 {
		t.Errorf("Len %d, want 2", s.Len())
	}
}
