package api

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

func TestCanSeeLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Principal
		id   int64
		want bool
	}{
		{Principal{}, 1, false},
		{Principal{Kind: KindUser, UserID: 1}, 1, false},
		{Principal{Kind: KindPOS, LocationID: 2}, 2, true},
		{Principal{Kind: KindPOS, LocationID: 2}, 1, false},
		{Principal{Kind: KindAPIKey, LocationIDs: []int64{1, 3, 7}}, 3, true},
		{Principal{Kind: KindAPIKey, LocationIDs: []int64{1, 3, 7}}, 4, false},
		{Principal{Kind: KindAPIKey}, 1, false},
		{Principal{Kind: KindAdmin}, 99, true},
	}
	for _, tt := range tests {
		if got := tt.p.CanSeeLocation(tt.id); got != tt.want {
			t.Errorf("%+v.CanSeeLocation(%d) = %v, want %v", tt.p, tt.id, got, tt.want)
		}
	}
}

// queryAccessToken reads the token as Query().Get does, whatever the
// query holds.
func TestQueryAccessTokenIsQueryGet(t *testing.T) {
	t.Parallel()
	queries := []string{
		"", "accessToken=", "accessToken", "accessToken=a", "x=1&accessToken=a&accessToken=b",
		"accessToken=a=b", "&&accessToken=a&", "accesstoken=a", "accessToken=a;x=1", "x=1;accessToken=a&accessToken=b",
		"access%54oken=a", "accessToken=a%2Bb", "accessToken=a+b", "accessToken=%zz&accessToken=b",
		"%zz=1&accessToken=a", "=a&accessToken=b", "a=1&b=2&c=3",
		strings.Repeat("x=1&", maxPlainParams) + "accessToken=late",
		strings.Repeat("&", 10001) + "accessToken=over-the-limit",
	}
	f := func(q string) {
		t.Helper()
		r := &http.Request{URL: &url.URL{RawQuery: q}}
		if got, want := queryAccessToken(r), r.URL.Query().Get(QueryAccessToken); got != want {
			t.Errorf("query %.60q: got %q, want %q", q, got, want)
		}
	}
	for _, q := range queries {
		f(q)
	}
}

// Looking a cached token up, as every request does, allocates nothing:
// no query map, no hex of the hash, no detached context.
func TestQueryAccessTokenAllocatesNothing(t *testing.T) {
	r := &http.Request{URL: &url.URL{RawQuery: "accessToken=pos_0123456789abcdefghijklmnopqrstuvwxyzABCDEF&x=1"}}
	var sum store.SecretSum
	if n := testing.AllocsPerRun(100, func() { sum = store.SumSecret(queryAccessToken(r)) }); n != 0 {
		t.Errorf("%v allocations, want none", n)
	}
	if sum != store.SumSecret("pos_0123456789abcdefghijklmnopqrstuvwxyzABCDEF") {
		t.Error("wrong token hashed")
	}
}
