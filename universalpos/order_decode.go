package universalpos

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// Limits on an order body. They bound the memory and the recursion a
// single request can cost the POS; real orders are far below them.
const (
	maxOrderIDLen     = 255
	maxOptionDepth    = 16
	maxOrderQuantity  = 1_000_000
	maxOrderLineCount = 10_000
)

// DecodeOrder parses and validates the body of POST /orders, the way
// NewHandler does before it calls Provider.CreateOrder. It is exported for
// POS vendors that do not use NewHandler.
//
// A body that is not JSON, or not an object, is an *Error with status 400
// and no fields. A body that breaks a rule is an *Error with status 400
// whose Fields name every offending JSON path, such as
// "items[0].options[1].price": "must have at most 2 decimal places".
// Unknown fields are ignored, so the service can add fields later.
func DecodeOrder(body []byte) (Order, error) {
	tree, err := parseTree(body)
	if err != nil {
		return Order{}, &Error{StatusCode: http.StatusBadRequest, Message: "malformed JSON: " + err.Error()}
	}
	var p problems
	root, ok := tree.(map[string]any)
	if !ok {
		return Order{}, &Error{StatusCode: http.StatusBadRequest, Message: "the order must be a JSON object"}
	}
	o := checkOrder(object{m: root, p: &p})
	if p.Len() > 0 {
		return Order{}, &Error{StatusCode: http.StatusBadRequest, Message: "invalid order", Fields: p.Map()}
	}
	return o, nil
}

// checkOrder validates the tree and builds the Order from the values it
// checked. Building from the tree, rather than decoding the body a second
// time, guarantees the order is exactly what was validated (encoding/json
// would also match keys such as "OrderId" case-insensitively).
func checkOrder(o object) Order {
	var ord Order
	if id, ok := o.str("orderId", true); ok {
		if len(id) > maxOrderIDLen {
			o.p.Add(o.at("orderId"), "must be at most 255 characters")
		}
		ord.OrderID = id
	}
	ord.POSLocationID, _ = o.str("posLocationId", true)
	ft, _ := o.str("fulfillmentType", true)
	ord.FulfillmentType = FulfillmentType(ft)
	if f, ok := o.object("fulfillment"); ok {
		raw, err := json.Marshal(f.m)
		if err != nil {
			o.p.Add(o.at("fulfillment"), "must be a JSON object")
		}
		ord.Fulfillment = raw
	}
	ord.Total, _ = o.money("total", false)
	if at, ok := o.integer("createdAt"); ok {
		if at <= 0 {
			o.p.Add(o.at("createdAt"), "must be a positive Unix time")
		}
		ord.CreatedAt = client.UnixTime{Time: time.Unix(at, 0).UTC()}
	}
	items, ok := o.array("items", false)
	if !ok {
		return ord
	}
	if len(items) == 0 {
		o.p.Add(o.at("items"), "must not be empty")
		return ord
	}
	lines := 0
	ord.Items = make([]OrderItem, 0, len(items))
	for i, v := range items {
		l := checkOrderLine(v, fielderr.Index(o.at("items"), i), o.p, 0, &lines)
		ord.Items = append(ord.Items, OrderItem(l))
	}
	return ord
}

// checkOrderLine checks an item or an option: both have plu, name,
// quantity, price and options.
func checkOrderLine(v any, path string, p *problems, depth int, lines *int) OrderOption {
	var l OrderOption
	*lines++
	if *lines > maxOrderLineCount {
		if *lines == maxOrderLineCount+1 {
			p.Add(path, "too many items and options in one order")
		}
		return l
	}
	line, ok := asObject(v, path, p)
	if !ok {
		return l
	}
	l.PLU, _ = line.str("plu", true)
	l.Name, _ = line.str("name", false)
	if q, ok := line.integer("quantity"); ok {
		if q < 1 || q > maxOrderQuantity {
			p.Add(line.at("quantity"), "must be between 1 and 1000000")
		}
		l.Quantity = int(q)
	}
	l.Price, _ = line.money("price", false)
	opts, ok := line.array("options", true)
	if !ok || len(opts) == 0 {
		return l
	}
	if depth+1 >= maxOptionDepth {
		p.Add(line.at("options"), "options are nested too deeply")
		return l
	}
	l.Options = make([]OrderOption, 0, len(opts))
	for i, ov := range opts {
		l.Options = append(l.Options, checkOrderLine(ov, fielderr.Index(line.at("options"), i), p, depth+1, lines))
	}
	return l
}
