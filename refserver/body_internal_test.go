package refserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

// countingBody counts the bytes the server reads of a request body.
type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// The credential is checked before the body is read: a request that is
// refused for its credential never makes the server read or buffer its
// body, however large it says it is, on any kind of route, with a length
// declared or not.
func TestCredentialCheckedBeforeBodyIsRead(t *testing.T) {
	t.Parallel()
	var read atomic.Int64
	srv := newTestServer(t, func(c *Config) { c.ValidateRequests = true })
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = countingBody{r.Body, &read}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	f := srv.fixtures(t)
	body := `{"pad":"` + strings.Repeat("x", api.MaxBodyBytes-20) + `"}`
	tests := []struct {
		name, path string
		header     map[string]string
		want       client.Code
	}{
		{"user route, no token", "/payments/v1/payment", nil, client.CodeAccessTokenMissing},
		{"user route, unknown token", "/payments/v1/payment?accessToken=nope", nil, client.CodeAccessTokenInvalid},
		{"user route, POS token", "/payments/v1/payment?accessToken=" + f.Locations[0].POSAccessToken, nil, client.CodeForbidden},
		{"POS route, no token", "/v1/pos/push-pull/check", nil, client.CodeAccessTokenMissing},
		{"admin route, wrong key", "/sandbox/users", map[string]string{"X-Sandbox-Admin-Key": "wrong"}, client.CodeAdminKeyInvalid},
	}
	for _, tt := range tests {
		for _, chunked := range []bool{false, true} {
			read.Store(0)
			req, err := http.NewRequest(http.MethodPost, ts.URL+tt.path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if chunked {
				req.ContentLength = -1 // sent chunked
				req.Body = io.NopCloser(strings.NewReader(body))
			}
			req.Header.Set("Content-Type", "application/json")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(raw), `"code":`+strconv.Itoa(int(tt.want))+`,`) {
				t.Errorf("%s (chunked %v): %d %s, want %d", tt.name, chunked, resp.StatusCode, raw, tt.want)
			}
			// One byte may be read ahead to tell an empty chunked body.
			if n := read.Load(); n > 1 {
				t.Errorf("%s (chunked %v): the server read %d bytes of the body before refusing the credential", tt.name, chunked, n)
			}
		}
	}
}
