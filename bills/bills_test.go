package bills_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestListClosedQueryEncoding(t *testing.T) {
	t.Parallel()
	plus1 := time.FixedZone("+01:00", 3600)
	minus5 := time.FixedZone("-05:30", -(5*3600 + 1800))
	tests := []struct {
		name     string
		from, to time.Time
		wantRaw  string // the exact query string on the wire
	}{
		{
			name:    "positive offset is percent-encoded",
			from:    time.Date(2026, 5, 1, 10, 0, 0, 0, plus1),
			to:      time.Date(2026, 5, 2, 10, 0, 0, 0, plus1),
			wantRaw: "from=2026-05-01T10%3A00%3A00%2B01%3A00&to=2026-05-02T10%3A00%3A00%2B01%3A00",
		},
		{
			name:    "UTC uses Z",
			from:    time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC),
			to:      time.Date(2026, 5, 1, 23, 59, 59, 0, time.UTC),
			wantRaw: "from=2026-05-01T00%3A00%3A00Z&to=2026-05-01T23%3A59%3A59Z",
		},
		{
			name:    "negative offset",
			from:    time.Date(2026, 5, 1, 0, 0, 0, 0, minus5),
			to:      time.Date(2026, 5, 1, 0, 0, 0, 0, minus5),
			wantRaw: "from=2026-05-01T00%3A00%3A00-05%3A30&to=2026-05-01T00%3A00%3A00-05%3A30",
		},
		{
			name:    "sub-second from rounds up, to rounds down",
			from:    time.Date(2026, 5, 1, 10, 0, 0, 1, time.UTC),
			to:      time.Date(2026, 5, 1, 11, 0, 0, 999999999, time.UTC),
			wantRaw: "from=2026-05-01T10%3A00%3A01Z&to=2026-05-01T11%3A00%3A00Z",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var gotRaw, gotPath, gotKey, gotMethod string
			svc := newTestService(t, func(req *http.Request) (*http.Response, error) {
				gotRaw, gotPath, gotKey, gotMethod = req.URL.RawQuery, req.URL.Path, req.Header.Get(client.HeaderAPIKey), req.Method
				return httpmock.NewJsonResponse(200, map[string]any{
					"bills": []map[string]any{
						{"billId": "b1", "status": "closed", "lastUpdated": "2026-05-01 09:30:00"},
					},
					"requestInfo": map[string]any{"apiVersion": 3},
				})
			})
			got, err := svc.ListClosed(context.Background(), 7, tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if gotRaw != tt.wantRaw {
				t.Errorf("query = %s, want %s", gotRaw, tt.wantRaw)
			}
			if strings.Contains(gotRaw, "+") {
				t.Errorf("query %s carries a raw +, which a server decodes as a space", gotRaw)
			}
			if gotPath != "/prefix/v3/location/7/bills/closed" || gotMethod != http.MethodGet {
				t.Errorf("request = %s %s", gotMethod, gotPath)
			}
			if gotKey != testKey {
				t.Errorf("X-Vendor-API-Key = %q", gotKey)
			}
			want := []bills.Summary{{BillID: "b1", Status: possync.CheckClosed,
				LastUpdated: client.BillTime{Time: time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC)}}}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("summaries (-want +got):\n%s", d)
			}
		})
	}
}

func TestListClosedEmptyIsNotNil(t *testing.T) {
	t.Parallel()
	svc := newTestService(t, func(*http.Request) (*http.Response, error) {
		return httpmock.NewJsonResponse(200, map[string]any{"bills": nil, "requestInfo": map[string]any{"apiVersion": 3}})
	})
	now := time.Now()
	got, err := svc.ListClosed(context.Background(), 1, now, now)
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("ListClosed = %#v, %v; want an empty, non-nil slice", got, err)
	}
}

func TestGetScopes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		scopes    []bills.Scope
		wantScope string // "" means no scope parameter at all
	}{
		{"none", nil, ""},
		{"one", []bills.Scope{bills.ScopeItems}, "bill.items"},
		{"all", bills.AllScopes(), "bill.items,bill.payments,bill.users,bill.table,table.location,bill.staff"},
		{"duplicates dropped", []bills.Scope{bills.ScopeStaff, bills.ScopeStaff, bills.ScopeUsers}, "bill.staff,bill.users"},
		{"table.location adds bill.table before it", []bills.Scope{bills.ScopeTableLocation}, "bill.table,table.location"},
		{"table.location after bill.table kept", []bills.Scope{bills.ScopeTableLocation, bills.ScopeTable}, "table.location,bill.table"},
		{"unknown passed through", []bills.Scope{"bill.future", bills.ScopeItems}, "bill.future,bill.items"},
		{"empty scope ignored", []bills.Scope{""}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var gotQuery map[string][]string
			var gotPath string
			svc := newTestService(t, func(req *http.Request) (*http.Response, error) {
				gotQuery, gotPath = req.URL.Query(), req.URL.Path
				return httpmock.NewJsonResponse(200, map[string]any{"bill": map[string]any{"billId": "b/1"}, "requestInfo": map[string]any{"apiVersion": 3}})
			})
			b, err := svc.Get(context.Background(), "b/1", tt.scopes)
			if err != nil {
				t.Fatal(err)
			}
			if b.BillID != "b/1" {
				t.Errorf("BillID = %q", b.BillID)
			}
			if gotPath != "/prefix/v3/bill/b/1" { // the escaped slash decodes back in Path
				t.Errorf("path = %q", gotPath)
			}
			vals, present := gotQuery["scope"]
			switch {
			case tt.wantScope == "" && present:
				t.Errorf("scope = %q, want no scope parameter", vals)
			case tt.wantScope != "" && (len(vals) != 1 || vals[0] != tt.wantScope):
				t.Errorf("scope = %q, want %q", vals, tt.wantScope)
			}
		})
	}
}

func TestGetEscapesBillID(t *testing.T) {
	t.Parallel()
	var raw string
	svc := newTestService(t, func(req *http.Request) (*http.Response, error) {
		raw = req.URL.EscapedPath()
		return httpmock.NewJsonResponse(200, map[string]any{"bill": map[string]any{"billId": "a/b?c"}, "requestInfo": map[string]any{}})
	})
	if _, err := svc.Get(context.Background(), "a/b?c", nil); err != nil {
		t.Fatal(err)
	}
	if raw != "/prefix/v3/bill/a%2Fb%3Fc" {
		t.Errorf("escaped path = %q", raw)
	}
}

func TestGetDecodesRecord(t *testing.T) {
	t.Parallel()
	body := `{"bill": {
	  "billId": "B-1", "locationId": 7, "checkNumber": 1001, "status": "closed",
	  "lastUpdated": "2026-05-01 12:00:05",
	  "totalAmount": 42.50, "outstandingAmount": 0, "serviceChargeAmount": 4.25, "tipsPaid": 1.10,
	  "discounts": [{"name": "Happy hour", "value": -2.00}],
	  "items": [{"id": 1, "name": "Soup", "quantity": 2, "price": 5.00, "priceSold": 4.50,
	             "modifiers": [{"id": 9, "name": "Bread", "price": 0.50, "modifiers": null}],
	             "discount": {"name": "Staff", "value": -0.50},
	             "category": {"name": "Starters", "category": {"name": "Food", "category": null}}}],
	  "payments": [{"paymentId": 3, "amount": 40.00, "tip": 1.10, "status": "accepted", "createdAt": 1777636800, "cardLast4": "1111"}],
	  "users": [{"userId": 11}],
	  "table": {"tableNumber": 4, "guests": 2,
	            "location": {"locationId": 7, "name": "Harbour", "locationPaymentDetails": {"gateway": "providerB"},
	                         "posStatus": "online", "lastHeartbeat": 1777636000}},
	  "staff": {"staffId": "S-9"}},
	  "requestInfo": {"accessTokenStatus": "", "serverTime": 1777636805, "requestId": null, "apiVersion": 3}
	}`
	svc := newTestService(t, func(req *http.Request) (*http.Response, error) {
		return sdktest.JSONResponse(200, body), nil
	})
	got, err := svc.Get(context.Background(), "B-1", bills.AllScopes())
	if err != nil {
		t.Fatal(err)
	}
	hb := client.UnixTime{Time: time.Unix(1777636000, 0).UTC()}
	want := &bills.Bill{
		BillID: "B-1", LocationID: 7, CheckNumber: 1001, Status: possync.CheckClosed,
		LastUpdated:         client.BillTime{Time: time.Date(2026, 5, 1, 12, 0, 5, 0, time.UTC)},
		TotalAmount:         client.MustParseMoney("42.50"),
		OutstandingAmount:   client.MustParseMoney("0"),
		ServiceChargeAmount: client.MustParseMoney("4.25"),
		TipsPaid:            client.MustParseMoney("1.10"),
		Discounts:           []possync.Discount{{Name: "Happy hour", Value: client.MustParseMoney("-2")}},
		Items: []possync.MenuItem{{
			ID: 1, Name: "Soup", Quantity: 2, Price: client.MustParseMoney("5"), PriceSold: client.MustParseMoney("4.50"),
			Modifiers: []possync.Modifier{{ID: 9, Name: "Bread", Price: client.MustParseMoney("0.50")}},
			Discount:  &possync.Discount{Name: "Staff", Value: client.MustParseMoney("-0.50")},
			Category:  possync.Category{Name: "Starters", Category: &possync.Category{Name: "Food"}},
		}},
		Payments: []bills.Payment{{PaymentID: 3, Amount: client.MustParseMoney("40"), Tip: client.MustParseMoney("1.10"),
			Status: wallet.PaymentAccepted, CreatedAt: client.UnixTime{Time: time.Unix(1777636800, 0).UTC()}, CardLast4: "1111"}},
		Users: []bills.User{{UserID: 11}},
		Table: &bills.Table{TableNumber: 4, Guests: 2, Location: &wallet.Location{
			LocationID: 7, Name: "Harbour", LocationPaymentDetails: wallet.PaymentDetails{Gateway: "providerB"},
			POSStatus: "online", LastHeartbeat: &hb,
		}},
		Staff: &bills.Staff{StaffID: "S-9"},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(client.Money{})); d != "" {
		t.Errorf("bill (-want +got):\n%s", d)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		code client.Code
		want error
	}{
		{"bad range", client.CodeInvalidQuery, client.ErrInvalidQuery},
		{"wrong location", client.CodeForbidden, client.ErrForbidden},
		{"bill outside scope", client.CodeNotFound, client.ErrNotFound},
		{"no key", client.CodeAPIKeyMissing, client.ErrAPIKeyMissing},
		{"bad key", client.CodeAPIKeyInvalid, client.ErrAPIKeyInvalid},
		{"server", client.CodeInternal, client.ErrInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc := newTestService(t, func(*http.Request) (*http.Response, error) {
				return sdktest.ErrorResponse(tt.code), nil
			})
			now := time.Now()
			_, err := svc.ListClosed(context.Background(), 1, now, now)
			assertAPIError(t, "ListClosed", err, tt.code, tt.want)
			_, err = svc.Get(context.Background(), "b1", []bills.Scope{bills.ScopeItems})
			assertAPIError(t, "Get", err, tt.code, tt.want)
			_, err = collect(svc.All(context.Background(), 1, now.Add(-time.Hour), now, nil))
			assertAPIError(t, "All", err, tt.code, tt.want)
		})
	}
}

func assertAPIError(t *testing.T, call string, err error, code client.Code, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: err = %v, want %v", call, err, want)
		return
	}
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.Code != code || ae.HTTPStatus != code.HTTPStatus() {
		t.Errorf("%s: err = %#v, want *client.APIError with code %d", call, err, code)
	}
}

func TestGetWithoutRequest(t *testing.T) {
	t.Parallel()
	sent := false
	svc := newTestService(t, func(*http.Request) (*http.Response, error) {
		sent = true
		return httpmock.NewJsonResponse(200, map[string]any{})
	})
	if _, err := svc.Get(context.Background(), "", nil); !errors.Is(err, bills.ErrEmptyBillID) {
		t.Errorf("Get(\"\") = %v, want ErrEmptyBillID", err)
	}
	if sent {
		t.Error("Get(\"\") sent a request")
	}
}

func TestMissingAPIKey(t *testing.T) {
	t.Parallel()
	c, err := client.New(client.WithBaseURL(sdktest.BaseURL))
	if err != nil {
		t.Fatal(err)
	}
	svc := bills.NewService(c)
	now := time.Now()
	if _, err := svc.ListClosed(context.Background(), 1, now, now); !errors.Is(err, client.ErrNoCredential) {
		t.Errorf("ListClosed without key = %v, want ErrNoCredential", err)
	}
	if _, err := svc.Get(context.Background(), "b", nil); !errors.Is(err, client.ErrNoCredential) {
		t.Errorf("Get without key = %v, want ErrNoCredential", err)
	}
}
