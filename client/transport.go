package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"golang.org/x/time/rate"
)

// callState travels in the request context from Do through go-retryablehttp
// to the transport, because retryablehttp's hooks see only a context or a
// request, never the call that made them. It is that context itself (the
// caller's ctx with the state as a value), which spares Do an allocation.
type callState struct {
	context.Context               // the caller's ctx
	retryable       bool          // method idempotent or Idempotency-Key set
	timeout         time.Duration // per attempt; 0: none
	attempt         int           // 1-based number of the attempt in flight
	red             redactor
	tel             *callTelemetry // nil: telemetry off
}

type callStateKey struct{}

// Value implements context.Context: the state under callStateKey, the
// caller's values otherwise.
func (st *callState) Value(key any) any {
	if _, ok := key.(callStateKey); ok {
		return st
	}
	return st.Context.Value(key)
}

func stateFrom(ctx context.Context) *callState {
	if st, ok := ctx.(*callState); ok {
		return st
	}
	st, _ := ctx.Value(callStateKey{}).(*callState)
	return st
}

// errRateLimitDeadline is returned when waiting for a rate-limit token
// would outlast the call's deadline: failing at once beats sleeping into a
// certain timeout. It wraps context.DeadlineExceeded.
var errRateLimitDeadline = fmt.Errorf("hospo: rate limit wait would exceed the deadline: %w", context.DeadlineExceeded)

// transport sits under go-retryablehttp (and under http.Client's redirect
// handling), so every attempt, retries included, waits for a rate-limit
// token, gets its own timeout, and is logged once.
type transport struct {
	base    http.RoundTripper // nil: http.DefaultTransport
	limiter *rate.Limiter     // nil: no limit
	logger  *slog.Logger      // nil: silent
	clock   attemptClock      // ends the attempts that outlast their timeout
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	st := stateFrom(ctx)
	if t.limiter != nil {
		if err := t.limiter.Wait(ctx); err != nil {
			if req.Body != nil {
				req.Body.Close() // a RoundTripper closes the body, even on error
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, errRateLimitDeadline
		}
	}
	var a *attempt
	if st != nil && st.timeout > 0 {
		if a = t.clock.start(ctx, st.timeout); a != nil {
			req = req.WithContext(a)
		}
	}
	var start time.Time
	logging := t.logger != nil && t.logger.Enabled(ctx, slog.LevelDebug)
	if logging {
		start = time.Now()
	}
	resp, err := t.roundTripper().RoundTrip(req)
	if a != nil {
		if err != nil {
			if ctx.Err() == nil {
				err = a.timedOut(err)
			}
			a.end()
		} else {
			// The attempt lasts until its body is closed.
			a.body = resp.Body
			resp.Body = a
		}
	}
	if logging {
		t.logAttempt(ctx, req, st, resp, err, time.Since(start))
	}
	return resp, err
}

func (t *transport) roundTripper() http.RoundTripper {
	if t.base != nil {
		return t.base
	}
	if http.DefaultTransport == stdDefaultTransport {
		return pooledTransport()
	}
	// Something (httpmock.Activate, a test proxy) replaced the default:
	// use it, as net/http itself would.
	return http.DefaultTransport
}

// maxIdleConnsPerHost is how many idle keep-alive connections the default
// transport keeps to the service. net/http keeps 2, so a caller with more
// calls in flight (bills.All fetches 4 bills at once by default, a POS
// agent sends several checks) would open and close a TCP connection for
// nearly every request beyond the second.
const maxIdleConnsPerHost = 32

// stdDefaultTransport is net/http's own default transport, as it was when
// the program started.
var stdDefaultTransport = http.DefaultTransport

// pooledTransport is a clone of net/http's default transport that keeps
// more idle connections per host; every Client without WithHTTPClient
// shares it.
var pooledTransport = sync.OnceValue(func() http.RoundTripper {
	std, ok := stdDefaultTransport.(*http.Transport)
	if !ok {
		return stdDefaultTransport
	}
	tr := std.Clone()
	tr.MaxIdleConnsPerHost = maxIdleConnsPerHost
	return tr
})

func (t *transport) logAttempt(ctx context.Context, req *http.Request, st *callState, resp *http.Response, err error, d time.Duration) {
	attrs := make([]slog.Attr, 0, 7)
	attrs = append(attrs, slog.String("method", req.Method), slog.String("path", req.URL.Path))
	if st != nil {
		attrs = append(attrs, slog.Int("attempt", st.attempt))
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
		if id := resp.Header.Get(HeaderRequestID); id != "" {
			attrs = append(attrs, slog.String("request_id", id))
		}
	}
	attrs = append(attrs, slog.Duration("duration", d))
	if err != nil {
		msg := err.Error()
		if st != nil {
			msg = st.red.string(msg)
		} else {
			msg = redactor{}.string(msg)
		}
		attrs = append(attrs, slog.String("error", msg))
	}
	t.logger.LogAttrs(ctx, slog.LevelDebug, "hospo: http attempt", attrs...)
}

// attemptTimeoutError reports an attempt cut off by WithTimeout. It is
// retried like any connection error, and matches context.DeadlineExceeded.
// It is also the cause with which the attempt's context is cancelled, so
// a body read that the timeout cuts short reports it too.
type attemptTimeoutError struct {
	d   time.Duration
	err error
}

func (e *attemptTimeoutError) Error() string {
	return "attempt timed out after " + e.d.String()
}
func (e *attemptTimeoutError) Unwrap() error { return e.err }
func (e *attemptTimeoutError) Timeout() bool { return true }

// Is makes every attempt timeout match context.DeadlineExceeded, whatever
// the error it wraps (a RoundTripper may answer a cancelled request with
// anything).
func (e *attemptTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// checkRetry is the retryablehttp.CheckRetry of every Client: retry only what
// is safe to repeat (idempotent method or Idempotency-Key), and only after a
// connection error, a 429 or a 5xx other than 501. A cancelled or expired
// ctx stops at once.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	st := stateFrom(ctx)
	if st == nil || !st.retryable {
		return false, nil
	}
	if errors.Is(err, errRateLimitDeadline) {
		return false, nil
	}
	// retryablehttp's default classification is the one we want: connection
	// errors except TLS trust, bad scheme, bad header and redirect loops;
	// 429; 5xx except 501.
	retry, rerr := retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	if retry && st.tel != nil {
		st.tel.willRetry(resp, err)
	}
	return retry, rerr
}

// backoff returns the retryablehttp.Backoff of policy p: a server's
// Retry-After clamped to p.MaxRetryAfter, otherwise an exponential wait from
// min doubling to max, jittered to between half and all of its value.
func (p RetryPolicy) backoff(lo, hi time.Duration, attemptNum int, resp *http.Response) time.Duration {
	if resp != nil {
		if v := resp.Header.Get("Retry-After"); v != "" {
			if d, ok := retryAfterHint(v, time.Now()); ok {
				limit := p.MaxRetryAfter
				if limit <= 0 {
					limit = max(hi, lo) // a policy without a cap still gets one
				}
				return min(d, limit)
			}
		}
	}
	return jitteredExponential(lo, hi, attemptNum)
}

// retryAfterHint parses a Retry-After header; ok is false when it is
// malformed, so that the exponential wait applies instead.
func retryAfterHint(v string, now time.Time) (time.Duration, bool) {
	d := parseRetryAfter(v, now)
	if d == 0 {
		// 0 may be "0", a past date, or garbage; only garbage is ignored.
		if _, err := http.ParseTime(v); err != nil && !isDigits(v) {
			return 0, false
		}
	}
	return d, true
}

func isDigits(s string) bool { return s != "" && allDigits(s) }

func jitteredExponential(lo, hi time.Duration, attemptNum int) time.Duration {
	if lo <= 0 {
		return 0
	}
	hi = max(hi, lo)
	wait := lo
	for i := 0; i < attemptNum && wait < hi; i++ {
		if wait > hi/2 {
			wait = hi // also keeps the doubling from overflowing
			break
		}
		wait *= 2
	}
	wait = min(wait, hi)
	half := wait / 2
	return half + time.Duration(rand.Int64N(int64(wait-half)+1))
}

// newRetryClient builds the retryablehttp.Client for policy p over hc. It is
// built once in New; Do builds another only for a call with its own policy.
func newRetryClient(hc *http.Client, p RetryPolicy) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:   hc,
		Logger:       nil, // our transport logs each attempt, redacted; retryablehttp would log raw URLs
		RetryWaitMin: p.MinBackoff,
		RetryWaitMax: p.MaxBackoff,
		RetryMax:     p.MaxRetries,
		CheckRetry:   checkRetry,
		Backoff:      p.backoff,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
		RequestLogHook: func(_ retryablehttp.Logger, req *http.Request, i int) {
			if st := stateFrom(req.Context()); st != nil {
				st.attempt = i + 1
				if i > 0 && st.tel != nil {
					st.tel.retrying(req.Context(), i+1)
				}
			}
		},
	}
}
