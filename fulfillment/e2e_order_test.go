package fulfillment_test

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/universalpos"
)

func TestMenuE2E(t *testing.T) {
	t.Parallel()
	e := startEnv(t)
	m, err := e.svc.Menu(ctxT(t), e.locationID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(testMenus, m.Menus, cmpopts.EquateEmpty(), cmp.Comparer(func(a, b client.Money) bool { return a == b })); diff != "" {
		t.Errorf("menus (-want +got):\n%s", diff)
	}
	if m.RequestInfo.APIVersion != 2 {
		t.Errorf("apiVersion = %d, want 2", m.RequestInfo.APIVersion)
	}

	// A location without a universal POS: no menus, syncedAt null.
	bare, _ := e.NewLocation(t, "No POS", "providerB")
	noCred := fulfillment.NewService(e.Client(t)) // the menu needs no credential
	m, err = noCred.Menu(ctxT(t), bare)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Menus) != 0 || !m.SyncedAt.IsZero() {
		t.Errorf("unsynced menu = %+v", m)
	}
	st, body := e.rawJSON(t, http.MethodGet, "v2/location/"+strconv.FormatInt(bare, 10)+"/menu", nil)
	if st != http.StatusOK || body["syncedAt"] != nil || body["menus"] == nil {
		t.Errorf("unsynced menu JSON: %d %v", st, body)
	}

	for _, id := range []string{"999999", "abc", "0"} {
		_, err := noCred.Menu(ctxT(t), mustInt(id))
		if id == "abc" {
			st, body := e.rawJSON(t, http.MethodGet, "v2/location/abc/menu", nil)
			if st != http.StatusNotFound || body["code"] != float64(404001) {
				t.Errorf("menu of location abc: %d %v", st, body)
			}
			continue
		}
		if !errors.Is(err, client.ErrNotFound) {
			t.Errorf("menu of location %s: %v, want 404001", id, err)
		}
	}
}

func mustInt(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func TestCreateOrderPricesFromMenuE2E(t *testing.T) {
	t.Parallel()
	e := startEnv(t)
	req := fulfillment.OrderRequest{LocationID: e.locationID, Items: []fulfillment.OrderLine{
		// (8.50 + 1.00 + 0) x 2 = 19.00
		{PLU: "BURGER", Quantity: 2, Options: []fulfillment.OrderLine{{PLU: "CHEESE", Quantity: 1}, {PLU: "RARE", Quantity: 1}}},
		// 3.00 + 0.80 + 0.30 = 4.10
		{PLU: "FRIES", Quantity: 1, Options: []fulfillment.OrderLine{{PLU: "LARGE", Quantity: 1, Options: []fulfillment.OrderLine{{PLU: "MAYO", Quantity: 1}}}}},
		// 2.10 x 3 = 6.30
		{PLU: "COLA", Quantity: 3},
		// deal 11.00 + bacon 1.50 = 12.50
		{PLU: "MEAL", Quantity: 1, Options: []fulfillment.OrderLine{
			{PLU: "BURGER", Quantity: 1, Options: []fulfillment.OrderLine{{PLU: "WELL", Quantity: 1}, {PLU: "BACON", Quantity: 1}}},
			{PLU: "FRIES", Quantity: 1, Options: []fulfillment.OrderLine{{PLU: "REGULAR", Quantity: 1}}},
			{PLU: "WATER", Quantity: 1},
		}},
	}}
	created, err := e.svc.CreateOrder(ctxT(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if want := money("41.90"); created.Total != want {
		t.Errorf("total = %v, want %v", created.Total, want)
	}
	if len(created.OrderID) != 36 || created.RequestInfo.APIVersion != 3 {
		t.Errorf("created = %+v", created)
	}

	o, err := e.svc.Order(ctxT(t), created.OrderID)
	if err != nil {
		t.Fatal(err)
	}
	wantItems := []universalpos.OrderItem{
		{PLU: "BURGER", Name: "Burger", Quantity: 2, Price: money("8.50"), Options: []universalpos.OrderOption{
			{PLU: "CHEESE", Name: "Cheese", Quantity: 1, Price: money("1.00"), Options: []universalpos.OrderOption{}},
			{PLU: "RARE", Name: "Rare", Quantity: 1, Price: money("0"), Options: []universalpos.OrderOption{}},
		}},
		{PLU: "FRIES", Name: "Fries", Quantity: 1, Price: money("3.00"), Options: []universalpos.OrderOption{
			{PLU: "LARGE", Name: "Large", Quantity: 1, Price: money("0.80"), Options: []universalpos.OrderOption{
				{PLU: "MAYO", Name: "Mayo", Quantity: 1, Price: money("0.30"), Options: []universalpos.OrderOption{}},
			}},
		}},
		{PLU: "COLA", Name: "Cola", Quantity: 3, Price: money("2.10"), Options: []universalpos.OrderOption{}},
		{PLU: "MEAL", Name: "Meal deal", Quantity: 1, Price: money("11.00"), Options: []universalpos.OrderOption{
			{PLU: "BURGER", Name: "Burger", Quantity: 1, Price: money("0"), Options: []universalpos.OrderOption{
				{PLU: "WELL", Name: "Well done", Quantity: 1, Price: money("0"), Options: []universalpos.OrderOption{}},
				{PLU: "BACON", Name: "Bacon", Quantity: 1, Price: money("1.50"), Options: []universalpos.OrderOption{}},
			}},
			{PLU: "FRIES", Name: "Fries", Quantity: 1, Price: money("0"), Options: []universalpos.OrderOption{
				{PLU: "REGULAR", Name: "Regular", Quantity: 1, Price: money("0"), Options: []universalpos.OrderOption{}},
			}},
			{PLU: "WATER", Name: "Water", Quantity: 1, Price: money("0"), Options: []universalpos.OrderOption{}},
		}},
	}
	if diff := cmp.Diff(wantItems, o.Items, cmp.Comparer(func(a, b client.Money) bool { return a == b })); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if o.Status != fulfillment.StatusCreated || o.Total != created.Total || o.LocationID != e.locationID ||
		o.FulfillmentType != "" || o.POSOrderID != nil || o.CreatedAt.IsZero() {
		t.Errorf("order = %+v", o)
	}
	// The nulls are on the wire, not just zero values.
	st, body := e.rawJSON(t, http.MethodGet, "ordering/v3/order/"+created.OrderID, nil)
	order, _ := body["order"].(map[string]any)
	for _, k := range []string{"fulfillmentType", "fulfillment", "posOrderId"} {
		if v, ok := order[k]; st != http.StatusOK || !ok || v != nil {
			t.Errorf("order.%s = %v (present %v), want null", k, v, ok)
		}
	}
}

func TestCreateOrderValidationE2E(t *testing.T) {
	t.Parallel()
	e := startEnv(t)
	bare, _ := e.NewLocation(t, "No POS", "providerB")
	loc := e.locationID
	burger := func(opts ...map[string]any) map[string]any {
		return map[string]any{"plu": "BURGER", "quantity": 1, "options": opts}
	}
	opt := func(plu string, q int, nested ...map[string]any) map[string]any {
		return map[string]any{"plu": plu, "quantity": q, "options": nested}
	}
	tests := []struct {
		name  string
		body  map[string]any
		paths []string
	}{
		{"unknown item", map[string]any{"locationId": loc, "items": []any{burger(opt("RARE", 1)), opt("PIZZA", 1)}},
			[]string{"items[1].plu"}},
		{"unknown option", map[string]any{"locationId": loc, "items": []any{burger(opt("RARE", 1), opt("KETCHUP", 1))}},
			[]string{"items[0].options[1].plu"}},
		{"option of another item", map[string]any{"locationId": loc, "items": []any{burger(opt("RARE", 1), opt("MAYO", 1))}},
			[]string{"items[0].options[1].plu"}},
		{"nested unknown option", map[string]any{"locationId": loc, "items": []any{
			opt("FRIES", 1, opt("LARGE", 1, opt("KETCHUP", 1)))}},
			[]string{"items[0].options[0].options[0].plu"}},
		{"quantities", map[string]any{"locationId": loc, "items": []any{
			map[string]any{"plu": "COLA", "quantity": 0}, opt("BURGER", 1, opt("RARE", -1)), opt("COLA", 1000)}},
			[]string{"items[0].quantity", "items[1].options[0].quantity", "items[2].quantity"}},
		{"group min", map[string]any{"locationId": loc, "items": []any{burger(opt("CHEESE", 1))}},
			[]string{"items[0].options"}},
		{"group max", map[string]any{"locationId": loc, "items": []any{burger(opt("RARE", 1), opt("CHEESE", 2), opt("BACON", 1))}},
			[]string{"items[0].options"}},
		{"one of exactly one", map[string]any{"locationId": loc, "items": []any{burger(opt("RARE", 1), opt("WELL", 1))}},
			[]string{"items[0].options"}},
		{"unavailable", map[string]any{"locationId": loc, "items": []any{opt("SOLDOUT", 1), opt("COLA", 1)}},
			[]string{"items[0].plu"}},
		{"deal missing a pick", map[string]any{"locationId": loc, "items": []any{
			opt("MEAL", 1, opt("BURGER", 1, opt("RARE", 1)), opt("FRIES", 1, opt("REGULAR", 1)))}},
			[]string{"items[0].options"}},
		{"deal with two drinks", map[string]any{"locationId": loc, "items": []any{
			opt("MEAL", 1, opt("BURGER", 1, opt("RARE", 1)), opt("FRIES", 1, opt("REGULAR", 1)), opt("COLA", 1), opt("WATER", 1))}},
			[]string{"items[0].options"}},
		{"deal pick not in deal", map[string]any{"locationId": loc, "items": []any{
			opt("MEAL", 1, opt("BURGER", 1, opt("RARE", 1)), opt("FRIES", 1, opt("REGULAR", 1)), opt("COLA", 1), opt("CHEESE", 1))}},
			[]string{"items[0].options[3].plu"}},
		{"deal pick's options checked", map[string]any{"locationId": loc, "items": []any{
			opt("MEAL", 1, opt("BURGER", 1), opt("FRIES", 1, opt("REGULAR", 1)), opt("COLA", 1))}},
			[]string{"items[0].options[0].options"}},
		{"missing fields", map[string]any{"items": []any{map[string]any{"quantity": 1}, map[string]any{"plu": "COLA"},
			map[string]any{"plu": "BURGER", "quantity": 1, "options": []any{map[string]any{"quantity": 1}}}}},
			[]string{"items[0].plu", "items[1].quantity", "items[2].options[0].plu", "locationId"}},
		{"null items", map[string]any{"locationId": loc, "items": nil}, []string{"items"}},
		{"empty items", map[string]any{"locationId": loc, "items": []any{}}, []string{"items"}},
		{"bad location id", map[string]any{"locationId": -4, "items": []any{opt("COLA", 1)}}, []string{"locationId"}},
		{"menu not synced", map[string]any{"locationId": bare, "items": []any{opt("COLA", 1)}}, []string{"items[0].plu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, body := e.rawJSON(t, http.MethodPost, "ordering/v3/order", tt.body)
			if st != http.StatusBadRequest || body["code"] != float64(400002) {
				t.Fatalf("status %d body %v, want 400002", st, body)
			}
			cd, _ := body["contextData"].(map[string]any)
			var got []string
			for p := range cd {
				got = append(got, p)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.paths, got); diff != "" {
				t.Errorf("contextData paths (-want +got):\n%s\ncontextData: %v", diff, cd)
			}
		})
	}

	t.Run("unknown location", func(t *testing.T) {
		_, err := e.svc.CreateOrder(ctxT(t), fulfillment.OrderRequest{LocationID: 987654, Items: []fulfillment.OrderLine{{PLU: "COLA", Quantity: 1}}})
		if !errors.Is(err, client.ErrNotFound) {
			t.Errorf("err = %v, want 404001", err)
		}
	})
	t.Run("wrong JSON type", func(t *testing.T) {
		st, body := e.rawJSON(t, http.MethodPost, "ordering/v3/order", map[string]any{"locationId": "7", "items": []any{}})
		if st != http.StatusBadRequest || body["code"] != float64(400001) {
			t.Errorf("status %d body %v, want 400001", st, body)
		}
	})
	t.Run("no token", func(t *testing.T) {
		_, err := fulfillment.NewService(e.Client(t, client.WithAccessToken("nope"))).CreateOrder(ctxT(t),
			fulfillment.OrderRequest{LocationID: loc, Items: []fulfillment.OrderLine{{PLU: "COLA", Quantity: 1}}})
		if !errors.Is(err, client.ErrAccessTokenInvalid) {
			t.Errorf("err = %v, want 401002", err)
		}
	})
}

func TestGetOrderE2E(t *testing.T) {
	t.Parallel()
	e := startEnv(t)
	created := e.order(t)
	_, otherToken := e.NewUser(t)
	other := fulfillment.NewService(e.Client(t, client.WithAccessToken(otherToken)))
	if _, err := other.Order(ctxT(t), created.OrderID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("another user's order: %v, want 404001", err)
	}
	if _, err := e.svc.Order(ctxT(t), "00000000-0000-4000-8000-000000000000"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("unknown order: %v, want 404001", err)
	}
	o, err := e.svc.Order(ctxT(t), created.OrderID)
	if err != nil || o.OrderID != created.OrderID || o.Total != money("8.50") {
		t.Errorf("own order: %+v, %v", o, err)
	}
}
