package sandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// End-to-end tests of the sandbox playing the other side (contract.md
// section 9): the diner who pays, diners on a timer and the magic cards.
// The demo POS modes are in e2e_demopos_test.go.

// money is a decimal as client.Money.
func money(s string) client.Money { return client.MustParseMoney(s) }

// moneyPtr is a decimal as a *client.Money.
func moneyPtr(s string) *client.Money { m := money(s); return &m }

// pendingOf returns the amounts and tips of the payments in the venue's
// poll for check number, oldest first.
func pendingOf(t *testing.T, v *refservertest.Venue, number int64) (amounts, tips []string) {
	t.Helper()
	pending, err := v.POS.Payments(context.Background(), v.ID)
	if err != nil {
		t.Fatalf("payments poll: %v", err)
	}
	for _, p := range pending[number] {
		amounts = append(amounts, p.PaymentExTip.String())
		tips = append(tips, p.Tip.String())
	}
	return amounts, tips
}

// till is a POS that holds checks and records the payments its agent
// saves, pushing each check's new state as a POS does.
type till struct {
	mu     sync.Mutex
	checks map[int64]*possync.Check
	saved  []possync.PaymentNotification
	agent  *possync.Agent
}

func (p *till) save(_ context.Context, checkNumber int64, pay possync.PaymentNotification) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.checks[checkNumber]
	if c == nil {
		return errors.New("no such check on this POS")
	}
	p.saved = append(p.saved, pay)
	c.OutstandingAmount = c.OutstandingAmount.Sub(pay.PaymentExTip)
	c.TipsPaid = c.TipsPaid.Add(pay.Tip)
	if c.OutstandingAmount.IsZero() {
		c.Status = possync.CheckClosed
	}
	return p.agent.Push(c.Clone())
}

func (p *till) savedPayments() []possync.PaymentNotification {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.saved)
}

// A diner's payment made through the sandbox reaches a running possync
// agent like any other: the agent saves it on its check and accepts it,
// and the check is pushed again, closed.
func TestE2EPayCheckReachesTheAgent(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Agent Bistro"})
	pos := &till{checks: map[int64]*possync.Check{}}
	agent, err := possync.NewAgent(v.POS, possync.AgentConfig{
		LocationID: v.ID, SavePayment: pos.save,
		PollInterval: time.Hour, HeartbeatInterval: time.Hour, // polled with PollNow
		RetryMin: 2 * time.Millisecond, RetryMax: 20 * time.Millisecond, DrainTimeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	pos.agent = agent
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- agent.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})

	check := v.OpenCheck(31, "42.50")
	check.LocationID = v.ID
	pos.checks[31] = check.Clone()
	if err := agent.Push(check.Clone()); err != nil {
		t.Fatal(err)
	}
	sdktest.Eventually(t, "the check and a heartbeat", func() bool {
		st := agent.Stats()
		return st.Sent == 1 && st.Queued == 0 && !st.LastHeartbeat.IsZero()
	})

	// No amount: the diner pays what the check owes.
	p, err := sb.PayCheck(ctx, v.ID, 31, sandbox.PayCheckRequest{Tip: moneyPtr("4.25")})
	if err != nil {
		t.Fatal(err)
	}
	if p.Amount != money("42.50") || p.Tip != money("4.25") || p.Status != wallet.PaymentPending || p.CheckNumber != 31 {
		t.Fatalf("payment = %+v", p)
	}
	wctx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	if err := agent.WaitPayments(wctx, p.PaymentID); err != nil {
		t.Fatal(err)
	}
	// Saving the payment pushed the check again; now that is sent too.
	if err := agent.WaitIdle(wctx); err != nil {
		t.Fatal(err)
	}
	if st := agent.Stats(); st.PaymentsAccepted != 1 || st.Sent != 2 || st.Queued != 0 {
		t.Errorf("stats after the waits: %+v, want 1 payment accepted and 2 checks sent", st)
	}
	saved := pos.savedPayments()
	if len(saved) != 1 || saved[0].PaymentID != p.PaymentID || saved[0].PaymentExTip != money("42.50") || saved[0].Tip != money("4.25") {
		t.Errorf("saved = %+v, want the diner's payment", saved)
	}
	if a, _ := pendingOf(t, v, 31); len(a) != 0 {
		t.Errorf("poll after accept: %v, want empty", a)
	}
	// The check is closed now: nothing is left to pay.
	if _, err := sb.PayCheck(ctx, v.ID, 31, sandbox.PayCheckRequest{}); !errors.Is(err, client.ErrAmountExceedsOutstanding) {
		t.Errorf("paying a paid check: err = %v, want 409002", err)
	}
}

// Every rule of a payment applies to the diner's, and a bad request
// changes nothing.
func TestE2EPayCheckRules(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()
	v := env.NewVenue(t, refservertest.VenueConfig{})
	v.PushCheck(t, v.OpenCheck(5, "10.00"))

	// The POS has never sent a heartbeat.
	if _, err := sb.PayCheck(ctx, v.ID, 5, sandbox.PayCheckRequest{}); !errors.Is(err, client.ErrLocationOffline) {
		t.Fatalf("offline location: err = %v, want 409003", err)
	}
	v.Heartbeat(t)
	var ae *client.APIError
	if _, err := sb.PayCheck(ctx, v.ID+1000, 5, sandbox.PayCheckRequest{}); !errors.As(err, &ae) || ae.Code != client.CodeNotFound || ae.Message != "Location not found." {
		t.Errorf("unknown location: err = %v, want 404001 Location not found.", err)
	}
	if _, err := sb.PayCheck(ctx, v.ID, 6, sandbox.PayCheckRequest{}); !errors.As(err, &ae) || ae.Code != client.CodeNotFound || ae.Message != "Check not found." {
		t.Errorf("unknown check: err = %v, want 404001 Check not found.", err)
	}
	if _, err := sb.PayCheck(ctx, v.ID, 5, sandbox.PayCheckRequest{Amount: moneyPtr("10.01")}); !errors.Is(err, client.ErrAmountExceedsOutstanding) {
		t.Errorf("too much: err = %v, want 409002", err)
	}
	_, err := sb.PayCheck(ctx, v.ID, 5, sandbox.PayCheckRequest{Amount: moneyPtr("0"), Tip: moneyPtr("-1.00")})
	if !errors.Is(err, client.ErrValidation) || !errors.As(err, &ae) {
		t.Fatalf("bad amount and tip: err = %v, want 400002", err)
	}
	if fe := ae.FieldErrors(); fe["amount"] == "" || fe["tip"] == "" {
		t.Errorf("field errors = %v, want amount and tip", fe)
	}
	if a, _ := pendingOf(t, v, 5); len(a) != 0 {
		t.Fatalf("refused payments left %v in the poll", a)
	}

	// A part, then the default: the rest, less what is pending.
	if _, err := sb.PayCheck(ctx, v.ID, 5, sandbox.PayCheckRequest{Amount: moneyPtr("2.50")}); err != nil {
		t.Fatal(err)
	}
	rest, err := sb.PayCheck(ctx, v.ID, 5, sandbox.PayCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if rest.Amount != money("7.50") || !rest.Tip.IsZero() {
		t.Errorf("default amount = %v tip %v, want 7.50 and no tip", rest.Amount, rest.Tip)
	}
	if _, err := sb.PayCheck(ctx, v.ID, 5, sandbox.PayCheckRequest{}); !errors.As(err, &ae) || ae.Code != client.CodeAmountExceedsOutstanding {
		t.Errorf("nothing left beyond the pending payments: err = %v, want 409002", err)
	}
	if a, _ := pendingOf(t, v, 5); !cmp.Equal(a, []string{"2.50", "7.50"}) {
		t.Errorf("poll = %v, want 2.50 and 7.50", a)
	}
}

// Diners on a timer pay when the virtual clock is advanced: split 3 of
// 10.00 is 3.33, 3.33 and 3.34, each with its 10% tip; a check with a
// payment pending is left alone; the settings survive a restart; stopping
// them stops the payments.
func TestE2EDinersSplitOnTheVirtualClock(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()
	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Timer Tavern"})
	v.Heartbeat(t)
	v.PushCheck(t, v.OpenCheck(1, "10.00"))

	if _, err := sb.Diners(ctx, v.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("diners before any: err = %v, want 404001", err)
	}
	set, err := sb.SetDiners(ctx, v.ID, sandbox.DinersRequest{EverySeconds: 120, Split: 3, TipPercent: 10})
	if err != nil {
		t.Fatal(err)
	}
	if set.EverySeconds != 120 || set.Split != 3 || set.TipPercent != 10 || set.LastRunAt != nil || set.LastError != nil {
		t.Errorf("diners = %+v", set)
	}
	env.Restart(t) // the settings are in the database
	got, err := sb.Diners(ctx, v.ID)
	if err != nil || !cmp.Equal(got, set) {
		t.Fatalf("diners after restart = %+v, %v; want %+v", got, err, set)
	}
	if a, _ := pendingOf(t, v, 1); len(a) != 0 {
		t.Fatalf("paid before the first round was due: %v", a)
	}

	if _, err := sb.AdvanceClock(ctx, 120*time.Second); err != nil {
		t.Fatal(err)
	}
	sdktest.Eventually(t, "the diners' first round", func() bool {
		a, _ := pendingOf(t, v, 1)
		return len(a) == 3
	})
	amounts, tips := pendingOf(t, v, 1)
	if !cmp.Equal(amounts, []string{"3.33", "3.33", "3.34"}) || !cmp.Equal(tips, []string{"0.33", "0.33", "0.33"}) {
		t.Errorf("payments = %v tips %v, want 3.33 3.33 3.34 with 0.33 each", amounts, tips)
	}

	// Another round: the check has payments pending, so it is left alone,
	// and a new check is paid in one go with the round's split.
	v.PushCheck(t, v.OpenCheck(2, "0.02"))
	first, err := sb.Diners(ctx, v.ID)
	if err != nil || first.LastRunAt == nil {
		t.Fatalf("diners after a round = %+v, %v", first, err)
	}
	if _, err := sb.AdvanceClock(ctx, 120*time.Second); err != nil {
		t.Fatal(err)
	}
	sdktest.Eventually(t, "the second round", func() bool {
		d, err := sb.Diners(ctx, v.ID)
		return err == nil && d.LastRunAt != nil && d.LastRunAt.After(first.LastRunAt.Time)
	})
	if a, _ := pendingOf(t, v, 1); len(a) != 3 {
		t.Errorf("check 1 has %d payments, want still 3", len(a))
	}
	if a, _ := pendingOf(t, v, 2); !cmp.Equal(a, []string{"0.01", "0.01"}) {
		t.Errorf("check 2 payments = %v, want two of 0.01 (no payment of zero)", a)
	}

	// A round the POS cannot take (offline) pays nothing and says why.
	v.AcceptAll(t)
	v.PushCheck(t, v.OpenCheck(3, "5.00"))
	if _, err := sb.AdvanceClock(ctx, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	sdktest.Eventually(t, "a failed round", func() bool {
		d, err := sb.Diners(ctx, v.ID)
		return err == nil && d.LastError != nil
	})
	if d, _ := sb.Diners(ctx, v.ID); *d.LastError != "Location offline." {
		t.Errorf("lastError = %q", *d.LastError)
	}

	if err := sb.StopDiners(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := sb.Diners(ctx, v.ID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("diners after stop: err = %v, want 404001", err)
	}
	if err := sb.StopDiners(ctx, v.ID); err != nil {
		t.Errorf("stopping twice: %v", err)
	}
}

// Bad diners settings are a 400002 naming each field, and change nothing.
func TestE2EDinersBadInput(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()
	v := env.NewVenue(t, refservertest.VenueConfig{})
	want, err := sb.SetDiners(ctx, v.ID, sandbox.DinersRequest{EverySeconds: 30, Split: 2, TipPercent: 5})
	if err != nil {
		t.Fatal(err)
	}

	var out struct {
		Code        client.Code       `json:"code"`
		ContextData map[string]string `json:"contextData"`
	}
	status := env.AdminDo(t, "PUT", "/sandbox/locations/"+strconv.FormatInt(v.ID, 10)+"/diners",
		map[string]any{"everySeconds": 0, "split": 5, "tipPercent": 31}, &out)
	if status != 400 || out.Code != client.CodeValidation {
		t.Fatalf("status %d code %d, want 400002", status, out.Code)
	}
	if out.ContextData["everySeconds"] == "" || out.ContextData["split"] == "" || out.ContextData["tipPercent"] == "" {
		t.Errorf("contextData = %v, want everySeconds, split and tipPercent", out.ContextData)
	}
	if _, err := sb.SetDiners(ctx, v.ID, sandbox.DinersRequest{}); !errors.Is(err, client.ErrValidation) {
		t.Errorf("no everySeconds: err = %v, want 400002", err)
	}
	if _, err := sb.SetDiners(ctx, v.ID+1000, sandbox.DinersRequest{EverySeconds: 30}); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("unknown location: err = %v, want 404001", err)
	}
	got, err := sb.Diners(ctx, v.ID)
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("diners after bad requests = %+v, %v; want %+v", got, err, want)
	}
}

// The magic cards: 4000000000009995 is declined for insufficient funds,
// every time; 4000000000000259 is declined as fraudulent once, and its
// card is blocked for good (the block is committed with the declined
// payment), so that the next payment is 409005. A retry of the declined
// payment with its Idempotency-Key replays the decline.
func TestE2EMagicCards(t *testing.T) {
	t.Parallel()
	env, _ := startSandbox(t)
	ctx := context.Background()
	v := env.NewVenue(t, refservertest.VenueConfig{})
	v.Heartbeat(t)
	v.PushCheck(t, v.OpenCheck(9, "30.00"))
	d := env.NewDiner(t)
	pay := func(card wallet.Card, opts ...client.Option) error {
		_, err := d.Wallet.CreatePayment(ctx, wallet.CreatePaymentRequest{
			LocationID: v.ID, CheckNumber: 9, CardID: card.CardID, Amount: money("5.00"),
		}, opts...)
		return err
	}
	declineCode := func(err error) string {
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.Code != client.CodePaymentDeclined {
			t.Fatalf("err = %v, want 402001", err)
		}
		var cd struct {
			DeclineCode string `json:"declineCode"`
		}
		if err := json.Unmarshal(ae.ContextData, &cd); err != nil {
			t.Fatalf("contextData %s: %v", ae.ContextData, err)
		}
		return cd.DeclineCode
	}

	poor := d.AddCard(t, "4000000000009995", v.Gateway)
	for range 2 {
		if code := declineCode(pay(poor)); code != "insufficient_funds" {
			t.Errorf("declineCode = %q, want insufficient_funds", code)
		}
	}

	fraud := d.AddCard(t, "4000000000000259", v.Gateway)
	if code := declineCode(pay(fraud, client.WithIdempotencyKey("fraud-1"))); code != "fraudulent" {
		t.Errorf("declineCode = %q, want fraudulent", code)
	}
	w, err := d.Wallet.GetWallet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range w.Wallet {
		want := wallet.CardStatusLive
		if c.CardID == fraud.CardID {
			want = wallet.CardStatusBlockedFraud
		}
		if c.CardStatusID != want {
			t.Errorf("card %d status %v, want %v", c.CardID, c.CardStatusID, want)
		}
	}
	if code := declineCode(pay(fraud, client.WithIdempotencyKey("fraud-1"))); code != "fraudulent" {
		t.Errorf("replay: declineCode = %q, want fraudulent", code)
	}
	if err := pay(fraud); !errors.Is(err, client.ErrCardNotUsable) {
		t.Errorf("after the fraud decline: err = %v, want 409005", err)
	}
	if a, _ := pendingOf(t, v, 9); len(a) != 0 {
		t.Errorf("declined payments left %v in the poll", a)
	}
}
