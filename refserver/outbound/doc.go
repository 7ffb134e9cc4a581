// Package outbound is how the reference server calls out: it sends orders
// to the locations' universal POSes, delivers events to webhooks, and
// monitors the POSes' health and menus.
//
// A Dispatcher is the one mechanism for "call out, retry with backoff on
// the virtual clock, record every try". A kind of delivery plugs into it
// as a Queue kept in the database, so deliveries survive a restart; the
// Dispatcher bounds the tries in flight, judges each outcome with a Policy
// and has the Queue record it. Dispatchers and the Monitor are jobs of the
// server's scheduler (package schedule), which runs them when their work
// is due on the virtual clock and knows when they have caught up:
//
//	sched := schedule.New(schedule.Config{Now: clock.Now})
//	orders := outbound.NewOrderDispatcher(outbound.OrderConfig{...})
//	orders.Schedule(ctx, sched)
//	go sched.Run(ctx)
//	orders.Wake() // an order became due
//
// The server's composition root builds the jobs and runs them until it
// closes; handlers only wake them.
package outbound
