package possync_test

// End-to-end tests: the SDK and the Agent against an in-process reference
// server (refservertest), with a user paying through the wallet API.

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/checkfixture"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/possync/outbox"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// site is one venue of a test server with a diner holding a providerB
// card who can pay there.
type site struct {
	*refservertest.Venue
	env   *refservertest.Env
	diner *refservertest.Diner
}

func newSite(t *testing.T, env *refservertest.Env) *site {
	t.Helper()
	if env == nil {
		env = refservertest.Start(t)
	}
	d := env.NewDiner(t)
	d.AddCard(t, "4111111111111111", wallet.ProviderB)
	return &site{Venue: env.NewVenue(t, refservertest.VenueConfig{Name: "Trattoria"}), env: env, diner: d}
}

// bill reads a bill record of location loc through the bills API (GET
// /v3/bill/{id}).
func bill(t *testing.T, env *refservertest.Env, loc int64, billID string) *bills.Bill {
	t.Helper()
	b, err := bills.NewService(env.Client(t, client.WithAPIKey(env.NewAPIKey(t, loc)))).Get(context.Background(), billID, nil)
	if err != nil {
		t.Fatalf("GET /v3/bill/%s: %v", billID, err)
	}
	return b
}

// loadCheck returns the shared fixture check for location loc.
func loadCheck(t *testing.T, loc int64) *possync.Check {
	t.Helper()
	c := checkfixture.Decode[possync.Check](t)
	c.LocationID = loc
	return c
}

// openOutbox opens the durable store of the agent of location loc.
func openOutbox(t *testing.T, path string, loc int64) *outbox.SQLite {
	t.Helper()
	o, err := outbox.Open(path, loc)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// fastAgent is an AgentConfig for tests: quick retries, polls on demand.
func fastAgent(loc int64, save possync.SavePaymentFunc) possync.AgentConfig {
	return possync.AgentConfig{
		LocationID:        loc,
		SavePayment:       save,
		PollInterval:      time.Hour, // the tests poll with PollNow
		HeartbeatInterval: time.Hour,
		RetryMin:          2 * time.Millisecond,
		RetryMax:          20 * time.Millisecond,
		DrainTimeout:      5 * time.Second,
	}
}

// posTill is a minimal POS: it holds checks and applies saved payments.
type posTill struct {
	mu     sync.Mutex
	checks map[int64]*possync.Check
	saves  map[int64]int // payment id -> SavePayment calls
	agent  *possync.Agent
}

func newTill() *posTill {
	return &posTill{checks: map[int64]*possync.Check{}, saves: map[int64]int{}}
}

// SavePayment records the payment on its check and pushes the check's new
// state, as a POS does after any change.
func (p *posTill) SavePayment(_ context.Context, checkNumber int64, pay possync.PaymentNotification) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.checks[checkNumber]
	if c == nil {
		return errors.New("no such check on this POS")
	}
	p.saves[pay.PaymentID]++
	c.OutstandingAmount = c.OutstandingAmount.Sub(pay.PaymentExTip)
	c.TipsPaid = c.TipsPaid.Add(pay.Tip)
	if c.OutstandingAmount.IsZero() {
		c.Status = possync.CheckClosed
	}
	return p.agent.Push(c)
}

func (p *posTill) savesOf(id int64) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.saves[id]
}

// TestPayAtTable runs the whole cycle: the POS pushes a check, a user pays
// part of it, the agent polls, saves the payment on the POS and accepts
// it, the poll is then empty, and the check is re-pushed with the new
// outstanding amount.
func TestPayAtTable(t *testing.T) {
	t.Parallel()
	s := newSite(t, nil)
	till := newTill()
	agent, err := possync.NewAgent(s.POS, fastAgent(s.ID, till.SavePayment))
	if err != nil {
		t.Fatal(err)
	}
	till.agent = agent
	check := loadCheck(t, s.ID)
	till.checks[check.CheckNumber] = check
	possync.StartAgent(t, agent)
	if err := agent.Push(check.Clone()); err != nil {
		t.Fatal(err)
	}
	sdktest.Eventually(t, "the check and a heartbeat", func() bool {
		st := agent.Stats()
		return st.Sent == 1 && st.Queued == 0 && !st.LastHeartbeat.IsZero()
	})

	payment := s.diner.Pay(t, s.Venue, check.CheckNumber, "50.00", "5.00")
	if payment.Status != wallet.PaymentPending || payment.BillID == "" {
		t.Fatalf("payment %+v", payment)
	}
	agent.PollNow()
	sdktest.Eventually(t, "the payment to be accepted and the check re-pushed", func() bool {
		st := agent.Stats()
		return st.PaymentsAccepted == 1 && st.Sent == 2 && st.Queued == 0
	})
	if n := till.savesOf(payment.PaymentID); n != 1 {
		t.Errorf("SavePayment called %d times", n)
	}
	got, err := s.diner.Wallet.GetPayment(context.Background(), payment.PaymentID)
	if err != nil || got.Status != wallet.PaymentAccepted {
		t.Errorf("payment after accept: %+v, %v", got, err)
	}
	pending, err := s.POS.Payments(context.Background(), s.ID)
	if err != nil || len(pending) != 0 {
		t.Errorf("poll after accept: %v, %v; want empty", pending, err)
	}
	b := bill(t, s.env, s.ID, payment.BillID)
	if b.OutstandingAmount != client.MustParseMoney("24.10") || b.TipsPaid != client.MustParseMoney("5.00") {
		t.Errorf("bill after re-push: outstanding %v tips %v, want 24.10 and 5.00", b.OutstandingAmount, b.TipsPaid)
	}

	// The rest of the bill: paid in full, the POS closes the check.
	last := s.diner.Pay(t, s.Venue, check.CheckNumber, "24.10", "0")
	agent.PollNow()
	sdktest.Eventually(t, "the second payment", func() bool {
		st := agent.Stats()
		return st.PaymentsAccepted == 2 && st.Sent == 3 && st.Queued == 0
	})
	if b := bill(t, s.env, s.ID, last.BillID); b.Status != "closed" || !b.OutstandingAmount.IsZero() {
		t.Errorf("bill after paying in full: %+v", b)
	}
}

// TestAgentServiceOutage pushes checks while the service fails (injected
// 503s, then responses lost after the work was committed, then a server
// restart) and checks that every check arrives in its final state.
func TestAgentServiceOutage(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Bistro", Gateway: wallet.ProviderD})
	faults := func(body map[string]any) {
		t.Helper()
		if code := env.AdminDo(t, http.MethodPost, "/sandbox/faults", body, nil); code != 201 && code != 200 {
			t.Fatalf("POST /sandbox/faults: %d", code)
		}
	}
	faults(map[string]any{"method": "POST", "pathPrefix": "/v1/pos/push-pull/check", "status": 503, "count": 25})
	faults(map[string]any{"method": "POST", "pathPrefix": "/v1/pos/push-pull/check", "status": 502, "count": 5, "afterCommit": true})

	agent, err := possync.NewAgent(v.POS, fastAgent(v.ID, func(context.Context, int64, possync.PaymentNotification) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	stop := possync.StartAgent(t, agent)
	const checks = 12
	final := map[int64]client.Money{}
	for round := 1; round <= 3; round++ {
		for n := int64(1); n <= checks; n++ {
			c := loadCheck(t, v.ID)
			c.CheckNumber = 500 + n
			c.OutstandingAmount = client.MoneyFromCents(n*100 + int64(round))
			if round == 3 {
				c.Status = possync.CheckClosed
			}
			if err := agent.Push(c); err != nil {
				t.Fatalf("Push during the outage: %v", err)
			}
			final[c.CheckNumber] = c.OutstandingAmount
		}
		if round == 2 {
			// A restart clears the injected faults, so make sure the agent
			// has met them first.
			sdktest.Eventually(t, "the agent to meet the outage", func() bool { return agent.Stats().Retried > 0 })
			env.Restart(t) // the service goes away and comes back
		}
	}
	flushAgent(t, agent)
	stop()
	st := agent.Stats()
	if st.Failed != 0 || st.Retried == 0 {
		t.Errorf("Failed %d Retried %d: want no check dropped, and retries", st.Failed, st.Retried)
	}

	// Every check is stored in its final state: the closed-bills listing
	// shows each one, with the last outstanding amount pushed.
	stored := map[int64]client.Money{}
	for _, id := range closedBills(t, env, v.ID) {
		b := bill(t, env, v.ID, id)
		stored[b.CheckNumber] = b.OutstandingAmount
	}
	if len(stored) != checks {
		t.Errorf("%d closed bills, want %d", len(stored), checks)
	}
	for n, want := range final {
		if got, ok := stored[n]; !ok || got != want {
			t.Errorf("check %d: stored outstanding %v (found %v), want the final %v", n, got, ok, want)
		}
	}
}

// closedBills lists the ids of the location's closed bills of the last
// hour (GET /v3/location/{id}/bills/closed).
func closedBills(t *testing.T, env *refservertest.Env, loc int64) []string {
	t.Helper()
	now := time.Now()
	list, err := bills.NewService(env.Client(t, client.WithAPIKey(env.NewAPIKey(t, loc)))).
		ListClosed(context.Background(), loc, now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatalf("closed bills: %v", err)
	}
	var ids []string
	for _, b := range list {
		ids = append(ids, b.BillID)
	}
	return ids
}

// crashBeforeAccept wraps the service so that the first accept never
// reaches it: as if the POS process died right after SavePayment.
type crashBeforeAccept struct {
	possync.API
	crash func()
}

func (c crashBeforeAccept) AcceptPayment(context.Context, int64, ...client.Option) (possync.AcceptResult, error) {
	c.crash()
	return possync.AcceptResult{}, errors.New("killed")
}

// TestAgentRestartBetweenSaveAndAccept kills the agent after SavePayment
// and before accept-payment, and restarts it on the same outbox file: the
// payment is accepted once and SavePayment is not called again.
func TestAgentRestartBetweenSaveAndAccept(t *testing.T) {
	t.Parallel()
	s := newSite(t, nil)
	outboxPath := filepath.Join(t.TempDir(), "pos-outbox.db")
	till := newTill()
	check := loadCheck(t, s.ID)
	till.checks[check.CheckNumber] = check

	// First life: deliver the check, heartbeat, then die at the accept.
	ctx, kill := context.WithCancel(context.Background())
	cfg := fastAgent(s.ID, till.SavePayment)
	cfg.Store = openOutbox(t, outboxPath, s.ID)
	first, err := possync.NewAgent(crashBeforeAccept{API: s.POS, crash: kill}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	till.agent = first
	if err := first.Push(check.Clone()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- first.Run(ctx) }()
	sdktest.Eventually(t, "the check and a heartbeat", func() bool {
		st := first.Stats()
		return st.Sent == 1 && st.Queued == 0 && !st.LastHeartbeat.IsZero()
	})
	payment := s.diner.Pay(t, s.Venue, check.CheckNumber, "10.00", "1.00")
	first.PollNow()
	if err := <-done; err != nil { // killed inside the accept
		t.Fatal(err)
	}
	if n := till.savesOf(payment.PaymentID); n != 1 {
		t.Fatalf("SavePayment called %d times before the crash", n)
	}
	if got, _ := s.diner.Wallet.GetPayment(context.Background(), payment.PaymentID); got.Status != wallet.PaymentPending {
		t.Fatalf("payment %s before the restart, want pending", got.Status)
	}

	// Second life on the same outbox file.
	cfg.Store = openOutbox(t, outboxPath, s.ID)
	second, err := possync.NewAgent(s.POS, cfg)
	if err != nil {
		t.Fatal(err)
	}
	till.mu.Lock()
	till.agent = second
	till.mu.Unlock()
	possync.StartAgent(t, second) // polls at once
	sdktest.Eventually(t, "the accept after the restart", func() bool { return second.Stats().PaymentsAccepted == 1 })
	if n := till.savesOf(payment.PaymentID); n != 1 {
		t.Errorf("SavePayment called %d times across the restart, want 1", n)
	}
	if st := second.Stats(); st.PaymentsSaved != 0 {
		t.Errorf("second life saved %d payments", st.PaymentsSaved)
	}
	if got, _ := s.diner.Wallet.GetPayment(context.Background(), payment.PaymentID); got.Status != wallet.PaymentAccepted {
		t.Errorf("payment %s after the restart, want accepted", got.Status)
	}
	// The check re-pushed by SavePayment (outstanding reduced) reached the
	// service: in the first life's drain, or from the outbox in the second.
	flushAgent(t, second)
	if b := bill(t, s.env, s.ID, payment.BillID); b.OutstandingAmount != client.MustParseMoney("64.10") {
		t.Errorf("bill outstanding %v, want 64.10", b.OutstandingAmount)
	}
}

// TestAgentWrongCredentials: an agent whose token belongs to another
// location gets 403001s; it keeps the check rather than dropping it, and
// says why in Stats.
func TestAgentWrongCredentials(t *testing.T) {
	t.Parallel()
	s := newSite(t, nil)
	otherLoc, otherTok := s.env.NewLocation(t, "Elsewhere", "providerB")

	// The other location's POS cannot see or accept this location's payments.
	check := loadCheck(t, s.ID)
	if _, err := s.POS.Heartbeat(context.Background(), s.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.POS.PushCheck(context.Background(), check); err != nil {
		t.Fatal(err)
	}
	payment := s.diner.Pay(t, s.Venue, check.CheckNumber, "1.00", "0")
	other := possync.NewService(s.env.Client(t, client.WithAccessToken(otherTok)))
	if _, err := other.Payments(context.Background(), s.ID); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("other POS polling this location: %v, want 403001", err)
	}
	if _, err := other.AcceptPayment(context.Background(), payment.PaymentID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("other POS accepting this location's payment: %v, want 404001", err)
	}
	if ps, err := other.Payments(context.Background(), otherLoc); err != nil || len(ps) != 0 {
		t.Errorf("other POS's own poll: %v %v", ps, err)
	}

	// An agent for this location holding the other location's token.
	agent, err := possync.NewAgent(other, fastAgent(s.ID, func(context.Context, int64, possync.PaymentNotification) error {
		t.Error("SavePayment called with a token of another location")
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.Push(check); err != nil {
		t.Fatal(err)
	}
	possync.StartAgent(t, agent)
	sdktest.Eventually(t, "refusals", func() bool { return agent.Stats().Retried >= 2 })
	st := agent.Stats()
	if st.Queued != 1 || st.Failed != 0 || !errors.Is(st.LastError, client.ErrForbidden) {
		t.Errorf("Queued %d Failed %d LastError %v", st.Queued, st.Failed, st.LastError)
	}
	// And the payment is still there for the right POS.
	if ps, err := s.POS.Payments(context.Background(), s.ID); err != nil || len(ps[check.CheckNumber]) != 1 {
		t.Errorf("payments %v, %v", ps, err)
	}
}
