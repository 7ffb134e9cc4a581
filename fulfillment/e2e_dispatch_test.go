package fulfillment_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

var collect = fulfillment.CollectionByCustomer{CollectionTime: e2eTime, Name: "Ann", Phone: "1", OrderReference: "K-9"}

// The first send is carried out by the POS but its answer is lost (503):
// the dispatcher retries, the POS's handler de-duplicates by orderId, and
// the order ends accepted with the posOrderId of the one order created.
func TestDispatchRetriesAfter503E2E(t *testing.T) {
	t.Parallel()
	e := startEnv(t, fastRetries)
	e.pos.loseFirst.Store(1)
	created := e.order(t)
	if err := e.svc.Set(ctxT(t), created.OrderID, collect); err != nil {
		t.Fatal(err)
	}
	o := e.waitSettled(t, created.OrderID)
	if o.Status != fulfillment.StatusAcceptedByPOS || o.POSOrderID == nil || *o.POSOrderID != "POS-1" {
		t.Fatalf("order = %+v, want accepted_by_pos with POS-1", o)
	}
	if n := e.pos.posts.Load(); n != 2 {
		t.Errorf("POST /orders received %d times, want 2", n)
	}
	if n := len(e.pos.createCalls()); n != 1 {
		t.Errorf("CreateOrder called %d times, want 1 (the resend is de-duplicated)", n)
	}
	want := []string{"created", "fulfillment_set", "sent_to_pos", "sent_to_pos", "accepted_by_pos"}
	if diff := cmp.Diff(want, e.events(t, created.OrderID)); diff != "" {
		t.Errorf("order_events (-want +got):\n%s", diff)
	}
}

// A 4xx from the POS is final: the order fails after one try.
func TestDispatchRejectedE2E(t *testing.T) {
	t.Parallel()
	e := startEnv(t, fastRetries)
	e.pos.reject.Store(true)
	created := e.order(t)
	if err := e.svc.Set(ctxT(t), created.OrderID, fulfillment.OrderAtTable{TableNumber: 7}); err != nil {
		t.Fatal(err)
	}
	o := e.waitSettled(t, created.OrderID)
	if o.Status != fulfillment.StatusFailed || o.POSOrderID != nil {
		t.Fatalf("order = %+v, want failed", o)
	}
	if n := e.pos.posts.Load(); n != 1 {
		t.Errorf("POST /orders received %d times, want 1 (no retry after a 4xx)", n)
	}
	want := []string{"created", "fulfillment_set", "sent_to_pos", "failed"}
	if diff := cmp.Diff(want, e.events(t, created.OrderID)); diff != "" {
		t.Errorf("order_events (-want +got):\n%s", diff)
	}
}

// A POS that always answers 503 gets exactly ten tries.
func TestDispatchGivesUpAfterTenTriesE2E(t *testing.T) {
	t.Parallel()
	e := startEnv(t, func(c *refservertest.Options) {
		c.OrderRetryBase = time.Millisecond
		c.OrderRetryMax = 4 * time.Millisecond
	})
	e.pos.always503.Store(true)
	created := e.order(t)
	if err := e.svc.Set(ctxT(t), created.OrderID, collect); err != nil {
		t.Fatal(err)
	}
	o := e.waitSettled(t, created.OrderID)
	if o.Status != fulfillment.StatusFailed {
		t.Fatalf("order = %+v, want failed", o)
	}
	if n := e.pos.posts.Load(); n != 10 {
		t.Errorf("POST /orders received %d times, want 10", n)
	}
	ev := e.events(t, created.OrderID)
	if ev[len(ev)-1] != "failed" || countOf(ev, "sent_to_pos") != 10 {
		t.Errorf("order_events = %v", ev)
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

// An order waiting for its retry survives a restart and is delivered by
// the new server.
func TestDispatchResumesAfterRestartE2E(t *testing.T) {
	t.Parallel()
	// Retries an hour apart: nothing but the restarted server's poll of the
	// database (after the clock is moved) can deliver the order.
	e := startEnv(t, func(c *refservertest.Options) {
		c.OrderRetryBase = time.Hour
		c.OrderRetryMax = 2 * time.Hour
	})
	e.pos.loseFirst.Store(1)
	created := e.order(t)
	if err := e.svc.Set(ctxT(t), created.OrderID, collect); err != nil {
		t.Fatal(err)
	}
	// Wait until the failed first try has been recorded.
	sdktest.Eventually(t, "the retry to be scheduled", func() bool {
		return countOf(e.events(t, created.OrderID), "sent_to_pos") >= 2
	})
	ctx := ctxT(t)
	if o, err := e.svc.Order(ctx, created.OrderID); err != nil || o.Status != fulfillment.StatusSentToPOS {
		t.Fatalf("before restart: %+v, %v", o, err)
	}

	e.Restart(t)
	e.AdvanceClock(t, time.Hour+time.Second)

	o := e.waitSettled(t, created.OrderID)
	if o.Status != fulfillment.StatusAcceptedByPOS || o.POSOrderID == nil || *o.POSOrderID != "POS-1" {
		t.Fatalf("after restart: %+v", o)
	}
	if n := len(e.pos.createCalls()); n != 1 {
		t.Errorf("CreateOrder called %d times, want 1", n)
	}
	if ev := e.events(t, created.OrderID); !slices.Equal(ev[len(ev)-1:], []string{"accepted_by_pos"}) {
		t.Errorf("order_events = %v", ev)
	}
}
