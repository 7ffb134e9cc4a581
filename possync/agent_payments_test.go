package possync

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// saver records SavePayment calls and can fail them.
type saver struct {
	mu    sync.Mutex
	calls []string // "check:payment"
	fail  func(id int64) error
	api   *fakeAPI // to check that nothing is accepted before it is saved
	early []int64  // payments found accepted at the time of their save
}

func (s *saver) save(_ context.Context, checkNumber int64, p PaymentNotification) error {
	if s.api != nil {
		s.api.mu.Lock()
		for _, id := range s.api.accepted {
			if id == p.PaymentID {
				s.early = append(s.early, id)
			}
		}
		s.api.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, fmt.Sprintf("%d:%d", checkNumber, p.PaymentID))
	if s.fail != nil {
		return s.fail(p.PaymentID)
	}
	return nil
}

func (s *saver) saved() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

func pay(id, cents int64) PaymentNotification {
	return PaymentNotification{PaymentID: id, PaymentExTip: client.MoneyFromCents(cents), Tip: client.MoneyFromCents(cents / 10)}
}

func TestAgentSavesThenAccepts(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{pending: map[int64][]PaymentNotification{
		10: {pay(1, 500), pay(4, 200)},
		11: {pay(2, 300)},
		12: {pay(3, 100)},
	}}
	sv := &saver{api: api}
	cfg := testConfig()
	cfg.SavePayment = sv.save
	a := newTestAgent(t, api, cfg)
	startAgent(t, a) // polls at once
	sdktest.Eventually(t, "accepts", func() bool { return a.Stats().PaymentsAccepted == 4 })

	// Oldest (lowest id) first across checks, each saved once.
	if diff := cmp.Diff([]string{"10:1", "11:2", "12:3", "10:4"}, sv.saved()); diff != "" {
		t.Errorf("SavePayment calls (-want +got):\n%s", diff)
	}
	api.mu.Lock()
	accepted := append([]int64(nil), api.accepted...)
	api.mu.Unlock()
	if diff := cmp.Diff([]int64{1, 2, 3, 4}, accepted); diff != "" {
		t.Errorf("accepted (-want +got):\n%s", diff)
	}
	if len(sv.early) != 0 {
		t.Errorf("payments accepted before they were saved: %v", sv.early)
	}
	if s := a.Stats(); s.PaymentsSaved != 4 {
		t.Errorf("PaymentsSaved = %d", s.PaymentsSaved)
	}

	// Nothing left: a further poll saves nothing.
	a.PollNow()
	polls := func() int { api.mu.Lock(); defer api.mu.Unlock(); return api.polls }
	sdktest.Eventually(t, "second poll", func() bool { return polls() >= 2 })
	if n := len(sv.saved()); n != 4 {
		t.Errorf("%d saves after an empty poll", n)
	}
}

func TestAgentSaveFailureLeavesPayment(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{pending: map[int64][]PaymentNotification{10: {pay(1, 500)}}}
	failOnce := true
	sv := &saver{api: api, fail: func(int64) error {
		if failOnce {
			failOnce = false
			return errors.New("POS database busy")
		}
		return nil
	}}
	cfg := testConfig()
	cfg.SavePayment = sv.save
	a := newTestAgent(t, api, cfg)
	startAgent(t, a)
	sdktest.Eventually(t, "first save attempt", func() bool { return len(sv.saved()) == 1 })
	if s := a.Stats(); s.PaymentsAccepted != 0 || s.LastError == nil {
		t.Fatalf("accepted %d after a failed save (LastError %v)", s.PaymentsAccepted, s.LastError)
	}
	a.PollNow()
	sdktest.Eventually(t, "accept", func() bool { return a.Stats().PaymentsAccepted == 1 })
	if diff := cmp.Diff([]string{"10:1", "10:1"}, sv.saved()); diff != "" {
		t.Errorf("SavePayment calls (-want +got):\n%s", diff)
	}
}

func TestAgentAcceptFailureDoesNotSaveAgain(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{pending: map[int64][]PaymentNotification{10: {pay(1, 500)}}}
	fails := 2
	api.acceptFn = func(context.Context, int64) error {
		if fails > 0 {
			fails--
			return &client.APIError{HTTPStatus: 503}
		}
		return nil
	}
	sv := &saver{}
	cfg := testConfig()
	cfg.SavePayment = sv.save
	a := newTestAgent(t, api, cfg)
	startAgent(t, a)
	for a.Stats().PaymentsAccepted == 0 {
		a.PollNow()
		sdktest.Eventually(t, "a poll", func() bool { api.mu.Lock(); defer api.mu.Unlock(); return api.polls > 0 })
	}
	if diff := cmp.Diff([]string{"10:1"}, sv.saved()); diff != "" {
		t.Errorf("SavePayment calls (-want +got):\n%s", diff)
	}
}

// TestAgentSavedPaymentSurvivesRestart kills the agent between SavePayment
// and accept (the accept never reaches the service) and restarts it on the
// same Store: the payment is accepted without a second SavePayment.
func TestAgentSavedPaymentSurvivesRestart(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{pending: map[int64][]PaymentNotification{10: {pay(1, 500)}}}
	crash := make(chan struct{})
	api.acceptFn = func(ctx context.Context, _ int64) error {
		select {
		case <-crash:
			return nil
		default:
			return errors.New("process killed") // the accept never leaves the POS
		}
	}
	sv := &saver{}
	cfg := testConfig()
	cfg.SavePayment = sv.save
	cfg.Store = newMemStore()
	a := newTestAgent(t, api, cfg)
	stop := startAgent(t, a)
	sdktest.Eventually(t, "the save", func() bool { return a.Stats().PaymentsSaved == 1 })
	stop()
	if s := a.Stats(); s.PaymentsAccepted != 0 {
		t.Fatalf("accepted before the restart")
	}

	close(crash) // accepts work from now on
	b := newTestAgent(t, api, cfg)
	startAgent(t, b)
	sdktest.Eventually(t, "accept after restart", func() bool { return b.Stats().PaymentsAccepted == 1 })
	if diff := cmp.Diff([]string{"10:1"}, sv.saved()); diff != "" {
		t.Errorf("SavePayment calls across the restart (-want +got):\n%s", diff)
	}
}

// TestAgentForgetsSettledPayments: a saved-payment record whose payment the
// poll no longer lists (accepted, the record left by a crash) is dropped,
// from memory and from the Store.
func TestAgentForgetsSettledPayments(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	store := newMemStore()
	store.saved[41] = 10 // left behind by an earlier life
	cfg.Store = store

	api := &fakeAPI{}
	b := newTestAgent(t, api, cfg)
	if _, ok := b.saved[41]; !ok {
		t.Fatal("record not loaded")
	}
	stop := startAgent(t, b) // polls at once: nothing pending
	sdktest.Eventually(t, "a poll", func() bool { return !b.Stats().LastPoll.IsZero() })
	stop()
	if ids := store.savedIDs(); len(ids) != 0 {
		t.Errorf("saved records after a poll that no longer lists them: %v", ids)
	}
}
