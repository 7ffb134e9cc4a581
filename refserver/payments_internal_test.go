package refserver

import (
	"crypto/rsa"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// A tip far beyond any real one is a 400002: the amount is bounded by the
// check, the tip only by this rule, and a POS adding it to tipsPaid would
// overflow.
func TestPaymentTipBounded(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	tok := ts.fixtures(t).Users[0].AccessToken
	url := ts.url + "/payments/v1/payment?accessToken=" + tok
	tests := []struct {
		tip  string
		want map[string]string
	}{
		{"1000000.01", map[string]string{"tip": "must be at most 1000000.00"}},
		{"92233720368547758.07", map[string]string{"tip": "must be at most 1000000.00"}},
		{"-0.01", map[string]string{"tip": "must not be negative"}},
	}
	for _, tt := range tests {
		resp := do(t, "POST", url, nil, `{"locationId":1,"checkNumber":1,"cardId":1,"amount":1,"tip":`+tt.tip+`}`)
		wantError(t, resp, client.CodeValidation)
		got := map[string]string{}
		cd, _ := resp.body["contextData"].(map[string]any)
		for k, v := range cd {
			got[k], _ = v.(string)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("tip %s: contextData (-want +got):\n%s", tt.tip, diff)
		}
	}
	// The bound itself is a tip like any other: past validation, the
	// unknown card is what fails.
	resp := do(t, "POST", url, nil, `{"locationId":1,"checkNumber":1,"cardId":999,"amount":1,"tip":1000000}`)
	wantError(t, resp, client.CodeNotFound)
}

func TestExpiredProviderDKeysArePurged(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	f := ts.fixtures(t)
	getKey := func() {
		t.Helper()
		resp := do(t, "GET", ts.url+"/v2/payment/providerD/keys?accessToken="+f.Users[0].AccessToken, nil, "")
		if resp.status != http.StatusOK {
			t.Fatalf("GET key: %d %s", resp.status, resp.raw)
		}
	}
	getKey()
	getKey()
	if n := countRows(t, ts, "providerd_keys"); n != 2 {
		t.Fatalf("%d keys, want 2", n)
	}
	// Expired, but within the retention: kept, so a late use is told
	// "key expired".
	ts.clock.SetOffset(sim.ProviderDKeyLifetime + time.Hour)
	getKey()
	if n := countRows(t, ts, "providerd_keys"); n != 3 {
		t.Fatalf("%d keys, want 3", n)
	}
	// Past the retention: the two old keys go with the next sweep.
	ts.clock.SetOffset(sim.ProviderDKeyLifetime + store.ProviderDKeyRetention + time.Second)
	getKey()
	if _, err := ts.db.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, ts, "providerd_keys"); n != 2 {
		t.Fatalf("%d keys, want 2 (the one made an hour after expiry and the new one)", n)
	}
}

// A user holds at most sim.MaxOpenProviderDKeys keys that are neither
// used nor expired; one more is 429001 with Retry-After until the first
// expires. Using a key or letting it expire makes room, and other users are
// not held up.
func TestProviderDKeysBoundedPerUser(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	f := ts.fixtures(t)
	var kids []string
	keys := func(token string) response {
		resp := do(t, "GET", ts.url+"/v2/payment/providerD/keys?accessToken="+token, nil, "")
		if key, _ := resp.body["key"].(map[string]any); key != nil {
			kid, _ := key["keyId"].(string)
			kids = append(kids, kid)
		}
		return resp
	}
	for i := range sim.MaxOpenProviderDKeys {
		if resp := keys(f.Users[0].AccessToken); resp.status != http.StatusOK {
			t.Fatalf("key %d: %d %s", i, resp.status, resp.raw)
		}
	}
	resp := keys(f.Users[0].AccessToken)
	wantError(t, resp, client.CodeTooManyRequests)
	lifetime := int(sim.ProviderDKeyLifetime / time.Second)
	if ra, err := strconv.Atoi(resp.header.Get("Retry-After")); err != nil || ra < lifetime-60 || ra > lifetime {
		t.Errorf("Retry-After %q, want about %d seconds", resp.header.Get("Retry-After"), lifetime)
	}
	if resp := keys(f.Users[1].AccessToken); resp.status != http.StatusOK {
		t.Errorf("other user: %d %s", resp.status, resp.raw)
	}

	// A used key makes room for one more.
	if err := ts.db.Write(t.Context(), func(tx *store.Tx) error { return tx.MarkProviderDKeyUsed(kids[0]) }); err != nil {
		t.Fatal(err)
	}
	if resp := keys(f.Users[0].AccessToken); resp.status != http.StatusOK {
		t.Errorf("after one key was used: %d %s", resp.status, resp.raw)
	}
	wantError(t, keys(f.Users[0].AccessToken), client.CodeTooManyRequests)
	// Expired keys make room too.
	ts.clock.SetOffset(sim.ProviderDKeyLifetime + time.Second)
	if resp := keys(f.Users[0].AccessToken); resp.status != http.StatusOK {
		t.Errorf("after the keys expired: %d %s", resp.status, resp.raw)
	}
}

// When the key maker has no key ready within Config.ProviderDKeyWait, the
// call is a 429001 with a Retry-After; refservertest waits a minute so
// that a test on a machine starved of CPU does not see one.
func TestProviderDKeyWaitForAnEmptyPool(t *testing.T) {
	t.Parallel()
	stuck := make(chan struct{})
	ts := newTestServer(t, func(c *Config) {
		c.ProviderDKeyWait = time.Millisecond
		c.providerDKeyGen = func() (*rsa.PrivateKey, error) { <-stuck; return testRSAKey(), nil }
	})
	// Cleanups run last-in first-out: the key maker is let go before the
	// server is closed.
	t.Cleanup(func() { close(stuck) })
	f := ts.fixtures(t)
	resp := do(t, "GET", ts.url+"/v2/payment/providerD/keys?accessToken="+f.Users[0].AccessToken, nil, "")
	wantError(t, resp, client.CodeTooManyRequests)
	if resp.header.Get("Retry-After") == "" {
		t.Error("no Retry-After on the 429001")
	}
}
