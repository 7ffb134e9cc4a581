package universalpos

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// sampleOrder builds the order the conformance checker sends: one unit of
// the first available item that can be ordered, choosing in every modifier
// group as many options as its min asks (at least one when the group
// allows any, so that option handling, nested groups included, is
// exercised), priced from the menu.
func sampleOrder(menus []Menu, locationID string, now time.Time) (Order, error) {
	if len(menus) == 0 {
		return Order{}, errors.New("no menu to build an order from")
	}
	for _, m := range menus {
		for it := range m.Items() {
			if !it.Available || it.PLU == "" {
				continue
			}
			opts, ok := chooseOptions(it.Modifiers, 0)
			if !ok {
				continue
			}
			item := OrderItem{PLU: it.PLU, Name: it.Name, Quantity: 1, Price: it.Price, Options: opts}
			fulfillment, _ := json.Marshal(map[string]string{
				"collectionTime":  now.Add(20 * time.Minute).UTC().Format(time.RFC3339),
				"collectionNotes": "",
				"name":            "Conformance Check",
				"phone":           "+440000000000",
				"orderReference":  "CHECK-" + randomHex(3),
				"kitchenNotes":    "test order sent by the universal POS conformance checker",
			})
			o := Order{
				OrderID:         newOrderID(),
				POSLocationID:   locationID,
				FulfillmentType: FulfillmentCollectionByCustomer,
				Fulfillment:     fulfillment,
				Items:           []OrderItem{item},
				CreatedAt:       client.UnixTime{Time: now.UTC().Truncate(time.Second)},
			}
			o.Total = o.ComputeTotal()
			return o, nil
		}
	}
	return Order{}, errors.New("no available item whose modifier groups can be satisfied")
}

func chooseOptions(groups []ModifierGroup, depth int) ([]OrderOption, bool) {
	if depth >= maxModifierDepth {
		return nil, len(groups) == 0
	}
	var out []OrderOption
	for _, g := range groups {
		n := max(g.Min, 1)
		n = max(min(n, g.Max, len(g.Options)), 0)
		if n < g.Min {
			return nil, false
		}
		for _, o := range g.Options[:n] {
			nested, ok := chooseOptions(o.Modifiers, depth+1)
			if !ok {
				return nil, false
			}
			out = append(out, OrderOption{PLU: o.PLU, Name: o.Name, Quantity: 1, Price: o.Price, Options: nested})
		}
	}
	return out, true
}
