package universalpos_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jarcoal/httpmock"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// fastRetries keeps retry waits short in tests.
var fastRetries = universalpos.WithBackoff(time.Millisecond, 5*time.Millisecond)

func testOrder(t *testing.T) universalpos.Order {
	t.Helper()
	o, err := universalpos.DecodeOrder([]byte(validOrderJSON))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestClientAgainstHandler(t *testing.T) {
	t.Parallel()
	p := newTestProvider()
	srv := startPOS(t, p)
	c := universalpos.NewClient(srv.URL+"/", testToken, universalpos.WithHTTPClient(srv.Client()))
	ctx := context.Background()

	h, err := c.Health(ctx)
	if err != nil || !h.OK() {
		t.Fatalf("Health: %+v, %v", h, err)
	}
	p.health = universalpos.HealthStatus{Status: universalpos.HealthFailed, Message: "printer offline"}
	if h, err := c.Health(ctx); err != nil || h.Status != universalpos.HealthFailed || h.Message != "printer offline" {
		t.Fatalf("Health FAILED: %+v, %v", h, err)
	}

	menus, err := c.Menus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(testMenu(), menus, cmpMoney, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("menus (-want +got):\n%s", diff)
	}

	order := testOrder(t)
	id, err := c.SendOrder(ctx, order)
	if err != nil || id != "POS-1" {
		t.Fatalf("SendOrder: %q, %v", id, err)
	}
	if id, err := c.SendOrder(ctx, order); err != nil || id != "POS-1" {
		t.Fatalf("resend: %q, %v", id, err)
	}
	if diff := cmp.Diff([]universalpos.Order{order}, p.orders, cmpMoney); diff != "" {
		t.Errorf("orders at the POS (-want +got):\n%s", diff)
	}
}

func TestClientAuthIsFinal(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	h := universalpos.NewHandler(newTestProvider(), universalpos.HandlerOptions{Token: testToken})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	c := universalpos.NewClient(srv.URL, "wrong-token-abc", fastRetries)
	_, err := c.Menus(context.Background())
	var e *universalpos.Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusUnauthorized || e.Temporary() {
		t.Fatalf("err = %#v, want a final 401 *Error", err)
	}
	if hits.Load() != 1 {
		t.Errorf("%d requests, want 1 (no retry on 4xx)", hits.Load())
	}
	if strings.Contains(err.Error(), "wrong-token-abc") {
		t.Errorf("error %q shows the token", err)
	}
}

// flaky answers the first failures requests with status, then passes to
// the handler.
func flaky(t *testing.T, failures int64, status int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	h := universalpos.NewHandler(newTestProvider(), universalpos.HandlerOptions{Token: testToken})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) <= failures {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error":"try again","fields":{"x":"y"}}`))
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestClientRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		failures  int64
		status    int
		retries   int
		wantErr   bool
		wantTemp  bool
		wantHits  int64
		wantState int
	}{
		{"5xx then success", 2, 503, 2, false, false, 3, 0},
		{"5xx beyond the retries", 5, 500, 2, true, true, 3, 500},
		{"retries off", 5, 502, 0, true, true, 1, 502},
		{"4xx is not retried", 5, 400, 2, true, false, 1, 400},
		{"409 is not retried", 5, 409, 2, true, false, 1, 409},
		{"429 is final like every 4xx", 5, 429, 2, true, false, 1, 429},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, hits := flaky(t, tc.failures, tc.status)
			c := universalpos.NewClient(srv.URL, testToken, fastRetries, universalpos.WithRetries(tc.retries))
			id, err := c.SendOrder(context.Background(), testOrder(t))
			if hits.Load() != tc.wantHits {
				t.Errorf("%d requests, want %d", hits.Load(), tc.wantHits)
			}
			if !tc.wantErr {
				if err != nil || id != "POS-1" {
					t.Fatalf("got %q, %v", id, err)
				}
				return
			}
			var e *universalpos.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if e.StatusCode != tc.wantState || e.Temporary() != tc.wantTemp || e.Message != "try again" || e.Op != "POST /orders" {
				t.Errorf("err = %+v (temporary %v)", e, e.Temporary())
			}
			if diff := cmp.Diff(map[string]string{"x": "y"}, e.Fields); diff != "" {
				t.Errorf("fields: %s", diff)
			}
		})
	}
}

func TestClientTimeout(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer srv.Close()
	// Attempts are counted as the client makes them: on a busy machine a
	// timed-out attempt may never reach the server's handler.
	var hits atomic.Int64
	counting := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		hits.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := universalpos.NewClient(srv.URL, testToken, fastRetries, universalpos.WithHTTPClient(counting),
		universalpos.WithTimeout(50*time.Millisecond), universalpos.WithRetries(1))
	_, err := c.Health(context.Background())
	var e *universalpos.Error
	if !errors.As(err, &e) || !e.Temporary() || e.StatusCode != 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a temporary timeout", err)
	}
	if !strings.Contains(err.Error(), "timed out") {
		t.Errorf("message %q does not say it timed out", err)
	}
	if hits.Load() != 2 {
		t.Errorf("%d attempts, want 2 (a timeout is retried)", hits.Load())
	}
}

func TestClientHonoursContext(t *testing.T) {
	t.Parallel()
	srv, hits := flaky(t, 100, 500)
	// Long waits between retries: cancelling must cut them short.
	c := universalpos.NewClient(srv.URL, testToken, universalpos.WithBackoff(time.Hour, time.Hour), universalpos.WithRetries(5))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Menus(ctx)
		done <- err
	}()
	for hits.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	err := <-done
	var e *universalpos.Error
	// Depending on when the cancel lands, the error is the last 500 or the
	// cancellation; either way it is temporary, for a later retry.
	if !errors.As(err, &e) || !e.Temporary() {
		t.Fatalf("err = %v, want a temporary *Error", err)
	}
	if hits.Load() != 1 {
		t.Errorf("%d attempts after cancel, want 1", hits.Load())
	}

	// A context cancelled before the call: no request, a temporary error.
	_, err = c.Health(ctx)
	if !errors.As(err, &e) || !errors.Is(err, context.Canceled) || !e.Temporary() {
		t.Errorf("err = %v, want a temporary cancellation", err)
	}
}

func TestClientConnectionRefusedIsTemporary(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c := universalpos.NewClient(url, testToken, fastRetries)
	_, err := c.Health(context.Background())
	var e *universalpos.Error
	if !errors.As(err, &e) || !e.Temporary() || e.StatusCode != 0 {
		t.Fatalf("err = %v, want temporary", err)
	}
}

func TestClientBadResponses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		path   string
		status int
		body   string
		call   func(*universalpos.Client) error
	}{
		{"health: unknown status", "/health", 200, `{"status":"ok"}`, func(c *universalpos.Client) error {
			_, err := c.Health(context.Background())
			return err
		}},
		{"health: not JSON", "/health", 200, `OK`, func(c *universalpos.Client) error {
			_, err := c.Health(context.Background())
			return err
		}},
		{"health: 204", "/health", 204, ``, func(c *universalpos.Client) error {
			_, err := c.Health(context.Background())
			return err
		}},
		{"menus: no array", "/menus", 200, `{}`, func(c *universalpos.Client) error {
			_, err := c.Menus(context.Background())
			return err
		}},
		{"menus: 3 decimals", "/menus", 200, `{"menus":[{"reference":"m","name":"M","type":"ANY","categories":[{"items":[{"plu":"A","price":1.005}]}]}]}`, func(c *universalpos.Client) error {
			_, err := c.Menus(context.Background())
			return err
		}},
		{"orders: no posOrderId", "/orders", 201, `{"id":"x"}`, func(c *universalpos.Client) error {
			_, err := c.SendOrder(context.Background(), universalpos.Order{OrderID: "o"})
			return err
		}},
		{"orders: 202", "/orders", 202, `{"posOrderId":"x"}`, func(c *universalpos.Client) error {
			_, err := c.SendOrder(context.Background(), universalpos.Order{OrderID: "o"})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := sdktest.NewMock()
			rec := m.Handle(method(tc.path), tc.path, func(*http.Request) (*http.Response, error) {
				return httpmock.NewStringResponse(tc.status, tc.body), nil
			})
			err := tc.call(universalpos.NewClient(sdktest.BaseURL, testToken, fastRetries, universalpos.WithHTTPClient(m.HTTPClient)))
			var e *universalpos.Error
			if !errors.As(err, &e) || e.Temporary() || e.StatusCode != tc.status {
				t.Fatalf("err = %v, want a final *Error with status %d", err, tc.status)
			}
			if m.Calls() != 1 || rec.Count() != 1 {
				t.Fatalf("%d requests, %d to %s; want 1", m.Calls(), rec.Count(), tc.path)
			}
			if r := rec.Last(t); r.Header.Get("Authorization") != "Bearer "+testToken {
				t.Errorf("request %s %s auth %q", r.Method, r.Path, r.Header.Get("Authorization"))
			}
		})
	}
}

// method is the HTTP method of the universal POS endpoint at path.
func method(path string) string {
	if path == "/orders" {
		return http.MethodPost
	}
	return http.MethodGet
}

// A bad base URL fails every call, before anything is sent, with a final
// *Error that says what is wrong and the URL that was probably meant, as
// client.New does for the service's base URL.
func TestClientBadBaseURL(t *testing.T) {
	t.Parallel()
	const prefix = "universalpos: GET /health: POS base URL "
	tests := []struct{ base, want string }{
		{"", `"" is empty`},
		{"pos.example.com", `"pos.example.com" is not an absolute URL (no http:// or https://); use "https://pos.example.com"`},
		{"127.0.0.1:9090/pos", `"127.0.0.1:9090/pos" is not an absolute URL (no http:// or https://); use "http://127.0.0.1:9090/pos"`},
		{"http:/localhost:9090", `"http:/localhost:9090" is malformed; use "http://localhost:9090"`},
		{"ftp://pos.example.com", `"ftp://pos.example.com" has the scheme "ftp"; a universal POS speaks http or https; use "https://pos.example.com"`},
		{"http://", `"http://" has no host; use the URL the POS serves /health, /menus and /orders under, such as "https://pos.example.com/"`},
		{"://x", `"://x" is not a valid URL: missing protocol scheme`},
		{" https://pos.example.com", `" https://pos.example.com" has spaces around it; use "https://pos.example.com"`},
		{"ws://admin:hunter2@127.0.0.1:9090", `"ws://admin:REDACTED@127.0.0.1:9090" has the scheme "ws"; a universal POS speaks http or https; use "http://admin@127.0.0.1:9090"`},
	}
	sent := &atomic.Int32{}
	hc := &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
		sent.Add(1)
		return nil, errors.New("sent")
	})}
	for _, tt := range tests {
		_, err := universalpos.NewClient(tt.base, testToken, universalpos.WithHTTPClient(hc)).Health(context.Background())
		var e *universalpos.Error
		if !errors.As(err, &e) || e.Temporary() {
			t.Errorf("%q: err = %v, want a final *Error", tt.base, err)
			continue
		}
		if !errors.Is(err, client.ErrInvalidBaseURL) {
			t.Errorf("%q: err = %v, want it to match client.ErrInvalidBaseURL", tt.base, err)
		}
		if got := err.Error(); got != prefix+tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.base, got, prefix+tt.want)
		}
	}
	if n := sent.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestClientBaseURLWithPath(t *testing.T) {
	t.Parallel()
	h := universalpos.NewHandler(newTestProvider(), universalpos.HandlerOptions{Token: testToken})
	mux := http.NewServeMux()
	mux.Handle("/pos/v1/", http.StripPrefix("/pos/v1", h))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	// A query or fragment is dropped, not refused.
	for _, base := range []string{srv.URL + "/pos/v1", srv.URL + "/pos/v1/", srv.URL + "/pos/v1/?env=test#top"} {
		if _, err := universalpos.NewClient(base, testToken).Health(context.Background()); err != nil {
			t.Errorf("%s: %v", base, err)
		}
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  *universalpos.Error
		want string
	}{
		{&universalpos.Error{Op: "POST /orders", StatusCode: 400, Message: "invalid order", Fields: map[string]string{"total": "required", "items": "required"}},
			"universalpos: POST /orders: 400 Bad Request: invalid order (items: required; total: required)"},
		{&universalpos.Error{Op: "GET /health", Message: "timed out after 10s", Err: context.DeadlineExceeded},
			"universalpos: GET /health: timed out after 10s"},
		{&universalpos.Error{Op: "GET /menus", Err: errors.New("connection refused")},
			"universalpos: GET /menus: connection refused"},
		{&universalpos.Error{StatusCode: 502}, "universalpos: 502 Bad Gateway"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
