package api

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// The limiter tracks a bounded number of callers however many keys come,
// and a caller that keeps coming keeps its (empty) bucket meanwhile.
func TestRateLimiterBoundsBuckets(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	rl := NewRateLimiter(0.001, 2, func() time.Time { return now })
	rl.max = 8
	for range 2 {
		if ok, _ := rl.Allow("hot"); !ok {
			t.Fatal("hot caller refused within its burst")
		}
	}
	for i := range 1000 {
		if ok, _ := rl.Allow(fmt.Sprintf("addr:10.0.%d.%d", i/256, i%256)); !ok {
			t.Fatalf("new caller %d refused", i)
		}
		if ok, wait := rl.Allow("hot"); ok || wait <= 0 {
			t.Fatalf("after %d other callers the hot caller got through (wait %v)", i+1, wait)
		}
		if n := rl.len(); n > rl.max {
			t.Fatalf("%d buckets, want at most %d", n, rl.max)
		}
	}
}

func TestCallerKey(t *testing.T) {
	t.Parallel()
	user := &store.AccessToken{Kind: store.TokenKindUser, UserID: 7}
	pos := &store.AccessToken{Kind: store.TokenKindPOS, LocationID: 3}
	tests := []struct {
		name   string
		remote string
		q      Request
		want   string
	}{
		{"admitted user", "192.0.2.1:5000", Request{principal: Principal{Kind: KindUser, UserID: 7}}, "user:7"},
		{"admitted API key", "192.0.2.1:5000", Request{principal: Principal{Kind: KindAPIKey, KeyID: 4}}, "apikey:4"},
		{"valid token on the wrong route", "192.0.2.1:5000", Request{tokenStatus: TokenAuthenticated, token: pos}, "pos:3"},
		{"valid token on a public route", "192.0.2.1:5000", Request{tokenStatus: TokenAuthenticated, token: user}, "user:7"},
		{"expired token", "192.0.2.1:5000", Request{tokenStatus: TokenExpired, token: user}, "addr:192.0.2.1"},
		{"unknown token", "192.0.2.1:5000", Request{tokenStatus: TokenInvalid}, "addr:192.0.2.1"},
		{"IPv6 by /64", "[2001:db8:1:2:3:4:5:6]:443", Request{}, "addr:2001:db8:1:2::/64"},
		{"IPv4 in IPv6", "[::ffff:192.0.2.9]:80", Request{}, "addr:192.0.2.9"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tt.remote
		if got := callerKey(r, &tt.q); got != tt.want {
			t.Errorf("%s: callerKey = %q, want %q", tt.name, got, tt.want)
		}
	}
}
