package rules

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// kitchen is a location with a universal POS whose menus (pricingMenus)
// have been synced, and a location that never synced one.
type kitchen struct {
	scene
	menuLoc, unsyncedLoc int64
}

func newKitchen(t *testing.T) kitchen {
	t.Helper()
	k := kitchen{scene: newScene(t)}
	menus, err := json.Marshal(pricingMenus().menus)
	if err != nil {
		t.Fatal(err)
	}
	posURL, posToken := "http://pos.test", "pos-secret"
	write(t, k.db, func(tx *store.Tx) (err error) {
		if k.menuLoc, err = insertPOSLocation(tx, "Kitchen", "providerB", posURL, posToken); err != nil {
			return err
		}
		if k.unsyncedLoc, err = insertPOSLocation(tx, "New Kitchen", "providerB", posURL, posToken); err != nil {
			return err
		}
		_, err = tx.SetLocationMenu(k.menuLoc, posURL, string(menus))
		return err
	})
	return k
}

// createOrder runs CheckOrder and CreateOrder on an order body as the
// order endpoint does.
func createOrder(t *testing.T, db *store.DB, userID int64, body string) (fulfillment.CreatedOrder, error) {
	t.Helper()
	var req fulfillment.OrderRequest
	if err := api.DecodeBytes([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	bad := CheckOrder([]byte(body), &req)
	return run(t, db, func(tx *store.Tx) (fulfillment.CreatedOrder, error) { return CreateOrder(tx, userID, req, bad) })
}

func TestCreateOrder(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	o, err := createOrder(t, k.db, k.user, `{"locationId":`+itoa(k.menuLoc)+`,"items":[
		{"plu":"TEA","quantity":3,"options":[{"plu":"MILK","quantity":1}]},{"plu":"CAKE","quantity":1}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if o.Total != client.MustParseMoney("2.90") || len(o.OrderID) != 36 {
		t.Errorf("created %+v, want a total of 2.90", o)
	}
	got, err := run(t, k.db, func(tx *store.Tx) (fulfillment.Order, error) { return GetOrder(tx, k.user, o.OrderID) })
	if err != nil {
		t.Fatal(err)
	}
	want := fulfillment.Order{OrderID: o.OrderID, LocationID: k.menuLoc, Total: o.Total, Status: fulfillment.Status(store.OrderCreated),
		CreatedAt: client.UnixTime{Time: testNow}, Items: []universalpos.OrderItem{
			{PLU: "TEA", Name: "Tea", Quantity: 3, Price: client.MustParseMoney("0.10"),
				Options: []universalpos.OrderOption{{PLU: "MILK", Name: "Milk", Quantity: 1, Price: client.MustParseMoney("0.20"),
					Options: []universalpos.OrderOption{}}}},
			{PLU: "CAKE", Name: "Cake", Quantity: 1, Price: client.MustParseMoney("2.00"), Options: []universalpos.OrderOption{}},
		}}
	if diff := cmp.Diff(want, got, exactMoney); diff != "" {
		t.Errorf("stored order (-want +got):\n%s", diff)
	}
	if _, err := run(t, k.db, func(tx *store.Tx) (fulfillment.Order, error) { return GetOrder(tx, k.other, o.OrderID) }); !notFoundAs(err, "Order not found.") {
		t.Errorf("another user's order: err = %v, want 404001 Order not found.", err)
	}
}

func TestCreateOrderRefused(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	tests := []struct {
		name string
		body string
		code client.Code
		want map[string]string
	}{
		{"unknown location", `{"locationId":99,"items":[{"plu":"TEA","quantity":1}]}`, client.CodeNotFound, nil},
		// The body's faults and the menu's are reported together.
		{"body and menu", `{"locationId":` + itoa(k.menuLoc) + `,"items":[{"plu":"NOPE","quantity":1},{"plu":"TEA"}]}`, client.CodeValidation,
			map[string]string{"items[0].plu": "unknown plu", "items[1].quantity": "required"}},
		{"menu never synced", `{"locationId":` + itoa(k.unsyncedLoc) + `,"items":[{"plu":"TEA","quantity":1}]}`, client.CodeValidation,
			map[string]string{"items[0].plu": "unknown plu (the location's menu has not been synced yet)"}},
		// Without a location the lines are checked for their shape only.
		{"no location", `{"items":[{"plu":"NOPE","quantity":0}]}`, client.CodeValidation,
			map[string]string{"locationId": "required", "items[0].quantity": "must be at least 1"}},
	}
	for _, tt := range tests {
		_, err := createOrder(t, k.db, k.user, tt.body)
		wantCode(t, err, tt.code)
		if tt.want != nil {
			if diff := cmp.Diff(tt.want, fieldErrors(t, err)); diff != "" {
				t.Errorf("%s: fields (-want +got):\n%s", tt.name, diff)
			}
		}
	}
	var orders int64
	if err := k.db.Read(t.Context(), func(tx *store.Tx) (err error) {
		orders, err = tx.CountRows("orders")
		return err
	}); err != nil || orders != 0 {
		t.Errorf("%d orders stored, %v; want none", orders, err)
	}
}

func TestSetFulfillment(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	o, err := createOrder(t, k.db, k.user, `{"locationId":`+itoa(k.menuLoc)+`,"items":[{"plu":"CAKE","quantity":1}]}`)
	if err != nil {
		t.Fatal(err)
	}
	method := func(body string) fulfillment.Method {
		m, err := DecodeFulfillment(fulfillment.TypeOrderAtTable, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	set := func(user int64, id, body string) (bool, error) {
		return run(t, k.db, func(tx *store.Tx) (bool, error) { return SetFulfillment(tx, user, id, method(body)) })
	}
	tests := []struct {
		name    string
		user    int64
		id      string
		body    string
		wantSet bool
		code    client.Code
	}{
		{"another user's order", k.other, o.OrderID, `{"kitchenNotes":"","tableNumber":3}`, false, client.CodeNotFound},
		{"unknown order", k.user, "no-such-order", `{"kitchenNotes":"","tableNumber":3}`, false, client.CodeNotFound},
		{"first", k.user, o.OrderID, `{"kitchenNotes":"","tableNumber":3}`, true, 0},
		// Key order and unknown fields do not make another fulfillment.
		{"the same again", k.user, o.OrderID, `{"tableNumber":3,"kitchenNotes":"","x":1}`, false, 0},
		{"another", k.user, o.OrderID, `{"kitchenNotes":"","tableNumber":4}`, false, client.CodeFulfillmentAlreadySet},
	}
	// In order: each step sees the fulfillment the steps before it set.
	for _, tt := range tests {
		got, err := set(tt.user, tt.id, tt.body)
		wantCode(t, err, tt.code)
		if got != tt.wantSet {
			t.Errorf("%s: set = %v, want %v", tt.name, got, tt.wantSet)
		}
	}
	got, err := run(t, k.db, func(tx *store.Tx) (fulfillment.Order, error) { return GetOrder(tx, k.user, o.OrderID) })
	if err != nil || got.Status != fulfillment.Status(store.OrderFulfillmentSet) || got.FulfillmentType != fulfillment.TypeOrderAtTable ||
		string(got.Fulfillment) != `{"kitchenNotes":"","tableNumber":3}` {
		t.Errorf("order after the fulfillment: %+v, %v", got, err)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
