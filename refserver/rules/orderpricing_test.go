package rules

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/universalpos"
)

func pricingMenus() *locationMenus {
	m := func(s string) client.Money { return client.MustParseMoney(s) }
	return &locationMenus{syncedAt: time.Unix(1, 0), menus: []universalpos.Menu{
		{Reference: "a", Name: "A", Type: universalpos.MenuTypeAny, Categories: []universalpos.Category{{Name: "c", Items: []universalpos.Item{
			{PLU: "TEA", Name: "Tea", Price: m("0.10"), Available: true, Modifiers: []universalpos.ModifierGroup{
				{Name: "Milk", Min: 0, Max: 3, Options: []universalpos.Option{{PLU: "MILK", Name: "Milk", Price: m("0.20")}}},
			}},
			{PLU: "BIG", Name: "Big", Price: m("90000.00"), Available: true},
		}}}},
		// A second menu reusing a PLU: the first menu's item wins.
		{Reference: "b", Name: "B", Type: universalpos.MenuTypeDelivery, Categories: []universalpos.Category{{Name: "c", Items: []universalpos.Item{
			{PLU: "TEA", Name: "Delivery tea", Price: m("9.99"), Available: true},
			{PLU: "CAKE", Name: "Cake", Price: m("2.00"), Available: true},
		}}}},
	}}
}

func TestPriceOrderExact(t *testing.T) {
	t.Parallel()
	// 0.10 + 0.20 is 0.30 exactly, then x3 = 0.90; plus cake from menu B.
	items, total, errs := priceOrder(pricingMenus(), []fulfillment.OrderLine{
		{PLU: "TEA", Quantity: 3, Options: []fulfillment.OrderLine{{PLU: "MILK", Quantity: 1}}},
		{PLU: "CAKE", Quantity: 1},
	})
	if errs != nil {
		t.Fatal(errs)
	}
	if total != client.MustParseMoney("2.90") {
		t.Errorf("total = %v, want 2.90", total)
	}
	if items[0].Name != "Tea" || items[0].Price != client.MustParseMoney("0.10") || items[1].Name != "Cake" {
		t.Errorf("items = %+v", items)
	}
	var o universalpos.Order
	o.Items = items
	if o.ComputeTotal() != total {
		t.Errorf("universalpos ComputeTotal %v != %v", o.ComputeTotal(), total)
	}
}

func TestPriceOrderBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []fulfillment.OrderLine
		want  []string
	}{
		{"total over the bound", []fulfillment.OrderLine{{PLU: "BIG", Quantity: 12}}, []string{"items[0].quantity"}},
		{"sum over the bound", []fulfillment.OrderLine{{PLU: "BIG", Quantity: 6}, {PLU: "BIG", Quantity: 6}}, []string{"items[1].quantity"}},
		{"option quantities multiply", []fulfillment.OrderLine{{PLU: "TEA", Quantity: 999, Options: []fulfillment.OrderLine{{PLU: "MILK", Quantity: 3}}}}, nil},
		{"group max", []fulfillment.OrderLine{{PLU: "TEA", Quantity: 1, Options: []fulfillment.OrderLine{{PLU: "MILK", Quantity: 4}}}}, []string{"items[0].options"}},
		{"too many lines", slices.Repeat([]fulfillment.OrderLine{{PLU: "CAKE", Quantity: 1}}, fulfillment.MaxOrderLines+1), []string{"items"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, errs := priceOrder(pricingMenus(), tt.lines)
			if diff := cmp.Diff(tt.want, sortedKeysOf(errs)); diff != "" {
				t.Errorf("paths (-want +got):\n%s\n%v", diff, errs)
			}
		})
	}
}

func TestPriceOrderUnsynced(t *testing.T) {
	t.Parallel()
	_, _, errs := priceOrder(&locationMenus{}, []fulfillment.OrderLine{{PLU: "TEA", Quantity: 1}})
	if !strings.Contains(errs["items[0].plu"], "not been synced") {
		t.Errorf("errs = %v", errs)
	}
	// Without a location only the shape is checked.
	_, _, errs = priceOrder(nil, []fulfillment.OrderLine{{PLU: "TEA", Quantity: 1, Options: []fulfillment.OrderLine{{Quantity: 0}}}})
	if diff := cmp.Diff([]string{"items[0].options[0].plu", "items[0].options[0].quantity"}, sortedKeysOf(errs)); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

func sortedKeysOf(m map[string]string) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestNewOrderID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		id := newOrderID()
		if len(id) != 36 || id[14] != '4' || !strings.ContainsRune("89ab", rune(id[19])) || seen[id] {
			t.Fatalf("bad or repeated UUID %q", id)
		}
		seen[id] = true
	}
}

// A deal's price covers its items; their options cost extra. A PLU listed
// in two groups counts towards the first that still has room, so a second
// side fills the "Extra" group rather than breaking "Side"'s max.
func TestPriceOrderDeal(t *testing.T) {
	t.Parallel()
	m := func(s string) client.Money { return client.MustParseMoney(s) }
	menus := &locationMenus{syncedAt: time.Unix(1, 0), menus: []universalpos.Menu{{
		Reference: "a", Name: "A", Type: universalpos.MenuTypeAny,
		Categories: []universalpos.Category{{Name: "c", Items: []universalpos.Item{
			{PLU: "FRIES", Name: "Fries", Price: m("3.00"), Available: true, Modifiers: []universalpos.ModifierGroup{
				{Name: "Salt", Min: 0, Max: 1, Options: []universalpos.Option{{PLU: "SALT", Name: "Salt", Price: m("0.05")}}},
			}},
			{PLU: "GONE", Name: "Gone", Price: m("1.00")},
		}}},
		Deals: []universalpos.Deal{{PLU: "MEAL", Name: "Meal", Price: m("5.00"), Groups: []universalpos.DealGroup{
			{Name: "Side", Min: 1, Max: 1, Items: []string{"FRIES", "GONE"}},
			{Name: "Extra", Min: 0, Max: 1, Items: []string{"FRIES"}},
		}}},
	}}}
	deal := func(picks ...fulfillment.OrderLine) []fulfillment.OrderLine {
		return []fulfillment.OrderLine{{PLU: "MEAL", Quantity: 1, Options: picks}}
	}
	fries := fulfillment.OrderLine{PLU: "FRIES", Quantity: 1}
	salted := fulfillment.OrderLine{PLU: "FRIES", Quantity: 1, Options: []fulfillment.OrderLine{{PLU: "SALT", Quantity: 1}}}

	items, total, errs := priceOrder(menus, deal(fries, salted))
	if errs != nil {
		t.Fatal(errs)
	}
	if total != m("5.05") {
		t.Errorf("total = %v, want 5.05", total)
	}
	want := []universalpos.OrderItem{{PLU: "MEAL", Name: "Meal", Quantity: 1, Price: m("5.00"), Options: []universalpos.OrderOption{
		{PLU: "FRIES", Name: "Fries", Quantity: 1, Options: []universalpos.OrderOption{}},
		{PLU: "FRIES", Name: "Fries", Quantity: 1, Options: []universalpos.OrderOption{{PLU: "SALT", Name: "Salt", Quantity: 1, Price: m("0.05"), Options: []universalpos.OrderOption{}}}},
	}}}
	if diff := cmp.Diff(want, items, exactMoney); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}

	tests := []struct {
		name  string
		lines []fulfillment.OrderLine
		want  map[string]string
	}{
		{"three sides", deal(fries, fries, fries), map[string]string{"items[0].options": `choose at most 1 from "Side"`}},
		{"no side", deal(), map[string]string{"items[0].options": `choose at least 1 from "Side"`}},
		{"unavailable", deal(fulfillment.OrderLine{PLU: "GONE", Quantity: 1}),
			map[string]string{"items[0].options[0].plu": `item "GONE" is unavailable`, "items[0].options": `choose at least 1 from "Side"`}},
		{"not in the deal", deal(fries, fulfillment.OrderLine{PLU: "SALT", Quantity: 1}),
			map[string]string{"items[0].options[1].plu": "not an item of this deal"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, errs := priceOrder(menus, tt.lines)
			if diff := cmp.Diff(tt.want, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
