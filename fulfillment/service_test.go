package fulfillment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/jarcoal/httpmock"
)

// setup returns a Service of a fresh mock service, with a user token and
// no retries (so error tests see the first answer).
func setup(t *testing.T, opts ...client.Option) (*Service, *sdktest.Mock) {
	t.Helper()
	m := sdktest.NewMock()
	opts = append([]client.Option{
		client.WithBaseURL(sdktest.BaseURL),
		client.WithHTTPClient(m.HTTPClient),
		client.WithAccessToken("user-token"),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 0}),
	}, opts...)
	c, err := client.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return NewService(c), m
}

var reqInfo = sdktest.RequestInfo(3)

func TestSet(t *testing.T) {
	t.Parallel()
	for _, m := range []Method{validDBO(), validDBDP(), validCBC(), OrderAtTable{TableNumber: 3}, &OrderAtTable{TableNumber: 4}} {
		t.Run(string(m.Type()), func(t *testing.T) {
			t.Parallel()
			svc, mock := setup(t)
			rec := mock.Reply("POST", "ordering/v3/order/o-1/fulfillment-type/"+string(m.Type()), 202, `{}`)
			if err := svc.Set(context.Background(), "o-1", m); err != nil {
				t.Fatalf("Set: %v", err)
			}
			reqs := rec.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			want, _ := json.Marshal(m)
			if diff := cmp.Diff(decode(t, want), reqs[0].JSON(t)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if got := reqs[0].Query["accessToken"]; len(got) != 1 || got[0] != "user-token" {
				t.Errorf("accessToken query = %v", got)
			}
		})
	}
}

func TestSetNullableMembersSentAsNull(t *testing.T) {
	t.Parallel()
	svc, mock := setup(t)
	rec := new(sdktest.Recorder)
	mock.Transport.RegisterRegexpResponder("POST", regexp.MustCompile(`/fulfillment-type/`), rec.Record(sdktest.Responder(202, `{}`)))
	dbo := validDBO()
	dbo.CustomerEmail, dbo.Coordinates = nil, nil
	dbdp := validDBDP()
	dbdp.Customer = nil
	for _, m := range []Method{dbo, dbdp} {
		if err := svc.Set(context.Background(), "o-1", m); err != nil {
			t.Fatal(err)
		}
	}
	reqs := rec.Requests()
	for i, key := range [][]string{{"customerEmail", "coordinates"}, {"customer"}} {
		body := reqs[i].Object(t)
		for _, k := range key {
			v, present := body[k]
			if !present || v != nil {
				t.Errorf("%s: %s = %v (present %v), want null", reqs[i].Path, k, v, present)
			}
		}
	}
}

func TestSetValidatesFirst(t *testing.T) {
	t.Parallel()
	svc, mock := setup(t)
	err := svc.Set(context.Background(), "o-1", DeliveryByDeliveryPartner{Customer: &Customer{Name: "x"}})
	var ve *client.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Set = %v, want *client.ValidationError", err)
	}
	if ve.Fields["customer.address.postcode"] != ReasonRequired {
		t.Errorf("customer.address.postcode not reported: %v", ve.Fields)
	}
	if err := svc.Set(context.Background(), "o-1", nil); err == nil {
		t.Error("nil method: no error")
	}
	if err := svc.Set(context.Background(), "o-1", (*OrderAtTable)(nil)); err == nil {
		t.Error("typed nil method: no error")
	}
	if n := mock.Calls(); n != 0 {
		t.Errorf("%d requests sent for invalid input", n)
	}
}

func TestSetErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		body   string
		want   error
	}{
		{409, sdktest.ErrorBody(client.CodeFulfillmentAlreadySet, ""), client.ErrFulfillmentAlreadySet},
		{404, sdktest.ErrorBody(client.CodeNotFound, ""), client.ErrNotFound},
		{400, sdktest.ErrorBody(client.CodeValidation, `{"tableNumber":"must be at least 1"}`), client.ErrValidation},
	}
	for _, tt := range tests {
		t.Run(tt.want.Error(), func(t *testing.T) {
			t.Parallel()
			svc, mock := setup(t)
			mock.Reply("POST", "ordering/v3/order/o-1/fulfillment-type/order-at-table", tt.status, tt.body)
			err := svc.Set(context.Background(), "o-1", OrderAtTable{TableNumber: 2})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Set = %v, want %v", err, tt.want)
			}
			var ae *client.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("not an *APIError: %T", err)
			}
		})
	}
}

func TestCreateOrder(t *testing.T) {
	t.Parallel()
	svc, mock := setup(t)
	rec := mock.Reply("POST", "ordering/v3/order", 201, `{"orderId":"3f2c1a8e-0000-4000-8000-000000000001","total":21.30,`+reqInfo+`}`)
	got, err := svc.CreateOrder(context.Background(), OrderRequest{LocationID: 5, Items: []OrderLine{
		{PLU: "BURGER", Quantity: 2, Options: []OrderLine{{PLU: "CHEESE", Quantity: 1}}},
		{PLU: "COLA", Quantity: 1},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got.OrderID != "3f2c1a8e-0000-4000-8000-000000000001" || got.Total != client.MustParseMoney("21.30") {
		t.Errorf("CreateOrder = %+v", got)
	}
	wantBody := decode(t, []byte(`{"locationId":5,"items":[
		{"plu":"BURGER","quantity":2,"options":[{"plu":"CHEESE","quantity":1,"options":[]}]},
		{"plu":"COLA","quantity":1,"options":[]}]}`))
	if diff := cmp.Diff(wantBody, rec.Requests()[0].JSON(t)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}

	// Invalid requests are not sent.
	_, err = svc.CreateOrder(context.Background(), OrderRequest{LocationID: 5, Items: []OrderLine{{PLU: "A", Quantity: 1}, {PLU: "B", Quantity: 1, Options: []OrderLine{{Quantity: 1}}}}})
	var ve *client.ValidationError
	if !errors.As(err, &ve) || ve.Fields["items[1].options[0].plu"] == "" {
		t.Errorf("CreateOrder(invalid) = %v", err)
	}
	if n := mock.Calls(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestCreateOrderServerValidation(t *testing.T) {
	t.Parallel()
	svc, mock := setup(t)
	mock.Handle("POST", "ordering/v3/order", httpmock.NewStringResponder(400,
		sdktest.ErrorBody(client.CodeValidation, `{"items[0].plu":"unknown plu"}`)))
	_, err := svc.CreateOrder(context.Background(), OrderRequest{LocationID: 5, Items: []OrderLine{{PLU: "NOPE", Quantity: 1}}})
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.FieldErrors()["items[0].plu"] != "unknown plu" {
		t.Fatalf("CreateOrder = %v", err)
	}
}

var orderJSON = `{"order":{"orderId":"o-1","locationId":5,
	"items":[{"plu":"BURGER","name":"Burger","quantity":2,"price":8.50,"options":[{"plu":"CHEESE","name":"Cheese","quantity":1,"price":1.00,"options":[]}]}],
	"total":19.00,"fulfillmentType":"collection-by-customer",
	"fulfillment":{"collectionTime":"2025-06-01T18:30:00+01:00","collectionNotes":"","name":"Ann","phone":"07700 900001","orderReference":"K-17","kitchenNotes":""},
	"status":"%s","posOrderId":%s,"createdAt":1748800000},` + reqInfo + `}`

func orderBody(status, posOrderID string) string {
	return sprintf(orderJSON, status, posOrderID)
}

func TestOrder(t *testing.T) {
	t.Parallel()
	svc, mock := setup(t)
	mock.Reply("GET", "ordering/v3/order/o-1", 200, orderBody("accepted_by_pos", `"POS-9"`))
	o, err := svc.Order(context.Background(), "o-1")
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != StatusAcceptedByPOS || o.POSOrderID == nil || *o.POSOrderID != "POS-9" ||
		o.Total != client.MustParseMoney("19.00") || o.LocationID != 5 || o.CreatedAt.Unix() != 1748800000 {
		t.Errorf("Order = %+v", o)
	}
	if len(o.Items) != 1 || o.Items[0].Options[0].Name != "Cheese" || o.Items[0].LineTotal() != o.Total {
		t.Errorf("items = %+v", o.Items)
	}
	m, err := o.Method()
	if err != nil {
		t.Fatal(err)
	}
	want := validCBC()
	if diff := cmp.Diff(&want, m, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("Method (-want +got):\n%s", diff)
	}
	if _, err := svc.Order(context.Background(), ""); err == nil {
		t.Error("empty id: no error")
	}
}

func TestWaitForStatus(t *testing.T) {
	t.Parallel()
	svc, mock := setup(t)
	statuses := []string{"fulfillment_set", "sent_to_pos", "sent_to_pos"}
	var mu sync.Mutex
	mock.Handle("GET", "ordering/v3/order/o-1", func(*http.Request) (*http.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(statuses) == 0 {
			return httpmock.NewStringResponse(200, orderBody("accepted_by_pos", `"POS-9"`)), nil
		}
		st := statuses[0]
		statuses = statuses[1:]
		return httpmock.NewStringResponse(200, orderBody(st, "null")), nil
	})
	o, err := svc.WaitForStatus(context.Background(), "o-1", Settled, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != StatusAcceptedByPOS || *o.POSOrderID != "POS-9" {
		t.Errorf("WaitForStatus = %+v", o)
	}
	if n := mock.Calls(); n != 4 {
		t.Errorf("%d polls, want 4", n)
	}
}

func TestWaitForStatusContext(t *testing.T) {
	t.Parallel()
	svc, mock := setup(t)
	mock.Handle("GET", "ordering/v3/order/o-1", httpmock.NewStringResponder(200, orderBody("sent_to_pos", "null")))
	ctx, cancel := context.WithCancel(context.Background())
	polls := 0
	o, err := svc.WaitForStatus(ctx, "o-1", func(o Order) bool {
		polls++
		if polls == 3 {
			cancel()
		}
		return false
	}, time.Millisecond)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if o.Status != StatusSentToPOS {
		t.Errorf("last order seen not returned: %+v", o)
	}
	// StatusIn and the default condition.
	if !StatusIn(StatusFailed, StatusSentToPOS)(o) || StatusIn(StatusFailed)(o) {
		t.Error("StatusIn wrong")
	}
}

func TestWaitForStatusError(t *testing.T) {
	t.Parallel()
	svc, mock := setup(t)
	mock.Handle("GET", "ordering/v3/order/o-1", sdktest.ErrorResponder(client.CodeNotFound))
	if _, err := svc.WaitForStatus(context.Background(), "o-1", nil, 0); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

func TestMenu(t *testing.T) {
	t.Parallel()
	svc, mock := setup(t)
	rec := mock.Reply("GET", "v2/location/5/menu", 200, `{"menus":[{"reference":"M","name":"Main","type":"ANY",
		"categories":[{"reference":"C","name":"Burgers","description":"","items":[{"plu":"BURGER","name":"Burger","description":"","price":8.50,"available":true,
		"modifiers":[{"reference":"G","name":"Extras","min":0,"max":2,"options":[{"plu":"CHEESE","name":"Cheese","price":1.00,"modifiers":[]}]}]}]}],
		"deals":[]}],"syncedAt":1748800000,"requestInfo":{"accessTokenStatus":"missing","serverTime":1748800001,"requestId":null,"apiVersion":2}}`)
	m, err := svc.Menu(context.Background(), 5)
	if err != nil {
		t.Fatal(err)
	}
	it, ok := m.Menus[0].FindItem("BURGER")
	if !ok || it.Price != client.MustParseMoney("8.50") || it.Modifiers[0].Options[0].PLU != "CHEESE" {
		t.Errorf("menu = %+v", m)
	}
	if m.SyncedAt.Unix() != 1748800000 || m.RequestInfo.APIVersion != 2 {
		t.Errorf("syncedAt/requestInfo = %v %+v", m.SyncedAt, m.RequestInfo)
	}
	// The menu needs no credential: the token must not be sent.
	if q := rec.Requests()[0].Query; len(q["accessToken"]) != 0 {
		t.Errorf("access token sent to the menu endpoint: %v", q)
	}

	mock.Handle("GET", "v2/location/6/menu", httpmock.NewStringResponder(200,
		`{"menus":[],"syncedAt":null,"requestInfo":{"accessTokenStatus":"missing","serverTime":1,"requestId":null,"apiVersion":2}}`))
	m, err = svc.Menu(context.Background(), 6)
	if err != nil || !m.SyncedAt.IsZero() || len(m.Menus) != 0 {
		t.Errorf("unsynced menu = %+v, %v", m, err)
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
