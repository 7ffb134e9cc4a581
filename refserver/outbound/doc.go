// Package outbound is how the reference server calls out: it sends orders
// to the locations' universal POSes and monitors those POSes' health and
// menus.
//
// A Dispatcher is the one mechanism for "call out, retry with backoff on
// the virtual clock, record every try". A kind of delivery plugs into it
// as a Queue kept in the database, so deliveries survive a restart; the
// Dispatcher bounds the tries in flight, judges each outcome with a Policy
// and has the Queue record it:
//
//	orders := outbound.NewOrderDispatcher(outbound.OrderConfig{...})
//	go orders.Run(ctx)
//	orders.Wake() // an order became due
//
// The server's composition root builds the workers and runs them until it
// closes; handlers only wake them.
package outbound
