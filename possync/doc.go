// Package possync connects a point-of-sale system to the service: it pushes
// checks (bills), collects payments made through the service, and reports
// that the POS is online.
//
// # The calls
//
// Service makes the four POS push-pull calls with a client.Client that
// holds the location's POS access token:
//
//   - PushCheck sends the full state of a check. The service stores it as a
//     bill, keyed by (locationId, checkNumber), with a stable billId and a
//     version that moves only when the content changes (formatting and
//     field order do not count). The bill's lastUpdated is the time of the
//     latest push that changed the content. Pushing the same state twice is
//     harmless.
//   - Payments returns the payments not yet accepted, keyed by check number,
//     oldest first.
//   - AcceptPayment confirms that the POS has saved a payment; accepting
//     twice is not an error.
//   - Heartbeat marks the location online. The service treats a location as
//     offline, and refuses payments there, once its last heartbeat is more
//     than 6 minutes old.
//
// Check, MenuItem, Modifier, Category and the other types are the wire
// format itself; money is client.Money, exact to the cent.
//
// # The Agent
//
// The service asks that sending and polling never block the POS user
// interface. Agent does that work in the background: a POS creates one,
// runs it, and calls Push whenever a check is saved:
//
//	store, err := outbox.Open("hospo-outbox.db", 42) // package possync/outbox
//	...
//	agent, err := possync.NewAgent(possync.NewService(c), possync.AgentConfig{
//		LocationID:  42,
//		SavePayment: pos.SavePayment, // write the payment to the POS check
//		Store:       store,
//	})
//	...
//	go agent.Run(ctx)
//	...
//	err = agent.Push(check) // returns at once, online or not
//
// Push keeps only the newest state of each check number and returns
// immediately, with an error only for a check the service would refuse
// (see Check.Validate) or a full outbox (ErrOutboxFull). Checks are
// delivered in the background: up to SendConcurrency at once while the
// service answers; after a failure one at a time with exponential backoff
// (RetryMin to RetryMax, jittered, honouring Retry-After) until a delivery
// succeeds. A check the service refuses for good (a 4xx such as 400002) is
// dropped and logged; one refused for an authentication reason (401, 403)
// is kept, since the fault is the agent's configuration, not the check.
//
// A waiting check is kept as the JSON its push will send, written by Push
// into the buffer of the state it replaces: a push costs no allocation,
// and a queue of thousands of checks gives the garbage collector almost
// nothing to mark, so a POS pushing fast is not slowed by collections. The
// JSON goes out as it is through a *Service and to a JSONStore; any other
// API or Store gets the check decoded from it (nil Discounts and MenuItems
// then arrive empty, as the service would read them).
//
// Every PollInterval (30 s, jittered) the agent fetches the payments and,
// oldest first, calls SavePayment for each; only after SavePayment returns
// nil does it accept the payment at the service, so a payment is never
// accepted before the POS has it. The POS then pushes the check again with
// its new outstanding amount, as it would after any change. A heartbeat
// goes out when Run starts and every HeartbeatInterval (5 minutes).
//
// With a Store (possync/outbox keeps one in a SQLite file on the POS
// machine), the agent keeps its state across restarts: checks not yet
// delivered, and payments saved but not yet accepted. After a restart it
// delivers those checks and accepts those payments without calling
// SavePayment again. Push itself never waits for the disk: a background
// writer commits pushed checks within milliseconds, in batches, so a crash
// can lose at most the pushes of that instant (which the POS re-sends on
// the check's next save anyway). Saved payments are recorded synchronously,
// before the accept. The SQLite store lives in its own package so that
// this one, whose types other packages share, needs no cgo.
//
// Run stops when its context is cancelled: it goes on delivering for up to
// DrainTimeout unless the service is failing, writes what is left to the
// Store and returns. Flush waits until the checks pushed so far have been
// delivered (for a script or a test that reads them back, or a POS closing
// for the night), and says which the service refused. WaitPayments waits
// until given payments, or every payment due, are saved and accepted, and
// WaitIdle until both. Stats reports what the agent has done, on one line
// when printed.
//
// Pushes go without an Idempotency-Key: a push carries the check's whole
// state and the agent never has two sends of one check in flight, so
// repeating one is harmless, and a key would only make the service record
// every push for replay. One case is not covered: a push that outlives
// RequestTimeout on the client but still commits on the service after a
// newer state of the check was delivered would leave the older state
// stored until the check's next push.
//
// # Validation
//
// Check.Validate applies the service's value rules, and returns a
// *client.ValidationError naming each failing field (positive checkNumber
// and locationId; tableNumber, guests, quantities and the check's amounts
// and item prices not negative; status open, closed or void; modifiers and
// categories nested at most MaxNesting levels). The service also requires
// every field that is not nullable to be present and non-null, and money
// to have at most two decimals; its 400002 errors name each failing field
// by JSON path ("menuItems[0].quantity"), see client.APIError.FieldErrors.
package possync
