package rules

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

func TestDecodeFulfillment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		typ  fulfillment.Type
		body string
		code client.Code // 0: accepted
		want []string    // 400002 paths
	}{
		{"table ok", fulfillment.TypeOrderAtTable, `{"kitchenNotes":"","tableNumber":3}`, 0, nil},
		{"table ok unknown field", fulfillment.TypeOrderAtTable, `{"kitchenNotes":"","tableNumber":3,"x":[1]}`, 0, nil},
		{"table zero", fulfillment.TypeOrderAtTable, `{"kitchenNotes":"","tableNumber":0}`, client.CodeValidation, []string{"tableNumber"}},
		{"table 3.5", fulfillment.TypeOrderAtTable, `{"kitchenNotes":"","tableNumber":3.5}`, client.CodeValidation, []string{"tableNumber"}},
		{"table 3.0 is whole", fulfillment.TypeOrderAtTable, `{"kitchenNotes":"","tableNumber":3.0}`, 0, nil},
		{"table 1e2", fulfillment.TypeOrderAtTable, `{"kitchenNotes":"","tableNumber":1e2}`, 0, nil},
		{"table big", fulfillment.TypeOrderAtTable, `{"kitchenNotes":"","tableNumber":99999999999999999999999}`, client.CodeValidation, []string{"tableNumber"}},
		{"table bool", fulfillment.TypeOrderAtTable, `{"kitchenNotes":"","tableNumber":true}`, client.CodeMalformedJSON, nil},
		{"notes number", fulfillment.TypeOrderAtTable, `{"kitchenNotes":5,"tableNumber":1}`, client.CodeMalformedJSON, nil},
		{"trailing data", fulfillment.TypeOrderAtTable, `{"kitchenNotes":"","tableNumber":1}]`, client.CodeMalformedJSON, nil},
		{"empty", fulfillment.TypeOrderAtTable, ``, client.CodeMalformedJSON, nil},
		{"customer a string", fulfillment.TypeDeliveryByDeliveryPartner, `{"customer":"Ann"}`, client.CodeMalformedJSON, nil},
		{"partner bad values", fulfillment.TypeDeliveryByDeliveryPartner, `{"collectionTime":"2030-01-01T10:00:00+02:00","collectionNotes":"",
			"name":"","phone":"1","orderReference":"R","kitchenNotes":"","customer":{"name":"A","phone":"1","email":"x",
			"address":{"lineOne":"1","lineTwo":"","city":"c","postcode":"","coordinates":{"latitude":1e400,"longitude":0}}}}`,
			client.CodeValidation, []string{"customer.address.coordinates.latitude", "customer.address.postcode", "customer.email", "name"}},
		{"operator money", fulfillment.TypeDeliveryByOperator, `{"deliveryTime":"2030-01-01T10:00:00Z","deliveryNotes":"","deliveryCharge":0.001,
			"customerName":"A","customerPhone":"1","customerEmail":null,"addressLineOne":"x","addressLineTwo":"","city":"c","postCode":"p",
			"kitchenNotes":"","coordinates":null}`, client.CodeValidation, []string{"deliveryCharge"}},
		{"operator absurd charge", fulfillment.TypeDeliveryByOperator, `{"deliveryTime":"2030-01-01T10:00:00Z","deliveryNotes":"","deliveryCharge":92233720368547758.07,
			"customerName":"A","customerPhone":"1","customerEmail":null,"addressLineOne":"x","addressLineTwo":"","city":"c","postCode":"p",
			"kitchenNotes":"","coordinates":null}`, client.CodeValidation, []string{"deliveryCharge"}},
		{"operator bad time and missing", fulfillment.TypeDeliveryByOperator, `{"deliveryTime":"2030-13-01T10:00:00Z","deliveryNotes":"","deliveryCharge":1,
			"customerPhone":"1","addressLineOne":"x","addressLineTwo":"","city":"c","postCode":"p","kitchenNotes":""}`,
			client.CodeValidation, []string{"customerName", "deliveryTime"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := DecodeFulfillment(tt.typ, []byte(tt.body))
			if tt.code == 0 {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if m.Type() != tt.typ {
					t.Errorf("type %s", m.Type())
				}
				return
			}
			var ae *api.Error
			if !errors.As(err, &ae) || ae.Code != tt.code {
				t.Fatalf("err = %v, want code %d", err, tt.code)
			}
			if tt.code == client.CodeValidation {
				fields, _ := ae.ContextData.(map[string]string)
				if diff := cmp.Diff(tt.want, sortedKeysOf(fields)); diff != "" {
					t.Errorf("paths (-want +got):\n%s\n%v", diff, fields)
				}
			}
		})
	}
}

func TestCanonicalFulfillment(t *testing.T) {
	t.Parallel()
	a, err := DecodeFulfillment(fulfillment.TypeOrderAtTable, []byte(`{"tableNumber":3,"kitchenNotes":"hot"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := DecodeFulfillment(fulfillment.TypeOrderAtTable, []byte(`{ "kitchenNotes" : "hot", "tableNumber" : 3, "junk": null }`))
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := canonicalFulfillment(a)
	cb, _ := canonicalFulfillment(b)
	if ca != cb || ca != `{"kitchenNotes":"hot","tableNumber":3}` {
		t.Errorf("canonical forms %s and %s", ca, cb)
	}
}

// FuzzDecodeFulfillment checks that no body makes the parser panic, and
// that an accepted body's canonical form is accepted again unchanged.
func FuzzDecodeFulfillment(f *testing.F) {
	for _, s := range []string{
		`{"kitchenNotes":"","tableNumber":3}`,
		`{"collectionTime":"2030-01-01T10:00:00Z","collectionNotes":"","name":"A","phone":"1","orderReference":"R","kitchenNotes":""}`,
		`{"customer":{"address":{"coordinates":{"latitude":"x"}}}}`,
		`{"deliveryCharge":1.005,"coordinates":{"latitude":1e999}}`,
		`[]`, `null`, `{"tableNumber":-0.0}`,
	} {
		for i := range fulfillment.Types() {
			f.Add(i, s)
		}
	}
	f.Fuzz(func(t *testing.T, i int, body string) {
		types := fulfillment.Types()
		typ := types[(i%len(types)+len(types))%len(types)]
		m, err := DecodeFulfillment(typ, []byte(body))
		if err != nil {
			var ae *api.Error
			if !errors.As(err, &ae) {
				t.Fatalf("non-API error %v", err)
			}
			return
		}
		c1, err := canonicalFulfillment(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := DecodeFulfillment(typ, []byte(c1))
		if err != nil {
			t.Fatalf("canonical form %s refused: %v", c1, err)
		}
		if c2, _ := canonicalFulfillment(m2); c2 != c1 {
			t.Fatalf("canonical form not stable: %s then %s", c1, c2)
		}
	})
}

// The fields read from the SDK's types are those of interface.md 4.13 to
// 4.15, with their kinds and the nullable ones.
func TestFulfillmentSpecs(t *testing.T) {
	t.Parallel()
	collection := []ffField{{path: "collectionTime", kind: ffTime}, {path: "collectionNotes"}, {path: "name"},
		{path: "phone"}, {path: "orderReference"}, {path: "kitchenNotes"}}
	want := map[fulfillment.Type][]ffField{
		fulfillment.TypeDeliveryByOperator: {
			{path: "deliveryTime", kind: ffTime}, {path: "deliveryNotes"}, {path: "deliveryCharge", kind: ffMoney},
			{path: "customerName"}, {path: "customerPhone"}, {path: "customerEmail", nullable: true},
			{path: "addressLineOne"}, {path: "addressLineTwo"}, {path: "city"}, {path: "postCode"}, {path: "kitchenNotes"},
			{path: "coordinates", kind: ffObject, nullable: true},
			{path: "coordinates.latitude", kind: ffNumber}, {path: "coordinates.longitude", kind: ffNumber},
		},
		fulfillment.TypeDeliveryByDeliveryPartner: append(collection[:len(collection):len(collection)],
			ffField{path: "customer", kind: ffObject, nullable: true},
			ffField{path: "customer.name"}, ffField{path: "customer.phone"}, ffField{path: "customer.email"},
			ffField{path: "customer.address", kind: ffObject},
			ffField{path: "customer.address.lineOne"}, ffField{path: "customer.address.lineTwo"},
			ffField{path: "customer.address.city"}, ffField{path: "customer.address.postcode"},
			ffField{path: "customer.address.coordinates", kind: ffObject},
			ffField{path: "customer.address.coordinates.latitude", kind: ffNumber},
			ffField{path: "customer.address.coordinates.longitude", kind: ffNumber},
		),
		fulfillment.TypeCollectionByCustomer: collection,
		fulfillment.TypeOrderAtTable:         {{path: "kitchenNotes"}, {path: "tableNumber", kind: ffInteger}},
	}
	if d := cmp.Diff(want, fulfillmentSpecs, cmp.AllowUnexported(ffField{})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
