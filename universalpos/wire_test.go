package universalpos_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// The JSON names are the contract's; these tests pin them.

func TestMenuWireFormat(t *testing.T) {
	t.Parallel()
	m := universalpos.Menu{
		Reference: "r", Name: "n", Type: universalpos.MenuTypeEatIn,
		Categories: []universalpos.Category{{Reference: "c", Name: "C", Description: "d", Items: []universalpos.Item{{
			PLU: "I", Name: "Item", Description: "x", Price: client.MustParseMoney("1.5"), Available: true,
			Modifiers: []universalpos.ModifierGroup{{Reference: "g", Name: "G", Min: 0, Max: 2, Options: []universalpos.Option{
				{PLU: "O", Name: "Opt", Price: client.MustParseMoney("0.10")},
			}}},
		}}}},
		Deals: []universalpos.Deal{{PLU: "D", Name: "Deal", Price: client.MustParseMoney("5"), Groups: []universalpos.DealGroup{
			{Name: "Pick", Min: 1, Max: 1, Items: []string{"I"}},
		}}},
	}
	got, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"reference":"r","name":"n","type":"EAT_IN",` +
		`"categories":[{"reference":"c","name":"C","description":"d","items":[{"plu":"I","name":"Item","description":"x","price":1.50,"available":true,` +
		`"modifiers":[{"reference":"g","name":"G","min":0,"max":2,"options":[{"plu":"O","name":"Opt","price":0.10,"modifiers":[]}]}]}]}],` +
		`"deals":[{"plu":"D","name":"Deal","price":5.00,"groups":[{"name":"Pick","min":1,"max":1,"items":["I"]}]}]}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNilSlicesAreEmptyArrays(t *testing.T) {
	t.Parallel()
	got, _ := json.Marshal([]any{universalpos.Menu{}, universalpos.Category{}, universalpos.Item{},
		universalpos.ModifierGroup{}, universalpos.Deal{}, universalpos.DealGroup{}, universalpos.OrderItem{}})
	want := `[{"reference":"","name":"","type":"","categories":[],"deals":[]},` +
		`{"reference":"","name":"","description":"","items":[]},` +
		`{"plu":"","name":"","description":"","price":0.00,"available":false,"modifiers":[]},` +
		`{"reference":"","name":"","min":0,"max":0,"options":[]},` +
		`{"plu":"","name":"","price":0.00,"groups":[]},` +
		`{"name":"","min":0,"max":0,"items":[]},` +
		`{"plu":"","name":"","quantity":0,"price":0.00,"options":[]}]`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestOrderWireFormat(t *testing.T) {
	t.Parallel()
	o := universalpos.Order{
		OrderID: "id", POSLocationID: "12", FulfillmentType: universalpos.FulfillmentCollectionByCustomer,
		Fulfillment: json.RawMessage(`{"name":"Ada"}`),
		Items: []universalpos.OrderItem{{PLU: "I", Name: "Item", Quantity: 2, Price: client.MustParseMoney("1.25"),
			Options: []universalpos.OrderOption{{PLU: "O", Name: "Opt", Quantity: 1, Price: client.MustParseMoney("0.5")}}}},
		Total:     client.MustParseMoney("3.50"),
		CreatedAt: client.UnixTime{Time: time.Unix(1767225600, 0)},
	}
	got, _ := json.Marshal(o)
	want := `{"orderId":"id","posLocationId":"12","fulfillmentType":"collection-by-customer","fulfillment":{"name":"Ada"},` +
		`"items":[{"plu":"I","name":"Item","quantity":2,"price":1.25,"options":[{"plu":"O","name":"Opt","quantity":1,"price":0.50,"options":[]}]}],` +
		`"total":3.50,"createdAt":1767225600}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if o.ComputeTotal().String() != "3.50" {
		t.Errorf("ComputeTotal = %s, want 3.50", o.ComputeTotal())
	}
}

func TestHealthWireFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		h    universalpos.HealthStatus
		want string
	}{
		{universalpos.HealthStatus{Status: universalpos.HealthOK}, `{"status":"OK"}`},
		{universalpos.HealthStatus{Status: universalpos.HealthFailed, Message: "m"}, `{"status":"FAILED","message":"m"}`},
	} {
		if got, _ := json.Marshal(tc.h); string(got) != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

func TestUnknownEnumsDecode(t *testing.T) {
	t.Parallel()
	var m universalpos.Menu
	if err := json.Unmarshal([]byte(`{"type":"TAKEAWAY"}`), &m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "TAKEAWAY" || m.Type.Known() || !universalpos.MenuTypeAny.Known() {
		t.Errorf("type %q known=%v", m.Type, m.Type.Known())
	}
	var o universalpos.Order
	if err := json.Unmarshal([]byte(`{"fulfillmentType":"drone"}`), &o); err != nil {
		t.Fatal(err)
	}
	if o.FulfillmentType.Known() || o.FulfillmentType.String() != "drone" || !universalpos.FulfillmentOrderAtTable.Known() {
		t.Errorf("fulfillmentType %q", o.FulfillmentType)
	}
}

func TestMenuMoneyIsExact(t *testing.T) {
	t.Parallel()
	var it universalpos.Item
	if err := json.Unmarshal([]byte(`{"price":0.1}`), &it); err != nil {
		t.Fatal(err)
	}
	sum := it.Price.Add(client.MustParseMoney("0.20"))
	if sum.String() != "0.30" {
		t.Errorf("0.1 + 0.20 = %s", sum)
	}
	if err := json.Unmarshal([]byte(`{"price":0.105}`), &it); err == nil {
		t.Error("3 fraction digits accepted")
	}
}
