// Package universalpos is the universal POS contract: three HTTP endpoints
// that a POS vendor implements so the service can read its menus, watch
// its health and send it orders.
//
//	GET  /health  -> 200 {"status": "OK"} or {"status": "FAILED", "message": "..."}
//	GET  /menus   -> 200 {"menus": [Menu, ...]}
//	POST /orders  Order -> 201 {"posOrderId": "..."}; the same orderId again -> 200, same posOrderId
//
// Every request carries "Authorization: Bearer <token>", the token the
// vendor issued when the POS was registered with a location. Money is an
// exact client.Money (a JSON number with at most two fraction digits).
//
// The package has one piece for each party:
//
//   - A POS vendor writes a Provider (health, menus, create order: the
//     business logic only) and serves it with NewHandler, which does the
//     token check, validation with clear 4xx errors, and de-duplication of
//     resent orders. OrderStore explains what to plug in when the POS runs
//     as several instances.
//   - The service calls a POS with a Client: timeouts, a few retries on 5xx
//     and timeouts (never on a 4xx), and an *Error whose Temporary method
//     tells "try again later" from "failed for good".
//   - RunConformance, and the posconform command built on it, exercise a
//     POS the way the service will and print one PASS or FAIL line per
//     conformance check.
//
// A vendor checks a POS with:
//
//	go run ./universalpos/cmd/posconform -url https://pos.example.com -token TOKEN
//
// # Status codes
//
// NewHandler answers 400 for a body that is not valid JSON or breaks a
// rule ({"error", "fields"} names each JSON path), 401 without the right
// token, 404 and 405 for other paths and methods, 413 above 1 MiB, 415
// unless the body is application/json, 422 when the Provider refuses an
// order (RejectOrder) and 500 for any other Provider error. The service
// treats every 4xx from POST /orders as final (the order fails) and
// retries after a 5xx or a timeout, with backoff; that is why a Provider
// must return RejectOrder only for orders that can never succeed.
//
// # Orders
//
// Prices in an Order are unit prices. An item's quantity counts whole
// items; an option's quantity counts per one unit of its parent. A deal is
// ordered as an OrderItem with the deal's PLU and price, whose options are
// the chosen items (price 0, the deal covers them) with their own options.
// Total is what Order.ComputeTotal returns.
package universalpos
