package fulfillment_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
)

var (
	e2eTime = time.Date(2030, 1, 2, 12, 30, 0, 0, time.FixedZone("", 3600))
	email   = "ann@example.com"
)

// methodsUnderTest are valid methods, two of them with their nullable
// members nil.
func methodsUnderTest() map[string]fulfillment.Method {
	return map[string]fulfillment.Method{
		"delivery-by-operator": fulfillment.DeliveryByOperator{
			DeliveryTime: e2eTime, DeliveryNotes: "ring twice", DeliveryCharge: money("3.99"),
			CustomerName: "Ann", CustomerPhone: "07700 900001", CustomerEmail: &email,
			AddressLineOne: "1 High St", City: "London", PostCode: "N1 1AA", KitchenNotes: "no nuts",
			Coordinates: &fulfillment.Coordinates{Latitude: 51.53, Longitude: -0.1},
		},
		"delivery-by-operator nulls": fulfillment.DeliveryByOperator{
			DeliveryTime: e2eTime, DeliveryCharge: money("0"), CustomerName: "Ann", CustomerPhone: "07700 900001",
			AddressLineOne: "1 High St", City: "London", PostCode: "N1 1AA",
		},
		"delivery-by-delivery-partner": fulfillment.DeliveryByDeliveryPartner{
			CollectionTime: e2eTime, Name: "Dan", Phone: "07700 900000", OrderReference: "PARTNER-1",
			Customer: &fulfillment.Customer{Name: "Ann", Phone: "07700 900001", Email: "ann@example.com",
				Address: fulfillment.Address{LineOne: "1 High St", City: "London", Postcode: "N1 1AA",
					Coordinates: fulfillment.Coordinates{Latitude: 51.53, Longitude: -0.1}}},
		},
		"delivery-by-delivery-partner null customer": fulfillment.DeliveryByDeliveryPartner{
			CollectionTime: e2eTime, Name: "Dan", Phone: "07700 900000", OrderReference: "PARTNER-2",
		},
		"collection-by-customer": fulfillment.CollectionByCustomer{
			CollectionTime: e2eTime, Name: "Ann", Phone: "07700 900001", OrderReference: "K-1",
		},
		"order-at-table": fulfillment.OrderAtTable{KitchenNotes: "allergic to sesame", TableNumber: 14},
	}
}

func TestSetEachMethodE2E(t *testing.T) {
	t.Parallel()
	e := startEnv(t, fastRetries)
	for name, m := range methodsUnderTest() {
		t.Run(name, func(t *testing.T) {
			created := e.order(t)
			if err := e.svc.Set(ctxT(t), created.OrderID, m); err != nil {
				t.Fatalf("Set: %v", err)
			}
			o := e.waitSettled(t, created.OrderID)
			if o.Status != fulfillment.StatusAcceptedByPOS || o.POSOrderID == nil {
				t.Fatalf("order = %+v", o)
			}
			if o.FulfillmentType != m.Type() {
				t.Errorf("fulfillmentType = %q, want %q", o.FulfillmentType, m.Type())
			}
			got, err := o.Method()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(m, derefMethod(got), cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
				cmp.Comparer(func(a, b client.Money) bool { return a == b })); diff != "" {
				t.Errorf("stored fulfillment (-want +got):\n%s", diff)
			}
			// Nil nullable members are stored and returned as null.
			want, _ := json.Marshal(m)
			var wantObj, gotObj any
			_ = json.Unmarshal(want, &wantObj)
			_ = json.Unmarshal(o.Fulfillment, &gotObj)
			if diff := cmp.Diff(wantObj, gotObj); diff != "" {
				t.Errorf("fulfillment JSON (-want +got):\n%s", diff)
			}

			// What the POS received: contract.md section 7.
			var sent *struct {
				FulfillmentType string
				Fulfillment     any
				PosLocationID   string
				Total           client.Money
				CreatedAt       int64
				OrderID         string
			}
			for _, po := range e.pos.createCalls() {
				if po.OrderID == created.OrderID {
					var f any
					_ = json.Unmarshal(po.Fulfillment, &f)
					sent = &struct {
						FulfillmentType string
						Fulfillment     any
						PosLocationID   string
						Total           client.Money
						CreatedAt       int64
						OrderID         string
					}{string(po.FulfillmentType), f, po.POSLocationID, po.Total, po.CreatedAt.Unix(), po.OrderID}
					if len(po.Items) != 1 || po.Items[0].Name != "Burger" || po.Items[0].Price != money("8.50") ||
						po.Items[0].Options[0].Name != "Rare" {
						t.Errorf("items sent to the POS: %+v", po.Items)
					}
				}
			}
			if sent == nil {
				t.Fatal("the POS never got the order")
			}
			if sent.FulfillmentType != string(m.Type()) || sent.PosLocationID != strconv.FormatInt(e.locationID, 10) ||
				sent.Total != money("8.50") || sent.CreatedAt != o.CreatedAt.Unix() {
				t.Errorf("order sent to the POS: %+v", sent)
			}
			if diff := cmp.Diff(wantObj, sent.Fulfillment); diff != "" {
				t.Errorf("fulfillment sent to the POS (-want +got):\n%s", diff)
			}
		})
	}
}

// derefMethod turns the *T that Order.Method returns into the T the test
// set.
func derefMethod(m fulfillment.Method) fulfillment.Method {
	switch v := m.(type) {
	case *fulfillment.DeliveryByOperator:
		return *v
	case *fulfillment.DeliveryByDeliveryPartner:
		return *v
	case *fulfillment.CollectionByCustomer:
		return *v
	case *fulfillment.OrderAtTable:
		return *v
	}
	return m
}

func TestSetTwiceE2E(t *testing.T) {
	t.Parallel()
	e := startEnv(t, fastRetries)
	// The same fulfillment again is 202, another method 409001: the
	// contract's checks. Below, the finer points of "the same".
	e.CheckContract(t, "fulfillment/same-again", "fulfillment/already-set")
	created := e.order(t)
	first := fulfillment.CollectionByCustomer{CollectionTime: e2eTime, Name: "Ann", Phone: "1", OrderReference: "K-2"}
	if err := e.svc.Set(ctxT(t), created.OrderID, first); err != nil {
		t.Fatal(err)
	}
	// The same again, even with a different key order and spacing: 202.
	raw := `{ "orderReference": "K-2", "phone": "1", "name": "Ann", "kitchenNotes": "",
		"collectionNotes": "", "collectionTime": "2030-01-02T12:30:00+01:00", "extra": 1 }`
	if st, body := e.rawJSON(t, http.MethodPost, "ordering/v3/order/"+created.OrderID+"/fulfillment-type/collection-by-customer", json.RawMessage(raw)); st != http.StatusAccepted || len(body) != 0 {
		t.Errorf("same fulfillment again: %d %v, want 202 {}", st, body)
	}
	if err := e.svc.Set(ctxT(t), created.OrderID, first); err != nil {
		t.Errorf("same fulfillment again: %v", err)
	}
	changed := first
	changed.Name = "Bob"
	if err := e.svc.Set(ctxT(t), created.OrderID, changed); !errors.Is(err, client.ErrFulfillmentAlreadySet) {
		t.Errorf("same method, other fields: %v, want 409001", err)
	}
	o := e.waitSettled(t, created.OrderID)
	if o.Status != fulfillment.StatusAcceptedByPOS {
		t.Errorf("status %q", o.Status)
	}
	if n := len(e.pos.createCalls()); n != 1 {
		t.Errorf("POS CreateOrder called %d times, want 1", n)
	}
	// Setting it again once the order has reached the POS is still 202.
	if err := e.svc.Set(ctxT(t), created.OrderID, first); err != nil {
		t.Errorf("same fulfillment after delivery: %v", err)
	}
}

func TestSetNotFoundE2E(t *testing.T) {
	t.Parallel()
	e := startEnv(t)
	created := e.order(t)
	_, otherToken := e.NewUser(t)
	other := fulfillment.NewService(e.Client(t, client.WithAccessToken(otherToken)))
	m := fulfillment.OrderAtTable{TableNumber: 1}
	if err := other.Set(ctxT(t), created.OrderID, m); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("another user's order: %v, want 404001", err)
	}
	if err := e.svc.Set(ctxT(t), "00000000-0000-4000-8000-000000000000", m); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("unknown order: %v, want 404001", err)
	}
	st, body := e.rawJSON(t, http.MethodPost, "ordering/v3/order/"+created.OrderID+"/fulfillment-type/drone-drop", m)
	if st != http.StatusNotFound || body["code"] != float64(404001) {
		t.Errorf("unknown method: %d %v, want 404001", st, body)
	}
	// Nothing was set by any of these.
	if o, err := e.svc.Order(ctxT(t), created.OrderID); err != nil || o.Status != fulfillment.StatusCreated {
		t.Errorf("order after refused sets: %+v, %v", o, err)
	}
}

func contextPaths(body map[string]any) []string {
	cd, _ := body["contextData"].(map[string]any)
	var out []string
	for p := range cd {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func TestSetValidationE2E(t *testing.T) {
	t.Parallel()
	e := startEnv(t)
	orderID := e.order(t).OrderID
	post := func(t *testing.T, method string, body any) (int, map[string]any) {
		return e.rawJSON(t, http.MethodPost, "ordering/v3/order/"+orderID+"/fulfillment-type/"+method, body)
	}

	// The server reports the same paths as the SDK's Validate for the same
	// bad values (the body sent as the SDK would, bypassing Validate).
	t.Run("same paths as Validate", func(t *testing.T) {
		bad := "nope"
		for _, m := range []fulfillment.Method{
			fulfillment.DeliveryByOperator{},
			fulfillment.DeliveryByOperator{DeliveryTime: time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC), DeliveryCharge: money("-1"),
				CustomerEmail: &bad, Coordinates: &fulfillment.Coordinates{Latitude: 100, Longitude: -200}},
			fulfillment.DeliveryByDeliveryPartner{},
			fulfillment.DeliveryByDeliveryPartner{Customer: &fulfillment.Customer{}},
			fulfillment.CollectionByCustomer{Name: " "},
			fulfillment.OrderAtTable{},
			fulfillment.OrderAtTable{TableNumber: -1},
		} {
			var ve *client.ValidationError
			if !errors.As(m.Validate(), &ve) {
				t.Fatalf("%#v: Validate found nothing", m)
			}
			st, body := post(t, string(m.Type()), m)
			if st != http.StatusBadRequest || body["code"] != float64(400002) {
				t.Fatalf("%s: %d %v, want 400002", m.Type(), st, body)
			}
			if diff := cmp.Diff(ve.Paths(), contextPaths(body)); diff != "" {
				t.Errorf("%s %+v: paths (-Validate +server):\n%s", m.Type(), m, diff)
			}
		}
	})

	tests := []struct {
		name, method string
		body         string
		code         float64
		paths        []string
	}{
		{"empty operator body", "delivery-by-operator", `{}`, 400002, []string{"addressLineOne", "addressLineTwo", "city",
			"customerName", "customerPhone", "deliveryCharge", "deliveryNotes", "deliveryTime", "kitchenNotes", "postCode"}},
		{"empty partner body", "delivery-by-delivery-partner", `{}`, 400002, []string{"collectionNotes", "collectionTime",
			"kitchenNotes", "name", "orderReference", "phone"}},
		{"empty collection body", "collection-by-customer", `{}`, 400002, []string{"collectionNotes", "collectionTime",
			"kitchenNotes", "name", "orderReference", "phone"}},
		{"empty table body", "order-at-table", `{}`, 400002, []string{"kitchenNotes", "tableNumber"}},
		{"nulls in non-nullable fields", "order-at-table", `{"kitchenNotes": null, "tableNumber": null}`, 400002, []string{"kitchenNotes", "tableNumber"}},
		{"missing nested members", "delivery-by-operator", `{"deliveryTime":"2030-01-02T12:30:00Z","deliveryNotes":"","deliveryCharge":1,
			"customerName":"A","customerPhone":"1","customerEmail":null,"addressLineOne":"x","addressLineTwo":"","city":"c","postCode":"p",
			"kitchenNotes":"","coordinates":{"latitude":1}}`, 400002, []string{"coordinates.longitude"}},
		{"customer without address", "delivery-by-delivery-partner", `{"collectionTime":"2030-01-02T12:30:00Z","collectionNotes":"",
			"name":"D","phone":"1","orderReference":"R","kitchenNotes":"","customer":{"name":"A","phone":"1","email":"a@b"}}`,
			400002, []string{"customer.address"}},
		{"customer address without coordinates", "delivery-by-delivery-partner", `{"collectionTime":"2030-01-02T12:30:00Z","collectionNotes":"",
			"name":"D","phone":"1","orderReference":"R","kitchenNotes":"","customer":{"name":"A","phone":"1","email":"a@b",
			"address":{"lineOne":"1","lineTwo":"","city":"c","postcode":"p"}}}`, 400002, []string{"customer.address.coordinates"}},
		{"time without offset", "collection-by-customer", `{"collectionTime":"2030-01-02T12:30:00","collectionNotes":"",
			"name":"A","phone":"1","orderReference":"R","kitchenNotes":""}`, 400002, []string{"collectionTime"}},
		{"time not a time", "collection-by-customer", `{"collectionTime":"tomorrow at noon","collectionNotes":"",
			"name":"A","phone":"1","orderReference":"R","kitchenNotes":""}`, 400002, []string{"collectionTime"}},
		{"fractional table number", "order-at-table", `{"kitchenNotes":"","tableNumber":2.5}`, 400002, []string{"tableNumber"}},
		{"huge table number", "order-at-table", `{"kitchenNotes":"","tableNumber":1e12}`, 400002, []string{"tableNumber"}},
		{"charge with three decimals", "delivery-by-operator", `{"deliveryTime":"2030-01-02T12:30:00Z","deliveryNotes":"","deliveryCharge":1.005,
			"customerName":"A","customerPhone":"1","customerEmail":null,"addressLineOne":"x","addressLineTwo":"","city":"c","postCode":"p",
			"kitchenNotes":"","coordinates":null}`, 400002, []string{"deliveryCharge"}},
		{"table number as a string", "order-at-table", `{"kitchenNotes":"","tableNumber":"2"}`, 400001, nil},
		{"latitude as a string", "delivery-by-operator", `{"deliveryTime":"2030-01-02T12:30:00Z","deliveryNotes":"","deliveryCharge":1,
			"customerName":"A","customerPhone":"1","customerEmail":null,"addressLineOne":"x","addressLineTwo":"","city":"c","postCode":"p",
			"kitchenNotes":"","coordinates":{"latitude":"51.5","longitude":0}}`, 400001, nil},
		{"time as a number", "collection-by-customer", `{"collectionTime":1767000000,"collectionNotes":"",
			"name":"A","phone":"1","orderReference":"R","kitchenNotes":""}`, 400001, nil},
		{"not an object", "order-at-table", `[1]`, 400001, nil},
		{"not JSON", "order-at-table", `{"kitchenNotes":`, 400001, nil},
		{"empty body", "order-at-table", ``, 400001, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, body := e.rawPost(t, "ordering/v3/order/"+orderID+"/fulfillment-type/"+tt.method, tt.body)
			if st != int(tt.code/1000) || body["code"] != tt.code {
				t.Fatalf("%d %v, want %v", st, body, tt.code)
			}
			if tt.code == 400002 {
				if diff := cmp.Diff(tt.paths, contextPaths(body)); diff != "" {
					t.Errorf("paths (-want +got):\n%s\n%v", diff, body["contextData"])
				}
			}
		})
	}
	if o, err := e.svc.Order(ctxT(t), orderID); err != nil || o.Status != fulfillment.StatusCreated {
		t.Errorf("order after refused sets: %+v, %v", o, err)
	}
}
