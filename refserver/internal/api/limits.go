package api

import (
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// InFlight returns middleware that handles at most n requests at once;
// past the bound a request waits for one to finish. It belongs behind a
// guard (Guards.With), which reads the body of an admitted request before
// it comes here, so a client that sends its body slowly holds no place that
// others need, and a request the guard refuses takes none. On two cores a few hundred
// handlers already keep the single writer busy; without the bound an
// overloaded server held thousands of decoded requests waiting for it, and
// its memory grew with the offered load instead of staying flat. A request
// whose client gives up while waiting is answered 429001 (for the journal;
// the client is gone). n < 0 turns the bound off. waiting, when not nil,
// is called by each request that has to wait, so tests can see the queue.
//
// The bound is shared by every handler the returned middleware wraps.
func (rd *Responder) InFlight(n int, waiting func()) func(http.Handler) http.Handler {
	if n < 0 {
		return func(next http.Handler) http.Handler { return next }
	}
	slots := make(chan struct{}, n)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case slots <- struct{}{}:
			default: // full: wait
				if waiting != nil {
					waiting()
				}
				select {
				case slots <- struct{}{}:
				case <-r.Context().Done():
					rd.Error(w, r, TooManyRequests(time.Second))
					return
				}
			}
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		})
	}
}

// RateLimiter holds one token bucket per credential. Buckets idle for
// longer than limiterIdle are dropped so the map does not grow forever.
type RateLimiter struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	l    *rate.Limiter
	last time.Time
}

const limiterIdle = 10 * time.Minute

// NewRateLimiter returns a limiter of perSecond requests per credential
// with bursts of burst (default: perSecond rounded up, at least 1), on the
// real clock now: advancing the virtual clock does not refill buckets. It
// returns nil, no limiting, when perSecond is 0.
func NewRateLimiter(perSecond float64, burst int, now func() time.Time) *RateLimiter {
	if perSecond <= 0 {
		return nil
	}
	if burst <= 0 {
		burst = max(1, int(math.Ceil(perSecond)))
	}
	return &RateLimiter{limit: rate.Limit(perSecond), burst: burst, now: now, buckets: map[string]*bucket{}}
}

// allow takes a token from key's bucket at now, or returns how long until
// one is available.
func (rl *RateLimiter) allow(key string, now time.Time) (bool, time.Duration) {
	rl.mu.Lock()
	if now.Sub(rl.lastSweep) > time.Minute {
		for k, b := range rl.buckets {
			if now.Sub(b.last) > limiterIdle {
				delete(rl.buckets, k)
			}
		}
		rl.lastSweep = now
	}
	b := rl.buckets[key]
	if b == nil {
		b = &bucket{l: rate.NewLimiter(rl.limit, rl.burst)}
		rl.buckets[key] = b
	}
	b.last = now
	rl.mu.Unlock()

	res := b.l.ReserveN(now, 1)
	if !res.OK() {
		return false, time.Second
	}
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now) // a refused request does not spend the token
		return false, d
	}
	return true, 0
}

// RateLimit returns middleware that answers 429001 with Retry-After (whole
// seconds, rounded up) when a credential goes over rl's rate. Requests
// without a credential are limited per client IP. A nil rl limits nothing.
func (rd *Responder) RateLimit(rl *RateLimiter) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if rl == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := presentedCredential(r, r.URL.Query())
			if key == "" {
				host, _, err := net.SplitHostPort(r.RemoteAddr)
				if err != nil {
					host = r.RemoteAddr
				}
				key = "ip:" + host
			}
			ok, wait := rl.allow(key, rl.now())
			if !ok {
				rd.Error(w, r, TooManyRequests(wait))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
