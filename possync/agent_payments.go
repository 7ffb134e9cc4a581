package possync

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/hospo-dev/hospo-go/internal/wake"
)

// pollLoop polls for payments at once, then every PollInterval (jittered),
// or sooner when PollNow asks, until ctx is cancelled.
func (a *Agent) pollLoop(ctx context.Context) {
	wake.Loop(ctx, a.pollNow, func(ctx context.Context) time.Duration {
		a.pollOnce(ctx)
		return jitter(a.cfg.PollInterval)
	})
}

// pollOnce fetches the unaccepted payments and settles them oldest first,
// then tells the payment waiters what the poll came to.
func (a *Agent) pollOnce(ctx context.Context) {
	gen := a.startPoll()
	rctx, cancel := context.WithTimeout(ctx, a.cfg.RequestTimeout)
	checks, err := a.api.Payments(rctx, a.cfg.LocationID)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			a.recordError(err)
			a.log.Warn("payments poll failed", "err", err)
		}
		a.pollDone(gen, nil, false)
		return
	}
	a.mu.Lock()
	a.stats.LastPoll = time.Now()
	a.mu.Unlock()
	a.forgetSettled(checks)

	type pending struct {
		checkNumber int64
		p           PaymentNotification
	}
	var all []pending
	for n, ps := range checks {
		for _, p := range ps {
			all = append(all, pending{n, p})
		}
	}
	// Payment ids grow with time, so this is oldest first across checks.
	slices.SortFunc(all, func(x, y pending) int { return cmp.Compare(x.p.PaymentID, y.p.PaymentID) })
	unsettled := map[int64]bool{}
	for _, x := range all {
		if ctx.Err() != nil || !a.settlePayment(ctx, x.checkNumber, x.p) {
			unsettled[x.p.PaymentID] = true
		}
	}
	a.pollDone(gen, unsettled, true)
}

// settlePayment saves a payment on the POS (unless it is known to be saved
// already) and then accepts it. The order is the point: a payment is never
// accepted before SavePayment has returned nil for it, and, once saved, it
// is remembered (in the Store when there is one) until accepted, so a
// failed accept or a restart does not save it twice.
// It reports whether the payment was accepted.
func (a *Agent) settlePayment(ctx context.Context, checkNumber int64, p PaymentNotification) bool {
	log := a.log.With("paymentId", p.PaymentID, "checkNumber", checkNumber)
	a.mu.Lock()
	_, saved := a.saved[p.PaymentID]
	a.mu.Unlock()
	if !saved {
		if err := a.cfg.SavePayment(ctx, checkNumber, p); err != nil {
			a.recordError(err)
			log.Warn("SavePayment failed; the payment stays for the next poll", "err", err)
			return false
		}
		a.mu.Lock()
		a.saved[p.PaymentID] = struct{}{}
		a.stats.PaymentsSaved++
		a.mu.Unlock()
		if a.store != nil {
			if err := a.putSaved(p.PaymentID, checkNumber); err != nil {
				// Go on and accept: an accepted payment never comes back,
				// which protects against a second save better than
				// waiting would.
				a.recordError(err)
				log.Error("recording the saved payment failed", "err", err)
			}
		}
		log.Info("payment saved", "amount", p.PaymentExTip, "tip", p.Tip)
	}
	rctx, cancel := context.WithTimeout(ctx, a.cfg.RequestTimeout)
	_, err := a.api.AcceptPayment(rctx, p.PaymentID)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			a.recordError(err)
			log.Warn("accept-payment failed; will accept on a later poll", "err", err)
		}
		return false
	}
	a.mu.Lock()
	delete(a.saved, p.PaymentID)
	a.stats.PaymentsAccepted++
	a.mu.Unlock()
	if a.store != nil {
		if err := a.deleteSaved(p.PaymentID); err != nil {
			// Harmless: the accepted payment will not be polled again.
			log.Warn("forgetting the accepted payment failed", "err", err)
		}
	}
	log.Info("payment accepted")
	return true
}

// forgetSettled drops the saved-payment records of payments that the poll
// no longer lists. The poll lists every payment not yet accepted, so such a
// payment was accepted: by an accept whose answer was lost, or just before
// a crash that kept the record from being deleted.
func (a *Agent) forgetSettled(checks map[int64][]PaymentNotification) {
	listed := make(map[int64]bool)
	for _, ps := range checks {
		for _, p := range ps {
			listed[p.PaymentID] = true
		}
	}
	var gone []int64
	a.mu.Lock()
	for id := range a.saved {
		if !listed[id] {
			gone = append(gone, id)
			delete(a.saved, id)
		}
	}
	a.mu.Unlock()
	if a.store == nil {
		return
	}
	for _, id := range gone {
		if err := a.deleteSaved(id); err != nil {
			a.log.Warn("forgetting a settled payment failed", "paymentId", id, "err", err)
		}
	}
}

// heartbeatLoop sends a heartbeat at once and then every HeartbeatInterval.
// A failed heartbeat is retried with backoff (never later than the
// interval), since a location without a fresh heartbeat cannot take
// payments.
func (a *Agent) heartbeatLoop(ctx context.Context) {
	failures := 0
	wake.Loop(ctx, nil, func(ctx context.Context) time.Duration {
		rctx, cancel := context.WithTimeout(ctx, a.cfg.RequestTimeout)
		_, err := a.api.Heartbeat(rctx, a.cfg.LocationID)
		cancel()
		next := a.cfg.HeartbeatInterval
		switch {
		case err == nil:
			failures = 0
			a.mu.Lock()
			a.stats.LastHeartbeat = time.Now()
			a.mu.Unlock()
		case ctx.Err() != nil:
			// Stopping: the loop ends with ctx.
		default:
			failures++
			next = min(a.backoffDelay(failures, retryAfter(err)), next)
			a.recordError(err)
			a.log.Warn("heartbeat failed", "err", err, "retryIn", next)
		}
		return next
	})
}

// jitter returns d moved randomly by up to 10% either way.
func jitter(d time.Duration) time.Duration {
	spread := d / 10
	if spread <= 0 {
		return d
	}
	return d - spread + rand.N(2*spread+1)
}

func (a *Agent) putSaved(paymentID, checkNumber int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	return a.store.PutSavedPayment(ctx, paymentID, checkNumber)
}

func (a *Agent) deleteSaved(paymentID int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	return a.store.DeleteSavedPayment(ctx, paymentID)
}
