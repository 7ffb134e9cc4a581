package possync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// dispatch starts sends of ready checks: up to SendConcurrency at once while
// the service is healthy, one at a time after a failure (a probe, so that a
// service that is down does not get every queued check at once), none while
// a backoff is running. It returns when ctx is cancelled; the sends it
// started run under sendCtx and are tracked by sends.
func (a *Agent) dispatch(ctx, sendCtx context.Context, sends *sync.WaitGroup) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		wait := time.Duration(-1)
		a.mu.Lock()
		limit := a.cfg.SendConcurrency
		if a.failures > 0 {
			limit = 1
		}
		for a.inflight < limit && len(a.ready) > 0 {
			if d := time.Until(a.backoff); d > 0 {
				wait = d
				break
			}
			n := a.ready[0]
			a.ready = a.ready[1:]
			e := a.entries[n]
			if e == nil || !e.queued {
				continue // cannot happen: ready and entries change together
			}
			e.queued, e.inflight, e.lent = false, true, true
			a.inflight++
			sends.Add(1)
			go func(body []byte, gen uint64, invalid error) {
				defer sends.Done()
				a.send(sendCtx, n, body, gen, invalid)
			}(e.body.b, e.gen, e.invalid)
		}
		if len(a.ready) == 0 {
			a.ready = nil // let the backing array go after a burst
		}
		a.mu.Unlock()

		var tc <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			tc = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case <-a.wakeSend:
		case <-tc:
		}
	}
}

// send delivers one state of check n (body, its JSON) and settles the
// entry: delivered (or refused for good) and unchanged since, it leaves the
// queue; changed by a Push meanwhile, or failed for a temporary reason, it
// is queued again.
func (a *Agent) send(ctx context.Context, n int64, body []byte, gen uint64, invalid error) {
	rctx, cancel := context.WithTimeout(ctx, a.cfg.RequestTimeout)
	res, err := a.push(rctx, body, invalid)
	cancel()

	a.mu.Lock()
	a.inflight--
	e := a.entries[n]
	e.inflight = false
	settled := false
	var refusal error // the service's answer when it refused the check for good
	var retryIn time.Duration
	var failures int // after this one, when it is to be retried
	switch {
	case err == nil:
		a.stats.Sent++
		a.failures = 0
		a.backoff = time.Time{}
		settled = true
	case ctx.Err() != nil:
		// Shutting down: not the service's fault; the check stays queued.
	case permanent(err):
		a.stats.Failed++
		a.failures = 0 // the service answered: it is up
		a.recordErrorLocked(err)
		settled, refusal = true, err
	default:
		a.stats.Retried++
		a.failures++
		failures = a.failures
		retryIn = a.backoffDelay(a.failures, retryAfter(err))
		a.backoff = time.Now().Add(retryIn)
		a.recordErrorLocked(err)
	}
	if settled {
		a.settleWaitersLocked(n, gen, refusal)
	}
	if settled && e.gen == gen {
		delete(a.entries, n)
		a.stats.Queued = len(a.entries)
		if a.store != nil {
			a.dirty[n] = struct{}{}
		}
	} else if !e.queued {
		e.queued = true
		a.ready = append(a.ready, n)
	}
	a.mu.Unlock()

	// Logged once a.mu is released: a Logger that writes to a slow disk or
	// a pipe must not hold up Push, which takes a.mu.
	switch {
	case err == nil:
		a.log.Debug("check delivered", "checkNumber", n, "billId", res.BillID, "version", res.Version)
	case refusal != nil:
		a.log.Error("check refused by the service; dropped", "checkNumber", n, "err", err, "fields", fieldErrors(err))
	case failures > 0:
		a.log.Warn("check delivery failed; will retry", "checkNumber", n, "err", err, "retryIn", retryIn, "failures", failures)
	}
	signal(a.wakeSend)
	signal(a.progress)
	if settled && a.store != nil {
		signal(a.wakePersist)
	}
}

// push makes the call of one send. The agent does its own backoff across
// all checks, so the client's per-call retries are turned off. A push is
// idempotent by nature (it carries the check's full state, and the agent
// never has two sends of one check in flight), so it goes without an
// Idempotency-Key: the key would only make the service record every push
// for replay.
//
// Through a *Service the queued JSON is the request's body as it is; an
// invalid check loaded from the Store gets the error PushCheck would
// return for it. Any other API is handed the check decoded from its JSON.
func (a *Agent) push(ctx context.Context, body []byte, invalid error) (PushResult, error) {
	opts := []client.Option{client.WithMaxRetries(0), client.WithoutIdempotencyKey()}
	if a.svc != nil {
		if invalid != nil {
			return PushResult{}, invalid
		}
		return a.svc.pushCheckJSON(ctx, body, opts...)
	}
	check := new(Check)
	if err := json.Unmarshal(body, check); err != nil {
		return PushResult{}, fmt.Errorf("possync: decoding a queued check: %w", err)
	}
	return a.api.PushCheck(ctx, check, opts...)
}

// permanent reports whether a failed push will fail again however often it
// is repeated: the service (or Check.Validate before sending) refused this
// check (validation, malformed, too large). Authentication failures (401, 403) are not counted as permanent:
// they are a configuration problem of the agent, not of the check, and the
// check is kept until the problem is fixed.
func permanent(err error) bool {
	if errors.Is(err, client.ErrValidation) {
		// The service's 400002, or PushCheck's own Validate refusing a
		// check loaded from a Store that an older version wrote.
		return true
	}
	var ae *client.APIError
	if !errors.As(err, &ae) {
		return false // transport error, timeout: the service may come back
	}
	switch {
	case ae.HTTPStatus >= 500, ae.HTTPStatus == http.StatusTooManyRequests,
		ae.HTTPStatus == http.StatusRequestTimeout,
		ae.HTTPStatus == http.StatusUnauthorized, ae.HTTPStatus == http.StatusForbidden:
		return false
	}
	return ae.HTTPStatus >= 400
}

// retryAfter returns the wait the service asked for, if any.
func retryAfter(err error) time.Duration {
	var ae *client.APIError
	if errors.As(err, &ae) {
		return ae.RetryAfter
	}
	return 0
}

// fieldErrors returns the failing fields of a 400002 for logging, or nil.
func fieldErrors(err error) map[string]string {
	var ae *client.APIError
	if errors.As(err, &ae) {
		return ae.FieldErrors()
	}
	return nil
}

// backoffDelay returns the wait after the n-th consecutive failure:
// RetryMin doubled per failure, capped at RetryMax, jittered down to between
// half and all of it; a Retry-After the service asked for is honoured up to
// RetryMax.
func (a *Agent) backoffDelay(n int, after time.Duration) time.Duration {
	return backoffDelay(a.cfg.RetryMin, a.cfg.RetryMax, n, after)
}

func backoffDelay(lo, hi time.Duration, n int, after time.Duration) time.Duration {
	d := hi
	if n < 1 {
		n = 1
	}
	if n <= 32 {
		if v := lo << (n - 1); v > 0 && v < hi {
			d = v
		}
	}
	d = d/2 + rand.N(d/2+1)
	if after > d {
		d = min(after, hi)
	}
	return d
}

// persistLoop writes the changes of the queue to the Store in batches
// (with possync/outbox, one transaction each, so a burst of pushes costs
// one fsync), and Push itself never waits for the disk. A final write runs
// when stop is closed.
func (a *Agent) persistLoop(stop <-chan struct{}) {
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	for {
		select {
		case <-stop:
			if err := a.saveDirty(); err != nil {
				a.log.Error("final store write failed", "err", err)
			}
			return
		case <-a.wakePersist:
		case <-retry.C:
		}
		if err := a.saveDirty(); err != nil {
			a.recordError(err)
			a.log.Error("store write failed; will retry", "err", err)
			retry.Reset(a.cfg.RetryMin)
		}
	}
}

// saveDirty writes the newest state of every check changed since the last
// write, and deletes the rows of checks delivered since. On failure the
// checks are marked changed again so that a later write retries them.
func (a *Agent) saveDirty() error {
	a.mu.Lock()
	if len(a.dirty) == 0 {
		a.mu.Unlock()
		return nil
	}
	var puts []CheckJSON
	var gens []uint64 // of puts, to release their buffers after the write
	var dels []int64
	for n := range a.dirty {
		if e := a.entries[n]; e != nil {
			e.saving = true // Push leaves the buffer alone until the write is done
			puts = append(puts, CheckJSON{CheckNumber: n, JSON: e.body.b})
			gens = append(gens, e.gen)
		} else {
			dels = append(dels, n)
		}
	}
	clear(a.dirty)
	a.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	err := a.saveChecks(ctx, puts, dels)
	cancel()

	a.mu.Lock()
	for i, p := range puts {
		if e := a.entries[p.CheckNumber]; e != nil && e.gen == gens[i] {
			e.saving = false
		}
		if err != nil {
			a.dirty[p.CheckNumber] = struct{}{}
		}
	}
	if err != nil {
		for _, n := range dels {
			a.dirty[n] = struct{}{}
		}
	}
	a.mu.Unlock()
	return err
}

// saveChecks hands a write to the Store: as JSON to a JSONStore, decoded
// to any other.
func (a *Agent) saveChecks(ctx context.Context, put []CheckJSON, remove []int64) error {
	if js, ok := a.store.(JSONStore); ok {
		return js.SaveCheckJSON(ctx, put, remove)
	}
	checks := make([]*Check, len(put))
	for i, p := range put {
		checks[i] = new(Check)
		if err := json.Unmarshal(p.JSON, checks[i]); err != nil {
			return fmt.Errorf("possync: decoding queued check %d: %w", p.CheckNumber, err)
		}
	}
	return a.store.SaveChecks(ctx, checks, remove)
}
