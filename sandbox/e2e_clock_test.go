package sandbox_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// rounds is how many times in a row each test below advances the clock
// and reads the outcome at once: enough that a clock call answering
// before the work it made due would show.
const rounds = 100

// startFrozenSandbox starts a sandbox whose real time stands still, so
// that its virtual clock moves only when advanced: a retry due a second
// after a failure comes due by the advance past it, never by the time a
// busy machine takes between two calls.
func startFrozenSandbox(t *testing.T) (*refservertest.Env, *sandbox.Service) {
	t.Helper()
	frozen := time.Now()
	env := refservertest.Start(t, func(c *refservertest.Options) { c.Now = func() time.Time { return frozen } })
	return env, sandbox.NewService(env.Client(t, client.WithAdminKey(env.AdminKey)))
}

// AdvanceClock answers once the diners' round it made due has committed:
// the payments are in the POS's poll right after it, with no waiting.
func TestE2EAdvanceClockWaitsForDiners(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()
	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Clockwork Diner"})
	if _, err := sb.SetDiners(ctx, v.ID, sandbox.DinersRequest{EverySeconds: 60, Split: 1}); err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= rounds; i++ {
		v.Heartbeat(t)
		v.PushCheck(t, v.OpenCheck(i, "5.00"))
		if _, err := sb.AdvanceClock(ctx, time.Minute); err != nil {
			t.Fatal(err)
		}
		if amounts, _ := pendingOf(t, v, i); len(amounts) != 1 || amounts[0] != "5.00" {
			t.Fatalf("round %d: check %d has payments %v right after the advance, want one of 5.00", i, i, amounts)
		}
	}
}

// A POS agent waits for the payments an advance made: the diners' round
// is paid by the time AdvanceClock returns, and WaitPayments returns once
// the agent has saved and accepted it.
func TestE2EAgentWaitsForTheDinersPayments(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()
	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Waiting Room"})
	pos := &till{checks: map[int64]*possync.Check{}}
	agent, err := possync.NewAgent(v.POS, possync.AgentConfig{
		LocationID: v.ID, SavePayment: pos.save,
		PollInterval: time.Hour, HeartbeatInterval: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	pos.agent = agent
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- agent.Run(runCtx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	if _, err := sb.SetDiners(ctx, v.ID, sandbox.DinersRequest{EverySeconds: 60, Split: 2}); err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	for i := int64(1); i <= 5; i++ {
		v.Heartbeat(t)
		check := v.OpenCheck(i, "9.00")
		check.LocationID = v.ID
		pos.mu.Lock()
		pos.checks[i] = check.Clone()
		pos.mu.Unlock()
		if err := agent.Push(check.Clone()); err != nil {
			t.Fatal(err)
		}
		if err := agent.WaitIdle(wctx); err != nil {
			t.Fatal(err)
		}
		if _, err := sb.AdvanceClock(ctx, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := agent.WaitPayments(wctx); err != nil {
			t.Fatal(err)
		}
		if saved := pos.savedPayments(); len(saved) != int(2*i) {
			t.Fatalf("round %d: the POS saved %d payments, want %d", i, len(saved), 2*i)
		}
		if amounts, _ := pendingOf(t, v, i); len(amounts) != 0 {
			t.Fatalf("round %d: payments %v still wait for the POS", i, amounts)
		}
	}
}

// AdvanceClock answers once the webhook retries it made due have been
// tried and recorded: a receiver that fails each event's first attempt
// and takes its second shows the delivery delivered right after the
// advance past the 1 s backoff.
func TestE2EAdvanceClockWaitsForWebhookRetries(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
	)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(events.HeaderEventID)
		mu.Lock()
		again := seen[id]
		seen[id] = true
		mu.Unlock()
		if !again {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer receiver.Close()

	env, sb := startFrozenSandbox(t)
	ctx := context.Background()
	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Retry Bar"})
	hooks := events.NewService(env.Client(t, client.WithAPIKey(v.NewAPIKey(t))))
	wh, err := hooks.CreateWebhook(ctx, events.CreateWebhookRequest{URL: receiver.URL, Events: []events.Type{events.TypePing}})
	if err != nil {
		t.Fatal(err)
	}
	id := wh.Webhook.WebhookID
	latest := func() events.Delivery {
		t.Helper()
		ds, err := hooks.ListDeliveries(ctx, id, events.DeliveryQuery{Limit: 1})
		if err != nil || len(ds) != 1 {
			t.Fatalf("deliveries: %v, %v", ds, err)
		}
		return ds[0]
	}
	for i := 1; i <= rounds; i++ {
		if err := hooks.PingWebhook(ctx, id); err != nil {
			t.Fatal(err)
		}
		// An advance of nothing waits for the first attempt, due now.
		if _, err := sb.AdvanceClock(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if d := latest(); d.Status != events.DeliveryPending || d.Attempts != 1 {
			t.Fatalf("round %d: after the first attempt the delivery is %s with %d attempts, want pending with 1", i, d.Status, d.Attempts)
		}
		if _, err := sb.AdvanceClock(ctx, time.Second); err != nil {
			t.Fatal(err)
		}
		if d := latest(); d.Status != events.DeliveryDelivered || d.Attempts != 2 {
			t.Fatalf("round %d: right after the advance the delivery is %s with %d attempts, want delivered with 2", i, d.Status, d.Attempts)
		}
	}
}

// AdvanceClock answers once the order resends it made due have been sent
// and recorded: with a demo POS that fails each order's first send, the
// order is accepted right after the advance past the 1 s backoff.
func TestE2EAdvanceClockWaitsForOrderResends(t *testing.T) {
	t.Parallel()
	env, sb := startFrozenSandbox(t)
	ctx := context.Background()
	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Resend Kitchen"})
	if _, err := sb.SetDemoPOS(ctx, v.ID, sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSAccept}); err != nil {
		t.Fatal(err)
	}
	env.WaitForMenu(t, v.ID)
	d := env.NewDiner(t)
	for i := 1; i <= rounds; i++ {
		if _, err := sb.SetDemoPOS(ctx, v.ID, sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSFailThenAccept, FailCount: 1}); err != nil {
			t.Fatal(err)
		}
		o, err := d.Order.CreateOrder(ctx, fulfillment.OrderRequest{LocationID: v.ID, Items: []fulfillment.OrderLine{{PLU: "DRK-002", Quantity: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Order.Set(ctx, o.OrderID, fulfillment.OrderAtTable{TableNumber: 3}); err != nil {
			t.Fatal(err)
		}
		if _, err := sb.AdvanceClock(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if got, err := d.Order.Order(ctx, o.OrderID); err != nil || got.Status != fulfillment.StatusSentToPOS {
			t.Fatalf("round %d: after the first send the order is %q (%v), want %q", i, got.Status, err, fulfillment.StatusSentToPOS)
		}
		if _, err := sb.AdvanceClock(ctx, time.Second); err != nil {
			t.Fatal(err)
		}
		if got, err := d.Order.Order(ctx, o.OrderID); err != nil || got.Status != fulfillment.StatusAcceptedByPOS {
			t.Fatalf("round %d: right after the advance the order is %q (%v), want %q", i, got.Status, err, fulfillment.StatusAcceptedByPOS)
		}
	}
}
