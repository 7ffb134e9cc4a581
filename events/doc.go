// Package events receives what happens at the service as it happens:
// payments made and accepted, bills closed, orders moving towards the POS,
// locations going online or offline, a universal POS changing health. It
// has the two ways the service offers, and the subscription calls:
//
//   - Webhooks: the service POSTs each event to a URL of yours, signed
//     with the webhook's secret. NewHandler is the receiving end, an
//     http.Handler that checks the signature, decodes the event and calls
//     your function; Verifier does the checking alone, for other routers.
//   - The feed: Service.Feed reads GET /v1/events page after page (All)
//     or follows it as it grows (Follow), and remembers its Cursor so a
//     consumer can resume where it stopped.
//   - Subscriptions: Service.CreateWebhook, ListWebhooks, DeleteWebhook,
//     PingWebhook, ListDeliveries and Redeliver.
//
// The Service's calls take a vendor API key, like package bills, and see
// the key's own webhooks and the events of the locations in its scope:
//
//	c, err := client.New(client.WithBaseURL(baseURL), client.WithAPIKey(apiKey))
//	if err != nil { ... }
//	svc := events.NewService(c)
//	hook, err := svc.CreateWebhook(ctx, events.CreateWebhookRequest{
//		URL:    "https://example.com/hooks/hospo",
//		Events: []events.Type{events.TypePaymentAccepted, events.TypeBillClosed},
//	})
//	// hook.Secret is shown once: store it for the receiver.
//
// # Receiving webhooks
//
//	http.Handle("POST /hooks/hospo", events.NewHandler([]string{secret},
//		func(ctx context.Context, ev events.Event) error {
//			switch ev.Type {
//			case events.TypePaymentAccepted:
//				p, err := ev.Payment()
//				...
//			}
//			return nil // 2xx: delivered; an error makes the service retry
//		}))
//
// A delivery's Hospo-Signature header is "t=<unix seconds>,v1=<hex>",
// where v1 is the HMAC-SHA256, keyed with the secret string exactly as
// CreateWebhook returned it ("whsec_" included), of "<t>.<body>". The
// Verifier accepts it when a v1 matches the body under one of its secrets
// (compared in constant time) and t is within 5 minutes of the clock
// (WithTolerance, WithClock). Several secrets let a receiver accept the old
// and the new secret while a webhook is being replaced. Sign makes the
// header, to test a receiver. The scheme is Stripe's, so verifiers written
// for Stripe-Signature accept the header's value too.
//
// Each delivery also carries the Standard Webhooks headers (webhook-id,
// the event's id; webhook-timestamp; webhook-signature, see SignStandard),
// so that receivers in other languages can verify with that
// specification's libraries, given the same "whsec_..." secret.
//
// The service delivers at least once, in no guaranteed order, and retries
// a failed delivery (any answer but a 2xx within 10 seconds) with growing
// waits, 15 attempts in all. Deduplicate by Event.ID, and keep the function
// short: hand slow work to a queue.
//
// # Reading the feed
//
//	feed := svc.Feed(events.FeedQuery{After: saved, Types: []events.Type{events.TypeBillClosed}})
//	for ev, err := range feed.Follow(ctx) { // until ctx ends
//		if err != nil {
//			return err
//		}
//		handle(ev)
//		saved = ev.Cursor
//	}
//
// The feed holds the events of the last 7 days, oldest first. A cursor
// older than that, or one kept across a sandbox reset or a snapshot
// restore (after which sequence numbers are reused, so the cursor would
// skip events), is a 400003 that matches ErrStaleCursor: read the feed
// again without a cursor. A Feed does so on its next iteration.
//
// # Events
//
// Every event is an Event envelope: ID, Type, CreatedAt, LocationID and
// Data. Decode returns the data as the type's Go value (wallet.Payment for
// the payment events, BillClosed, OrderStatusChanged, LocationStatus,
// POSHealthChanged, Ping); each type also has an accessor (Payment,
// BillClosed, ...). An event type the SDK does not know yet decodes as an
// Event with its Data, and Decode says ErrUnknownType.
//
// # Errors
//
// The Service's failures are *client.APIError values matched with
// errors.Is: client.ErrValidation (400002: a bad URL or event type),
// client.ErrNotFound (another key's webhook), client.ErrInvalidQuery (a
// bad cursor, limit or wait), client.ErrAPIKeyMissing and
// client.ErrAPIKeyInvalid. CreateWebhook checks its request first
// (CreateWebhookRequest.Validate) and returns a *client.ValidationError
// without sending it. Verify's refusals wrap ErrNoSignature,
// ErrMalformedSignature, ErrNoMatchingSignature and
// ErrTimestampOutOfTolerance.
package events
