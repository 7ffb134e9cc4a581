package fulfillment

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hospo-dev/hospo-go/client"
)

var (
	testTime = time.Date(2025, 6, 1, 18, 30, 0, 0, time.FixedZone("", 3600))
	testMail = "ann@example.com"
)

func validDBO() DeliveryByOperator {
	return DeliveryByOperator{
		DeliveryTime:   testTime,
		DeliveryNotes:  "ring twice",
		DeliveryCharge: client.MustParseMoney("2.50"),
		CustomerName:   "Ann",
		CustomerPhone:  "+44 20 7946 0000",
		CustomerEmail:  &testMail,
		AddressLineOne: "1 High St",
		AddressLineTwo: "",
		City:           "London",
		PostCode:       "N1 1AA",
		KitchenNotes:   "no nuts",
		Coordinates:    &Coordinates{Latitude: 51.5, Longitude: -0.12},
	}
}

func validDBDP() DeliveryByDeliveryPartner {
	return DeliveryByDeliveryPartner{
		CollectionTime:  testTime,
		CollectionNotes: "",
		Name:            "Driver Dan",
		Phone:           "07700 900000",
		OrderReference:  "PARTNER-42",
		KitchenNotes:    "",
		Customer: &Customer{
			Name:  "Ann",
			Phone: "07700 900001",
			Email: "ann@example.com",
			Address: Address{
				LineOne:     "1 High St",
				City:        "London",
				Postcode:    "N1 1AA",
				Coordinates: Coordinates{Latitude: 51.5, Longitude: -0.12},
			},
		},
	}
}

func validCBC() CollectionByCustomer {
	return CollectionByCustomer{
		CollectionTime: testTime,
		Name:           "Ann",
		Phone:          "07700 900001",
		OrderReference: "K-17",
	}
}

// decode turns JSON into generic values so tests compare shapes, not bytes.
func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return v
}

func TestMethodJSON(t *testing.T) {
	t.Parallel()
	dboNil := validDBO()
	dboNil.CustomerEmail, dboNil.Coordinates = nil, nil
	dbdpNil := validDBDP()
	dbdpNil.Customer = nil
	utc := validCBC()
	utc.CollectionTime = time.Date(2025, 6, 1, 17, 30, 0, 500_000_000, time.UTC)

	tests := []struct {
		name string
		m    Method
		want string
	}{
		{"delivery-by-operator", validDBO(), `{
			"deliveryTime": "2025-06-01T18:30:00+01:00", "deliveryNotes": "ring twice", "deliveryCharge": 2.50,
			"customerName": "Ann", "customerPhone": "+44 20 7946 0000", "customerEmail": "ann@example.com",
			"addressLineOne": "1 High St", "addressLineTwo": "", "city": "London", "postCode": "N1 1AA",
			"kitchenNotes": "no nuts", "coordinates": {"latitude": 51.5, "longitude": -0.12}}`},
		{"delivery-by-operator nulls", dboNil, `{
			"deliveryTime": "2025-06-01T18:30:00+01:00", "deliveryNotes": "ring twice", "deliveryCharge": 2.5,
			"customerName": "Ann", "customerPhone": "+44 20 7946 0000", "customerEmail": null,
			"addressLineOne": "1 High St", "addressLineTwo": "", "city": "London", "postCode": "N1 1AA",
			"kitchenNotes": "no nuts", "coordinates": null}`},
		{"delivery-by-delivery-partner", validDBDP(), `{
			"collectionTime": "2025-06-01T18:30:00+01:00", "collectionNotes": "", "name": "Driver Dan",
			"phone": "07700 900000", "orderReference": "PARTNER-42", "kitchenNotes": "",
			"customer": {"name": "Ann", "phone": "07700 900001", "email": "ann@example.com",
				"address": {"lineOne": "1 High St", "lineTwo": "", "city": "London", "postcode": "N1 1AA",
					"coordinates": {"latitude": 51.5, "longitude": -0.12}}}}`},
		{"delivery-by-delivery-partner null customer", dbdpNil, `{
			"collectionTime": "2025-06-01T18:30:00+01:00", "collectionNotes": "", "name": "Driver Dan",
			"phone": "07700 900000", "orderReference": "PARTNER-42", "kitchenNotes": "", "customer": null}`},
		{"collection-by-customer UTC fraction", utc, `{
			"collectionTime": "2025-06-01T17:30:00.5Z", "collectionNotes": "", "name": "Ann",
			"phone": "07700 900001", "orderReference": "K-17", "kitchenNotes": ""}`},
		{"order-at-table", OrderAtTable{KitchenNotes: "window", TableNumber: 12}, `{"kitchenNotes": "window", "tableNumber": 12}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decode(t, []byte(tt.want)), decode(t, b)); diff != "" {
				t.Errorf("JSON mismatch (-want +got):\n%s", diff)
			}
			// The money must go out exactly, never through float64.
			if strings.Contains(tt.name, "operator") && !strings.Contains(string(b), `"deliveryCharge":2.50`) {
				t.Errorf("deliveryCharge not written exactly: %s", b)
			}
			// And it must come back as the same value.
			back, err := DecodeMethod(tt.m.Type(), b)
			if err != nil {
				t.Fatal(err)
			}
			b2, _ := json.Marshal(back)
			if string(b2) != string(b) {
				t.Errorf("round trip changed the JSON:\n got %s\nwant %s", b2, b)
			}
		})
	}
}

func TestValidatePaths(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", MaxTextLength+1)
	bad := "not-an-email"
	tests := []struct {
		name string
		m    Method
		want []string
	}{
		{"delivery-by-operator ok", validDBO(), nil},
		{"delivery-by-operator zero", DeliveryByOperator{}, []string{
			"addressLineOne", "city", "customerName", "customerPhone", "deliveryTime", "postCode"}},
		{"delivery-by-operator bad values", func() Method {
			m := validDBO()
			m.DeliveryTime = time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC)
			m.DeliveryCharge = client.MustParseMoney("-0.01")
			m.CustomerEmail = &bad
			m.Coordinates = &Coordinates{Latitude: 91, Longitude: math.NaN()}
			m.City = long
			m.DeliveryNotes = strings.Repeat("n", MaxNotesLength+1)
			return m
		}(), []string{"city", "coordinates.latitude", "coordinates.longitude", "customerEmail",
			"deliveryCharge", "deliveryNotes", "deliveryTime"}},
		{"delivery-by-operator charge at the bound", func() Method {
			m := validDBO()
			m.DeliveryCharge = client.MustParseMoney("1000000")
			return m
		}(), nil},
		{"delivery-by-operator absurd charge", func() Method {
			m := validDBO()
			m.DeliveryCharge = client.MustParseMoney("92233720368547758.07")
			return m
		}(), []string{"deliveryCharge"}},
		{"delivery-by-delivery-partner ok", validDBDP(), nil},
		{"delivery-by-delivery-partner nil customer ok", func() Method { m := validDBDP(); m.Customer = nil; return m }(), nil},
		{"delivery-by-delivery-partner zero", DeliveryByDeliveryPartner{}, []string{
			"collectionTime", "name", "orderReference", "phone"}},
		{"delivery-by-delivery-partner empty customer", DeliveryByDeliveryPartner{Customer: &Customer{}}, []string{
			"collectionTime", "customer.address.city", "customer.address.lineOne", "customer.address.postcode",
			"customer.email", "customer.name", "customer.phone", "name", "orderReference", "phone"}},
		{"delivery-by-delivery-partner bad coordinates", func() Method {
			m := validDBDP()
			m.Customer.Address.Coordinates = Coordinates{Latitude: -90.5, Longitude: 180.5}
			m.Customer.Email = "@x"
			return m
		}(), []string{"customer.address.coordinates.latitude", "customer.address.coordinates.longitude", "customer.email"}},
		{"collection-by-customer ok", validCBC(), nil},
		{"collection-by-customer zero", CollectionByCustomer{}, []string{"collectionTime", "name", "orderReference", "phone"}},
		{"collection-by-customer blank name", func() Method { m := validCBC(); m.Name = "  "; return m }(), []string{"name"}},
		{"order-at-table ok", OrderAtTable{TableNumber: 1}, nil},
		{"order-at-table zero", OrderAtTable{}, []string{"tableNumber"}},
		{"order-at-table negative", OrderAtTable{TableNumber: -3, KitchenNotes: "\xff"}, []string{"kitchenNotes", "tableNumber"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.m.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var ve *client.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate() = %v, want *client.ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, ve.Paths()); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if !errors.Is(err, client.ErrValidation) {
				t.Error("errors.Is(err, client.ErrValidation) = false")
			}
			for _, p := range tt.want {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("message %q does not name %s", err.Error(), p)
				}
			}
		})
	}
}

func TestTypeJSON(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		typ  Type
		json string
	}{{"", "null"}, {TypeOrderAtTable, `"order-at-table"`}, {"drone-drop", `"drone-drop"`}} {
		b, err := json.Marshal(tt.typ)
		if err != nil || string(b) != tt.json {
			t.Errorf("Marshal(%q) = %s, %v; want %s", tt.typ, b, err, tt.json)
		}
		var back Type = "junk"
		if err := json.Unmarshal(b, &back); err != nil || back != tt.typ {
			t.Errorf("Unmarshal(%s) = %q, %v", b, back, err)
		}
	}
	if Type("drone-drop").Known() || !TypeCollectionByCustomer.Known() {
		t.Error("Known wrong")
	}
	if Type("").String() != "none" {
		t.Error(`Type("").String() != "none"`)
	}
	for _, typ := range Types() {
		m := NewMethod(typ)
		if m == nil || m.Type() != typ {
			t.Errorf("NewMethod(%s) = %#v", typ, m)
		}
	}
	if NewMethod("drone-drop") != nil {
		t.Error("NewMethod of an unknown type is not nil")
	}
	if _, err := DecodeMethod("drone-drop", []byte(`{}`)); err == nil {
		t.Error("DecodeMethod of an unknown type: no error")
	}
}

func TestOrderRequestValidate(t *testing.T) {
	t.Parallel()
	ok := OrderRequest{LocationID: 1, Items: []OrderLine{{PLU: "B1", Quantity: 2, Options: []OrderLine{{PLU: "CHEESE", Quantity: 1}}}}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid order: %v", err)
	}
	bad := OrderRequest{Items: []OrderLine{
		{PLU: "B1", Quantity: 1},
		{PLU: "B2", Quantity: MaxQuantity + 1, Options: []OrderLine{{Quantity: 1}, {PLU: "X", Quantity: 0}}},
	}}
	var ve *client.ValidationError
	if !errors.As(bad.Validate(), &ve) {
		t.Fatal("no ValidationError")
	}
	want := []string{"items[1].options[0].plu", "items[1].options[1].quantity", "items[1].quantity", "locationId"}
	if diff := cmp.Diff(want, ve.Paths()); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if !errors.As(OrderRequest{LocationID: 1}.Validate(), &ve) || ve.Fields["items"] == "" {
		t.Errorf("empty items not reported: %v", ve)
	}
	deep := OrderLine{PLU: "L", Quantity: 1}
	for range MaxOptionDepth + 1 {
		deep = OrderLine{PLU: "L", Quantity: 1, Options: []OrderLine{deep}}
	}
	if err := (OrderRequest{LocationID: 1, Items: []OrderLine{deep}}).Validate(); err == nil {
		t.Error("options nested too deeply: no error")
	}
}

func TestOrderLineJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(OrderRequest{LocationID: 7, Items: []OrderLine{{PLU: "B1", Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"locationId":7,"items":[{"plu":"B1","quantity":1,"options":[]}]}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

func TestOrderMethod(t *testing.T) {
	t.Parallel()
	var o Order
	if err := json.Unmarshal([]byte(`{"orderId":"x","fulfillmentType":null,"fulfillment":null,"status":"created","posOrderId":null}`), &o); err != nil {
		t.Fatal(err)
	}
	if m, err := o.Method(); m != nil || err != nil {
		t.Errorf("Method() of an order without fulfillment = %v, %v", m, err)
	}
	if o.FulfillmentType != "" || o.POSOrderID != nil {
		t.Errorf("nulls decoded as %q, %v", o.FulfillmentType, o.POSOrderID)
	}
	if err := json.Unmarshal([]byte(`{"orderId":"x","fulfillmentType":"order-at-table","fulfillment":{"kitchenNotes":"","tableNumber":4},"status":"brand_new","posOrderId":"P1"}`), &o); err != nil {
		t.Fatal(err)
	}
	m, err := o.Method()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&OrderAtTable{TableNumber: 4}, m); diff != "" {
		t.Errorf("Method() (-want +got):\n%s", diff)
	}
	if o.Status != "brand_new" || o.Status.Final() {
		t.Errorf("unknown status not kept: %q", o.Status)
	}
}
