package universalpos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// forgetfulStore never remembers an order: a POS without de-duplication.
type forgetfulStore struct{}

func (forgetfulStore) Get(context.Context, string) (string, bool, error) { return "", false, nil }
func (forgetfulStore) Put(context.Context, string, string) error         { return nil }

// rawJSON returns a handler that answers status and body.
func rawJSON(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// menusJSON returns the test menu as GET /menus would, with edit applied to
// the JSON text (to make defects the Go types cannot express).
func menusJSON(t *testing.T, old, replacement string) http.HandlerFunc {
	b, err := json.Marshal(map[string]any{"menus": testMenu()})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("menu JSON has no %q", old)
	}
	return rawJSON(200, strings.Replace(string(b), old, replacement, 1))
}

// rewriteOrders passes POST /orders to next and lets fix change the answer.
func rewriteOrders(next http.Handler, fix func(status int, body []byte) (int, []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		status, body := fix(rec.Code, rec.Body.Bytes())
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}
}

func TestCheckReportsEachDefect(t *testing.T) {
	t.Parallel()
	dataFailures := []string{universalpos.CheckMenusShape, universalpos.CheckMenusConsistency,
		universalpos.CheckOrderAccepted, universalpos.CheckOrderIdempotent}
	tests := []struct {
		name string
		// menus edits the provider's menus.
		menus func(ms []universalpos.Menu)
		// opts edits the handler options.
		opts func(o *universalpos.HandlerOptions)
		// create replaces the provider's CreateOrder.
		create func(universalpos.Order) (string, error)
		// override serves a path instead of NewHandler (after a token
		// check); next is the NewHandler-based handler.
		override   func(t *testing.T, next http.Handler) map[string]http.Handler
		timeout    time.Duration
		wantFailed []string
	}{
		{name: "health: wrong field name", override: func(*testing.T, http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/health": rawJSON(200, `{"state":"OK"}`)}
		}, wantFailed: []string{universalpos.CheckHealth}},
		{name: "health: lower-case status", override: func(*testing.T, http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/health": rawJSON(200, `{"status":"ok"}`)}
		}, wantFailed: []string{universalpos.CheckHealth}},
		{name: "health: FAILED without message", override: func(*testing.T, http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/health": rawJSON(200, `{"status":"FAILED"}`)}
		}, wantFailed: []string{universalpos.CheckHealth}},
		{name: "health: 503", override: func(*testing.T, http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/health": rawJSON(503, `{"status":"FAILED","message":"down"}`)}
		}, wantFailed: []string{universalpos.CheckHealth}},
		{name: "health: not JSON", override: func(*testing.T, http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/health": rawJSON(200, `OK`)}
		}, wantFailed: []string{universalpos.CheckHealth}},
		{name: "health: no answer in time", timeout: 100 * time.Millisecond, override: func(*testing.T, http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/health": http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })}
		}, wantFailed: []string{universalpos.CheckHealth}},
		{name: "menus: null", override: func(*testing.T, http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/menus": rawJSON(200, `{"menus":null}`)}
		}, wantFailed: dataFailures},
		{name: "menus: price with 3 decimals", override: func(t *testing.T, _ http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/menus": menusJSON(t, `"price":8.50`, `"price":8.505`)}
		}, wantFailed: dataFailures},
		{name: "menus: price as a string", override: func(t *testing.T, _ http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/menus": menusJSON(t, `"price":8.50`, `"price":"8.50"`)}
		}, wantFailed: dataFailures},
		{name: "menus: item without available", override: func(t *testing.T, _ http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/menus": menusJSON(t, `"available":true,`, ``)}
		}, wantFailed: dataFailures},
		{name: "menus: unknown menu type", menus: func(ms []universalpos.Menu) { ms[0].Type = "TAKEAWAY" },
			wantFailed: dataFailures},
		{name: "menus: duplicate plu", menus: func(ms []universalpos.Menu) {
			ms[0].Categories[0].Items[0].Modifiers[0].Options[0].Modifiers[0].Options[0].PLU = "D1"
		}, wantFailed: []string{universalpos.CheckMenusConsistency}},
		{name: "menus: min > max", menus: func(ms []universalpos.Menu) {
			g := &ms[0].Categories[0].Items[0].Modifiers[0].Options[0].Modifiers[0]
			g.Min, g.Max = 2, 1
		}, wantFailed: []string{universalpos.CheckMenusConsistency}},
		{name: "menus: min above the number of options", menus: func(ms []universalpos.Menu) {
			g := &ms[0].Categories[0].Items[0].Modifiers[0]
			g.Min, g.Max = 2, 2
		}, wantFailed: []string{universalpos.CheckMenusConsistency}},
		{name: "menus: max 0 with options", menus: func(ms []universalpos.Menu) {
			ms[0].Categories[0].Items[0].Modifiers[0].Max = 0
		}, wantFailed: []string{universalpos.CheckMenusConsistency}},
		{name: "menus: deal with unknown plu", menus: func(ms []universalpos.Menu) {
			ms[0].Deals[0].Groups[1].Items = []string{"D1", "X9"}
		}, wantFailed: []string{universalpos.CheckMenusConsistency}},
		{name: "menus: negative price", menus: func(ms []universalpos.Menu) {
			ms[0].Categories[1].Items[0].Price = client.MustParseMoney("-1.00")
		}, wantFailed: []string{universalpos.CheckMenusConsistency}},
		{name: "menus: empty item name", menus: func(ms []universalpos.Menu) {
			ms[0].Categories[1].Items[1].Name = ""
		}, wantFailed: []string{universalpos.CheckMenusConsistency}},
		{name: "menus: nothing available", menus: func(ms []universalpos.Menu) {
			for i := range ms[0].Categories {
				for j := range ms[0].Categories[i].Items {
					ms[0].Categories[i].Items[j].Available = false
				}
			}
		}, wantFailed: []string{universalpos.CheckOrderAccepted, universalpos.CheckOrderIdempotent}},
		{name: "auth: no check at all", opts: func(o *universalpos.HandlerOptions) {
			o.Authorize = func(*http.Request, string) bool { return true }
		}, wantFailed: []string{universalpos.CheckAuthMissingToken, universalpos.CheckAuthWrongToken}},
		{name: "auth: any token accepted", opts: func(o *universalpos.HandlerOptions) {
			o.Authorize = func(_ *http.Request, tok string) bool { return tok != "" }
		}, wantFailed: []string{universalpos.CheckAuthWrongToken}},
		{name: "orders: resend creates a new order", opts: func(o *universalpos.HandlerOptions) {
			o.Orders = forgetfulStore{}
		}, wantFailed: []string{universalpos.CheckOrderIdempotent}},
		{name: "orders: resend answered 201", override: func(_ *testing.T, next http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/orders": rewriteOrders(next, func(status int, body []byte) (int, []byte) {
				if status == 200 {
					status = 201
				}
				return status, body
			})}
		}, wantFailed: []string{universalpos.CheckOrderIdempotent}},
		{name: "orders: 500 from CreateOrder", create: func(universalpos.Order) (string, error) {
			return "", errors.New("kitchen printer jammed")
		}, wantFailed: []string{universalpos.CheckOrderAccepted, universalpos.CheckOrderIdempotent}},
		{name: "orders: 500 for everything", override: func(*testing.T, http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/orders": rawJSON(500, `{"error":"oops"}`)}
		}, wantFailed: []string{universalpos.CheckOrderAccepted, universalpos.CheckOrderIdempotent, universalpos.CheckOrderRejectsBroken}},
		{name: "orders: refuses valid orders", create: func(universalpos.Order) (string, error) {
			return "", universalpos.RejectOrder("closed", nil)
		}, wantFailed: []string{universalpos.CheckOrderAccepted, universalpos.CheckOrderIdempotent}},
		{name: "orders: accepts an order without items", override: func(_ *testing.T, next http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/orders": rewriteOrders(next, func(status int, body []byte) (int, []byte) {
				if status == 400 {
					return 201, []byte(`{"posOrderId":"junk"}`)
				}
				return status, body
			})}
		}, wantFailed: []string{universalpos.CheckOrderRejectsBroken}},
		{name: "orders: no posOrderId", override: func(_ *testing.T, next http.Handler) map[string]http.Handler {
			return map[string]http.Handler{"/orders": rewriteOrders(next, func(status int, body []byte) (int, []byte) {
				if status < 300 {
					return status, []byte(`{"id":"POS-1"}`)
				}
				return status, body
			})}
		}, wantFailed: []string{universalpos.CheckOrderAccepted, universalpos.CheckOrderIdempotent}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newTestProvider()
			if tc.menus != nil {
				tc.menus(p.menus)
			}
			p.create = tc.create
			opts := universalpos.HandlerOptions{Token: testToken}
			if tc.opts != nil {
				tc.opts(&opts)
			}
			var h http.Handler = universalpos.NewHandler(p, opts)
			if tc.override != nil {
				overrides := tc.override(t, h)
				next := h
				h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					o, ok := overrides[r.URL.Path]
					if !ok {
						next.ServeHTTP(w, r)
						return
					}
					if r.Header.Get("Authorization") != "Bearer "+testToken {
						rawJSON(401, `{"error":"unauthorized"}`)(w, r)
						return
					}
					o.ServeHTTP(w, r)
				})
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 5 * time.Second
			}
			report := universalpos.RunConformance(context.Background(), universalpos.ConformanceConfig{
				URL: srv.URL, Token: testToken, HTTPClient: srv.Client(), Timeout: timeout,
			})
			var out bytes.Buffer
			if err := report.Write(&out); err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, r := range report.Failed() {
				failed = append(failed, r.Name)
				if r.Reason == "" {
					t.Errorf("%s failed without a reason", r.Name)
				}
				if !strings.Contains(out.String(), "FAIL "+r.Name) {
					t.Errorf("report does not show FAIL %s", r.Name)
				}
			}
			slices.Sort(failed)
			want := slices.Sorted(slices.Values(tc.wantFailed))
			if diff := cmp.Diff(want, failed); diff != "" {
				t.Errorf("failed checks (-want +got):\n%s\nreport:\n%s", diff, out.String())
			}
			if report.Passed() {
				t.Errorf("report passed despite the defect")
			}
		})
	}
}

func TestConformanceConfigErrors(t *testing.T) {
	t.Parallel()
	for _, cfg := range []universalpos.ConformanceConfig{
		{URL: "", Token: "x"},
		{URL: "ftp://pos.example", Token: "x"},
		{URL: "http://pos.example", Token: ""},
	} {
		r := universalpos.RunConformance(context.Background(), cfg)
		if r.Passed() || len(r.Results) != 1 || r.Results[0].Name != "config" {
			t.Errorf("%+v: got %+v, want one failed config result", cfg, r.Results)
		}
	}
}

func TestCheckUnreachablePOS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	r := universalpos.RunConformance(context.Background(), universalpos.ConformanceConfig{URL: url, Token: testToken})
	if r.Passed() {
		t.Fatal("passed against a closed port")
	}
	for _, res := range r.Results {
		if res.Passed {
			t.Errorf("%s passed against a closed port: %s", res.Name, res.Reason)
		}
	}
}

func TestReportWrite(t *testing.T) {
	t.Parallel()
	r := &universalpos.Report{URL: "http://pos", Results: []universalpos.Result{
		{Name: "health", Passed: true, Reason: "fine"},
		{Name: "menus/shape", Passed: false, Reason: "menus: required"},
	}}
	var b strings.Builder
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := "Universal POS conformance: http://pos\n" +
		"PASS health       fine\n" +
		"FAIL menus/shape  menus: required\n" +
		"2 checks: 1 passed, 1 failed\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, ok := r.Result("menus/shape"); !ok {
		t.Error("Result(menus/shape) not found")
	}
}

func TestCheckWithTheWrongToken(t *testing.T) {
	t.Parallel()
	srv := startPOS(t, newTestProvider())
	r := universalpos.RunConformance(context.Background(), universalpos.ConformanceConfig{URL: srv.URL, Token: "not-the-token"})
	var passed []string
	for _, res := range r.Results {
		if res.Passed {
			passed = append(passed, res.Name)
		}
	}
	// Only the checks that expect a 401 can pass; nothing else was reached.
	want := []string{universalpos.CheckAuthMissingToken, universalpos.CheckAuthWrongToken}
	if diff := cmp.Diff(want, passed); diff != "" {
		t.Errorf("passed checks (-want +got):\n%s", diff)
	}
}
