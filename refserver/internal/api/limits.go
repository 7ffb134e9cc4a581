package api

import (
	"container/list"
	"context"
	"math"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// InFlight bounds the requests handled at once: at most n; past the bound
// a request waits for one to finish. Its Middleware belongs behind a guard
// (Guards.With), which reads the body of an admitted request before it
// comes here, so a client that sends its body slowly holds no place that
// others need, and a request the guard refuses takes none. On two cores a
// few hundred handlers already keep the single writer busy; without the
// bound an overloaded server held thousands of decoded requests waiting
// for it, and its memory grew with the offered load instead of staying
// flat. A request whose client gives up while waiting is answered 429001
// (for the journal; the client is gone).
//
// A handler that spends most of its time waiting for something else (the
// event feed's long-polls) does not go through Middleware: it takes a
// place with Hold for each piece of work and gives it back before it
// waits, so that waiting requests never keep others out.
type InFlight struct {
	rd *Responder
	// slots holds a token per request handled; nil: no bound.
	slots chan struct{}
	// waiting, when not nil, is called by each request that has to wait,
	// so tests can see the queue.
	waiting func()
}

// NewInFlight returns a bound of n requests at once, shared by every
// handler it wraps and every Hold. n < 0 turns the bound off.
func (rd *Responder) NewInFlight(n int, waiting func()) *InFlight {
	f := &InFlight{rd: rd, waiting: waiting}
	if n >= 0 {
		f.slots = make(chan struct{}, n)
	}
	return f
}

// Hold waits for a place under the bound and returns the function that
// gives it back; ok is false, and nothing is held, when ctx ended first.
func (f *InFlight) Hold(ctx context.Context) (release func(), ok bool) {
	if !f.acquire(ctx) {
		return nil, false
	}
	return f.release, true
}

// acquire waits for a place under the bound; false, and nothing held, when
// ctx ended first. release gives the place back.
func (f *InFlight) acquire(ctx context.Context) bool {
	if f.slots == nil {
		return true
	}
	select {
	case f.slots <- struct{}{}:
	default: // full: wait
		if f.waiting != nil {
			f.waiting()
		}
		select {
		case f.slots <- struct{}{}:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// release gives back a place acquire took.
func (f *InFlight) release() {
	if f.slots != nil {
		<-f.slots
	}
}

// Middleware handles each request it wraps in a place of the bound. It
// takes the place with acquire rather than Hold: a request then makes no
// release function of its own.
func (f *InFlight) Middleware(next http.Handler) http.Handler {
	if f.slots == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !f.acquire(r.Context()) {
			f.rd.Error(w, r, TooManyRequests(time.Second))
			return
		}
		defer f.release()
		next.ServeHTTP(w, r)
	})
}

// RateLimiter holds one token bucket per caller (see callerKey). It keeps
// at most maxBuckets of them: when a new caller comes and the set is full,
// the bucket used least recently goes, so neither memory nor the cost of
// a request grows with the number of keys callers make up. An evicted
// caller starts again with a full burst; to force that on a caller, one
// has to bring maxBuckets others in between, each through the limit.
type RateLimiter struct {
	limit rate.Limit
	burst int
	now   func() time.Time
	max   int

	mu      sync.Mutex
	buckets map[string]*list.Element // of *bucket, in lru
	lru     list.List                // most recently used first
}

type bucket struct {
	key string
	l   *rate.Limiter
}

// maxBuckets bounds the callers a RateLimiter tracks at once.
const maxBuckets = 1 << 14

// NewRateLimiter returns a limiter of perSecond requests per caller with
// bursts of burst (default: perSecond rounded up, at least 1), on the real
// clock now: advancing the virtual clock does not refill buckets. It
// returns nil, no limiting, when perSecond is 0.
func NewRateLimiter(perSecond float64, burst int, now func() time.Time) *RateLimiter {
	if perSecond <= 0 {
		return nil
	}
	if burst <= 0 {
		burst = max(1, int(math.Ceil(perSecond)))
	}
	return &RateLimiter{limit: rate.Limit(perSecond), burst: burst, now: now, max: maxBuckets, buckets: map[string]*list.Element{}}
}

// Allow takes a token from key's bucket, or returns how long until one is
// available. A refused call spends nothing.
func (rl *RateLimiter) Allow(key string) (bool, time.Duration) {
	now := rl.now()
	res := rl.bucket(key).ReserveN(now, 1)
	if !res.OK() {
		return false, time.Second
	}
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

// wait returns how long until key's bucket has a token, without taking
// it; 0 when it has one now.
func (rl *RateLimiter) wait(key string) time.Duration {
	now := rl.now()
	missing := 1 - rl.bucket(key).TokensAt(now)
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing / float64(rl.limit) * float64(time.Second))
}

// bucket returns key's bucket, making it (and evicting the least recently
// used one when full) if needed.
func (rl *RateLimiter) bucket(key string) *rate.Limiter {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if e, ok := rl.buckets[key]; ok {
		rl.lru.MoveToFront(e)
		return e.Value.(*bucket).l
	}
	if rl.lru.Len() >= rl.max {
		old := rl.lru.Back()
		rl.lru.Remove(old)
		delete(rl.buckets, old.Value.(*bucket).key)
	}
	b := &bucket{key: key, l: rate.NewLimiter(rl.limit, rl.burst)}
	rl.buckets[key] = rl.lru.PushFront(b)
	return b.l
}

// len returns how many buckets rl holds.
func (rl *RateLimiter) len() int {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.lru.Len()
}

// callerKey names the bucket of a request: the caller its guard verified
// (the admitted principal, or the owner of a valid access token on a route
// that needs another credential or none), and, for a request whose
// credential is missing, unknown or wrong, its client address. Nothing the
// request merely presents chooses the bucket, so neither an extra header
// nor a made-up token escapes the limit.
func callerKey(r *http.Request, q *Request) string {
	if k := q.principal.key(); k != "" {
		return k
	}
	if q.tokenStatus == TokenAuthenticated && q.token != nil {
		return tokenOwner(q.token).key()
	}
	return "addr:" + clientAddr(r)
}

// clientAddr is the address a request came from: the peer's IP (no
// forwarding header is trusted), an IPv6 address cut to its /64, the
// smallest network one user is given.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is6() {
		if p, err := ip.Prefix(64); err == nil {
			return p.String()
		}
	}
	return ip.String()
}
