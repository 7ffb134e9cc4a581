package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// A redirect to another host must not carry the API key or the admin key:
// net/http copies custom headers to any redirect target.
func TestRedirectToOtherHostDropsKeys(t *testing.T) {
	t.Parallel()
	var (
		mu  sync.Mutex
		got http.Header
	)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
		_, _ = w.Write([]byte(`{}`))
	}))
	defer other.Close()
	// Same listener, other host name: a different origin to net/http.
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/same" {
			mu.Lock()
			got = r.Header.Clone()
			mu.Unlock()
			_, _ = w.Write([]byte(`{}`))
			return
		}
		if r.URL.Path == "/local" {
			http.Redirect(w, r, "/same", http.StatusFound)
			return
		}
		http.Redirect(w, r, otherURL+"/landed", http.StatusFound)
	}))
	defer origin.Close()

	c, err := New(WithBaseURL(origin.URL), WithAPIKey("api-key-secret-value"), WithAdminKey("admin-key-secret-value"))
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range []Auth{AuthAPIKey, AuthAdminKey} {
		if _, err := c.Do(context.Background(), &Request{Path: "v3/bill/1", Auth: auth}, nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if k, a := got.Get(HeaderAPIKey), got.Get(HeaderAdminKey); k != "" || a != "" {
			t.Errorf("%v: redirect target on another host got %s=%q %s=%q", auth, HeaderAPIKey, k, HeaderAdminKey, a)
		}
		mu.Unlock()
	}
	// A redirect on the same origin keeps the credential.
	if _, err := c.Do(context.Background(), &Request{Path: "local", Auth: AuthAPIKey}, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got.Get(HeaderAPIKey) != "api-key-secret-value" {
		t.Errorf("same-origin redirect lost the API key")
	}
}
