package contract

import (
	"context"
	"net/http"
	"regexp"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
)

// orderShape is an order of GET /ordering/v3/order/{orderId} (contract
// section 5).
var orderShape = shape{
	"orderId": "string", "locationId": "int", "items": "array", "total": "money",
	"fulfillmentType": "string|null", "fulfillment": "object|null", "status": "string", "posOrderId": "string|null",
}

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// orderWait bounds the wait for an order to reach the POS.
const orderWait = 30 * time.Second

// orderable returns a one-line order of the demo location: the first
// available item whose modifier groups all allow choosing nothing.
func (t *T) orderable() fulfillment.OrderRequest {
	loc := t.demoLocation()
	m, err := t.menus().Menu(t.ctx, loc)
	t.ok(err, "get the demo location's menu")
	for _, menu := range m.Menus {
		for it := range menu.Items() {
			free := it.Available
			for _, g := range it.Modifiers {
				free = free && g.Min == 0
			}
			if free {
				return fulfillment.OrderRequest{LocationID: loc, Items: []fulfillment.OrderLine{{PLU: it.PLU, Quantity: 2}}}
			}
		}
	}
	t.Fatalf("set-up: the menu of location %d has no item to order without options", loc)
	return fulfillment.OrderRequest{}
}

// newOrder creates an order as the run's user.
func (t *T) newOrder() fulfillment.CreatedOrder {
	o, err := t.user().Orders.CreateOrder(t.ctx, t.orderable())
	t.ok(err, "create an order")
	return o
}

// methods is one valid body of each fulfillment method, the nullable
// members null.
func methods() []fulfillment.Method {
	at := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	return []fulfillment.Method{
		fulfillment.DeliveryByOperator{DeliveryTime: at, DeliveryCharge: client.MustParseMoney("2.50"),
			CustomerName: "Contract Customer", CustomerPhone: "+44 20 7946 0000", AddressLineOne: "1 Contract Street",
			City: "London", PostCode: "E1 6AN"},
		fulfillment.DeliveryByDeliveryPartner{CollectionTime: at, Name: "Contract Driver", Phone: "+44 20 7946 0001",
			OrderReference: "CONTRACT-1"},
		fulfillment.CollectionByCustomer{CollectionTime: at, Name: "Contract Customer", Phone: "+44 20 7946 0002",
			OrderReference: "CONTRACT-2"},
		fulfillment.OrderAtTable{TableNumber: 3},
	}
}

// methodCheck is the check of one fulfillment method: 202 with an empty
// object, and the order then carries the method.
func methodCheck(m fulfillment.Method) Check {
	return Check{
		Name: "fulfillment/" + string(m.Type()), Endpoint: "POST /ordering/v3/order/{orderId}/fulfillment-type/" + string(m.Type()),
		Rule:  "setting " + string(m.Type()) + " answers 202 {}, and the order then has that fulfillmentType",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			o := t.newOrder()
			t.ok(t.user().Orders.Set(t.ctx, o.OrderID, m), "set "+string(m.Type()))
			t.status(http.StatusAccepted)
			if b := t.body(); len(b) != 0 {
				t.Errorf("body: got %s, want {}", t.last().Body)
			}
			got, err := t.user().Orders.Order(t.ctx, o.OrderID)
			t.ok(err, "get the order")
			t.equal("order.fulfillmentType", got.FulfillmentType, m.Type())
			if got.Status == fulfillment.StatusCreated {
				t.Errorf("order.status: still %q after a fulfillment was set", got.Status)
			}
		},
	}
}

// orderChecks cover interface 4.12 to 4.15 and contract section 5's
// ordering.
var orderChecks = append([]Check{
	{
		Name: "orders/create", Endpoint: "POST /ordering/v3/order, GET /ordering/v3/order/{orderId}",
		Rule:  "an order answers 201 { orderId (a UUID), total, requestInfo } (apiVersion 3) and reads back with status created",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			req := t.orderable()
			o, err := t.user().Orders.CreateOrder(t.ctx, req)
			t.ok(err, "create an order")
			t.status(http.StatusCreated)
			t.shape(with(requestInfoShape, shape{"orderId": "string", "total": "money"}))
			t.requestInfo(3, "authenticated")
			if !uuidForm.MatchString(o.OrderID) {
				t.Errorf("orderId: got %q, want a UUID", o.OrderID)
			}
			got, err := t.user().Orders.Order(t.ctx, o.OrderID)
			t.ok(err, "get the order")
			t.shape(with(requestInfoShape, under("order", orderShape)))
			t.requestInfo(3, "authenticated")
			t.equal("order.status", got.Status, fulfillment.StatusCreated)
			t.equal("order.total", got.Total.String(), o.Total.String())
			t.equal("order.locationId", got.LocationID, req.LocationID)
		},
	},
	{
		Name: "orders/unknown-plu", Endpoint: "POST /ordering/v3/order",
		Rule:  "an order naming a PLU not on the location's menu is 400002 naming items[0].plu",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			req := t.orderable()
			req.Items[0].PLU = "CONTRACT-NO-SUCH-PLU"
			_, err := t.user().Orders.CreateOrder(t.ctx, req)
			t.wantFields(err, "items[0].plu")
		},
	},
	{
		Name: "orders/get-unknown", Endpoint: "GET /ordering/v3/order/{orderId}",
		Rule:  "an unknown order is 404001",
		Needs: NeedsUser,
		Run: func(t *T) {
			_, err := t.user().Orders.Order(t.ctx, "00000000-0000-4000-8000-000000000000")
			t.wantError(err, client.CodeNotFound)
		},
	},
}, append(mapMethods(methodCheck), []Check{
	{
		Name: "fulfillment/same-again", Endpoint: "POST /ordering/v3/order/{orderId}/fulfillment-type/{method}",
		Rule:  "setting the same fulfillment again is accepted (202)",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			o := t.newOrder()
			m := fulfillment.OrderAtTable{TableNumber: 5, KitchenNotes: "contract"}
			t.ok(t.user().Orders.Set(t.ctx, o.OrderID, m), "set order-at-table")
			t.ok(t.user().Orders.Set(t.ctx, o.OrderID, m), "set the same order-at-table again")
			t.status(http.StatusAccepted)
		},
	},
	{
		Name: "fulfillment/already-set", Endpoint: "POST /ordering/v3/order/{orderId}/fulfillment-type/{method}",
		Rule:  "a second, different fulfillment is 409001",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			o := t.newOrder()
			t.ok(t.user().Orders.Set(t.ctx, o.OrderID, fulfillment.OrderAtTable{TableNumber: 5}), "set order-at-table")
			err := t.user().Orders.Set(t.ctx, o.OrderID, methods()[2])
			t.wantError(err, client.CodeFulfillmentAlreadySet)
		},
	},
	{
		Name: "fulfillment/missing-field", Endpoint: "POST /ordering/v3/order/{orderId}/fulfillment-type/{method}",
		Rule:  "a fulfillment missing a non-nullable member is 400002 naming it, and sets nothing",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			o := t.newOrder()
			t.rawFields(rawRequest{Method: http.MethodPost, AccessToken: t.user().Token,
				Path: "/ordering/v3/order/" + o.OrderID + "/fulfillment-type/order-at-table",
				Body: []byte(`{"kitchenNotes":""}`)}, "tableNumber")
			t.rawFields(rawRequest{Method: http.MethodPost, AccessToken: t.user().Token,
				Path: "/ordering/v3/order/" + o.OrderID + "/fulfillment-type/collection-by-customer",
				Body: []byte(`{"collectionTime":"2030-01-01T12:00:00Z","collectionNotes":"","phone":"1","orderReference":"R","kitchenNotes":""}`)},
				"name")
			got, err := t.user().Orders.Order(t.ctx, o.OrderID)
			t.ok(err, "get the order")
			t.equal("order.status", got.Status, fulfillment.StatusCreated)
		},
	},
	{
		Name: "fulfillment/sent-to-pos", Endpoint: "POST /ordering/v3/order/{orderId}/fulfillment-type/{method}, GET /ordering/v3/order/{orderId}",
		Rule:  "after a fulfillment is set the order goes to the location's universal POS: status accepted_by_pos with a posOrderId",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			o := t.newOrder()
			t.ok(t.user().Orders.Set(t.ctx, o.OrderID, methods()[2]), "set collection-by-customer")
			ctx, cancel := context.WithTimeout(t.ctx, orderWait)
			defer cancel()
			got, err := t.user().Orders.WaitForStatus(ctx, o.OrderID, fulfillment.Settled, 100*time.Millisecond)
			if err != nil {
				t.Fatalf("order %s not settled within %v: last status %q: %v", o.OrderID, orderWait, got.Status, err)
			}
			t.equal("order.status", got.Status, fulfillment.StatusAcceptedByPOS)
			if got.POSOrderID == nil || *got.POSOrderID == "" {
				t.Errorf("order.posOrderId: got %s, want the POS's id", show(got.POSOrderID))
			}
		},
	},
}...)...)

// mapMethods makes one check per fulfillment method.
func mapMethods(f func(fulfillment.Method) Check) []Check {
	var out []Check
	for _, m := range methods() {
		out = append(out, f(m))
	}
	return out
}
