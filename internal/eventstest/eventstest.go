// Package eventstest holds what the end-to-end tests of webhooks share,
// whichever server they run against: the in-process one (events) or the
// binary (e2e).
package eventstest

import (
	"testing"

	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// WaitDelivery waits until the delivery of event eventID to the webhook
// satisfies cond, and returns it. It lists the deliveries through svc,
// whose key must see the webhook, and fails t when the list fails.
//
// A test needs it after its receiver was called: the server records an
// attempt once the receiver has answered, so what the receiver saw can be
// ahead of what the list says.
func WaitDelivery(t testing.TB, svc *events.Service, webhookID, eventID string, cond func(events.Delivery) bool) events.Delivery {
	t.Helper()
	var d events.Delivery
	sdktest.Eventually(t, "the delivery of "+eventID, func() bool {
		ds, err := svc.ListDeliveries(t.Context(), webhookID, events.DeliveryQuery{})
		if err != nil {
			t.Fatalf("ListDeliveries: %v", err)
		}
		for _, x := range ds {
			if x.EventID == eventID {
				d = x
				return cond(x)
			}
		}
		return false
	})
	return d
}
