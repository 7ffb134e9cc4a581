package refserver

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/hospo-dev/hospo-go/client"
)

// rateLimiter holds one token bucket per credential. Buckets idle for
// longer than limiterIdle are dropped so the map does not grow forever.
type rateLimiter struct {
	limit rate.Limit
	burst int

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	l    *rate.Limiter
	last time.Time
}

const limiterIdle = 10 * time.Minute

// newRateLimiter returns nil (no limiting) when perSecond is 0. burst
// defaults to perSecond rounded up, at least 1.
func newRateLimiter(perSecond float64, burst int) *rateLimiter {
	if perSecond <= 0 {
		return nil
	}
	if burst <= 0 {
		burst = max(1, int(math.Ceil(perSecond)))
	}
	return &rateLimiter{limit: rate.Limit(perSecond), burst: burst, buckets: map[string]*bucket{}}
}

// allow takes a token from key's bucket at now, or returns how long until
// one is available.
func (rl *rateLimiter) allow(key string, now time.Time) (bool, time.Duration) {
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

// rateLimit answers 429001 with Retry-After (whole seconds, rounded up)
// when a credential goes over Config.RateLimit. Requests without a
// credential are limited per client IP. The sandbox admin endpoints are
// exempt: test set-up must not be throttled by the limit under test.
// Rate limiting uses real time; advancing the virtual clock does not refill
// buckets.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	if s.limiter == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isAdminPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		key := presentedCredential(r)
		if key == "" {
			host, _, err := net.SplitHostPort(r.RemoteAddr)
			if err != nil {
				host = r.RemoteAddr
			}
			key = "ip:" + host
		}
		ok, wait := s.limiter.allow(key, s.clock.Real())
		if !ok {
			secs := max(1, int(math.Ceil(wait.Seconds())))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			s.writeError(w, r, apiErr(client.CodeTooManyRequests))
			return
		}
		next.ServeHTTP(w, r)
	})
}
