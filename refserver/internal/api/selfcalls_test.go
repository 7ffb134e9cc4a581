package api

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestSelfCalls: the server's client marks its calls to the server's own
// base URLs only, and only that mark is taken for one of the server's own
// calls.
func TestSelfCalls(t *testing.T) {
	t.Parallel()
	var got []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r)
	}))
	defer srv.Close()
	self := NewSelfCalls(srv.URL+"/", "https://127.0.0.1:1")
	hc := self.Client(srv.Client())
	for _, u := range []string{srv.URL + "/sandbox/demo-pos/health", "http://localhost:" + srv.Listener.Addr().String()[len("127.0.0.1:"):] + "/x"} {
		res, err := hc.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	if len(got) != 2 {
		t.Fatalf("%d requests", len(got))
	}
	if !self.Is(got[0]) {
		t.Errorf("a call to the server's own base URL is not marked")
	}
	if self.Is(got[1]) || got[1].Header.Get(selfCallHeader) != "" {
		t.Errorf("a call elsewhere carries the mark")
	}
	forged := httptest.NewRequest(http.MethodGet, "/", nil)
	forged.Header.Set(selfCallHeader, "guess")
	if self.Is(forged) || self.Is(httptest.NewRequest(http.MethodGet, "/", nil)) {
		t.Errorf("a request without the server's token is taken for its own")
	}
	if NewSelfCalls(srv.URL).Is(got[0]) {
		t.Errorf("another server's token is accepted")
	}
}
