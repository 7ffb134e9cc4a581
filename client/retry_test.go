package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
	"golang.org/x/time/rate"

	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// sequence answers with the given responders in turn, the last one for good.
func sequence(rs ...httpmock.Responder) httpmock.Responder {
	var mu sync.Mutex
	i := 0
	return func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		cur := rs[min(i, len(rs)-1)]
		i++
		mu.Unlock()
		return cur(r)
	}
}

func ok(r *http.Request) (*http.Response, error) {
	return httpmock.NewStringResponse(200, `{"ok":true}`), nil
}

func status(code int) httpmock.Responder { return httpmock.NewStringResponder(code, ``) }

func TestRetryGETOn5xxAnd429(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		responder httpmock.Responder
		wantCalls int
		wantErr   error
	}{
		{"503 then ok", sequence(sdktest.ErrorResponder(Code(503001)), ok), 2, nil},
		{"500 502 504 then ok", sequence(status(500), status(502), status(504), ok), 4, nil},
		{"429 then ok", sequence(sdktest.ErrorResponder(CodeTooManyRequests, "Retry-After", "1"), ok), 2, nil},
		{"connection error then ok", sequence(httpmock.ConnectionFailure, ok), 2, nil},
		{"503 until retries run out", sdktest.ErrorResponder(Code(503001)), 4, nil},
		{"501 not retried", status(501), 1, nil},
		{"404 not retried", sdktest.ErrorResponder(CodeNotFound), 1, ErrNotFound},
		{"400002 not retried", sdktest.ErrorResponder(CodeValidation), 1, ErrValidation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, m := newMockClient(t)
			m.Handle("GET", "v1/thing", tt.responder)
			_, err := c.Do(context.Background(), &Request{Path: "v1/thing"}, nil)
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if got := m.Calls(); got != tt.wantCalls {
				t.Errorf("%d attempts, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestLastErrorReturnedWhenRetriesRunOut(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	m.Handle("GET", "v1/thing", sequence(sdktest.ErrorResponder(CodeInternal), sdktest.ErrorResponder(CodeInternal), sdktest.ErrorResponder(CodeInternal),
		sdktest.ErrorResponder(CodeTooManyRequests, "Retry-After", "7")))
	_, err := c.Do(context.Background(), &Request{Path: "v1/thing"}, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want *APIError", err)
	}
	if !errors.Is(err, ErrTooManyRequests) {
		t.Errorf("err = %v, want the last response's ErrTooManyRequests", err)
	}
	if apiErr.HTTPStatus != 429 || apiErr.RetryAfter != 7*time.Second || apiErr.RequestID != "req-429001" {
		t.Errorf("APIError = %+v", apiErr)
	}
}

func TestRetryConnectionErrorsRunOut(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	m.Handle("GET", "v1/thing", httpmock.ConnectionFailure)
	_, err := c.Do(context.Background(), &Request{Path: "v1/thing"}, nil)
	var apiErr *APIError
	if err == nil || errors.As(err, &apiErr) {
		t.Errorf("err = %v, want a transport error", err)
	}
	if got := m.Calls(); got != 1+fastRetry.MaxRetries {
		t.Errorf("%d attempts, want %d", got, 1+fastRetry.MaxRetries)
	}
}

// TestRetryConnectionReset uses a real socket: the server resets the first
// connections, as a crashing proxy would.
func TestRetryConnectionReset(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0) // close with RST, not FIN
			}
			conn.Close()
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	c, err := New(WithBaseURL(srv.URL), WithHTTPClient(srv.Client()), WithRetryPolicy(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ OK bool }
	if _, err := c.Do(context.Background(), &Request{Path: "v1/thing"}, &out); err != nil {
		t.Fatalf("Do: %v", err)
	}
	if !out.OK || calls.Load() < 3 {
		t.Errorf("ok=%v after %d server calls, want success after >= 3", out.OK, calls.Load())
	}
}

func TestPOSTRetryAndIdempotencyKey(t *testing.T) {
	t.Parallel()
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	tests := []struct {
		name      string
		opts      []Option
		wantCalls int
		wantKey   string // "" none, "gen" generated
	}{
		{name: "generated key, retried", wantCalls: 3, wantKey: "gen"},
		{name: "caller's key, retried", opts: []Option{WithIdempotencyKey("order-42")}, wantCalls: 3, wantKey: "order-42"},
		{name: "no key, not retried", opts: []Option{WithoutIdempotencyKey()}, wantCalls: 1},
		{name: "key after no key wins", opts: []Option{WithoutIdempotencyKey(), WithIdempotencyKey("k2")}, wantCalls: 3, wantKey: "k2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, m := newMockClient(t)
			var keys []string
			var mu sync.Mutex
			record := func(r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				keys = append(keys, r.Header.Get(HeaderIdempotencyKey))
			}
			seq := sequence(sdktest.ErrorResponder(Code(503001)), httpmock.ConnectionFailure, ok)
			m.Handle("POST", "v1/pay", func(r *http.Request) (*http.Response, error) {
				record(r)
				return seq(r)
			})
			_, err := c.Do(context.Background(), &Request{Method: "POST", Path: "v1/pay", Body: map[string]int{"a": 1}}, nil, tt.opts...)
			if tt.wantCalls == 3 && err != nil {
				t.Fatalf("Do: %v", err)
			}
			if tt.wantCalls == 1 && !errors.Is(err, Code(503001)) {
				t.Fatalf("err = %v, want the 503", err)
			}
			if len(keys) != tt.wantCalls {
				t.Fatalf("%d attempts, want %d", len(keys), tt.wantCalls)
			}
			for i, k := range keys {
				switch {
				case tt.wantKey == "gen" && !hex32.MatchString(k):
					t.Errorf("attempt %d key %q, want 32 hex chars", i+1, k)
				case tt.wantKey != "gen" && k != tt.wantKey:
					t.Errorf("attempt %d key %q, want %q", i+1, k, tt.wantKey)
				case k != keys[0]:
					t.Errorf("attempt %d key %q differs from first %q", i+1, k, keys[0])
				}
			}
		})
	}
}

func TestIdempotencyKeyPerCall(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	var keys []string
	m.Handle("POST", "v1/pay", func(r *http.Request) (*http.Response, error) {
		keys = append(keys, r.Header.Get(HeaderIdempotencyKey))
		return ok(r)
	})
	m.Handle("GET", "v1/pay", func(r *http.Request) (*http.Response, error) {
		keys = append(keys, r.Header.Get(HeaderIdempotencyKey))
		return ok(r)
	})
	for range 2 {
		if _, err := c.Do(context.Background(), &Request{Method: "POST", Path: "v1/pay"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Do(context.Background(), &Request{Path: "v1/pay"}, nil); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || keys[0] == "" || keys[0] == keys[1] || keys[2] != "" {
		t.Errorf("keys = %q, want two different keys for the POSTs and none for the GET", keys)
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	p := RetryPolicy{MaxRetries: 3, MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, MaxRetryAfter: 10 * time.Second}
	withRetryAfter := func(v string) *http.Response {
		return &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {v}}}
	}
	tests := []struct {
		name     string
		attempt  int
		resp     *http.Response
		min, max time.Duration
	}{
		{"first wait jittered", 0, nil, 50 * time.Millisecond, 100 * time.Millisecond},
		{"doubles", 2, nil, 200 * time.Millisecond, 400 * time.Millisecond},
		{"capped", 30, nil, 500 * time.Millisecond, time.Second},
		{"Retry-After honoured", 0, withRetryAfter("7"), 7 * time.Second, 7 * time.Second},
		{"Retry-After clamped", 0, withRetryAfter("3600"), 10 * time.Second, 10 * time.Second},
		{"Retry-After zero", 1, withRetryAfter("0"), 0, 0},
		{"Retry-After date clamped", 0, withRetryAfter(time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)), 10 * time.Second, 10 * time.Second},
		{"Retry-After garbage ignored", 0, withRetryAfter("soon"), 50 * time.Millisecond, 100 * time.Millisecond},
		{"503 without header", 1, &http.Response{StatusCode: 503, Header: http.Header{}}, 100 * time.Millisecond, 200 * time.Millisecond},
	}
	noCap := p
	noCap.MaxRetryAfter = 0
	if got := noCap.backoff(p.MinBackoff, p.MaxBackoff, 0, withRetryAfter("3600")); got != p.MaxBackoff {
		t.Errorf("without MaxRetryAfter, Retry-After 3600 gives %v, want MaxBackoff %v", got, p.MaxBackoff)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for range 50 {
				got := p.backoff(p.MinBackoff, p.MaxBackoff, tt.attempt, tt.resp)
				if got < tt.min || got > tt.max {
					t.Fatalf("backoff = %v, want in [%v, %v]", got, tt.min, tt.max)
				}
			}
		})
	}
}

// TestRetryAfterClampedEndToEnd would sleep an hour if the clamp failed.
func TestRetryAfterClampedEndToEnd(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	m.Handle("GET", "v1/thing", sequence(sdktest.ErrorResponder(CodeTooManyRequests, "Retry-After", "3600"), ok))
	if _, err := c.Do(context.Background(), &Request{Path: "v1/thing"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := m.Calls(); got != 2 {
		t.Errorf("%d attempts, want 2", got)
	}
}

// TestCancelDuringBackoff: the server asks for an hour's wait; cancelling
// ctx must end the call with context.Canceled (the test would hang
// otherwise).
func TestCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t, WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinBackoff: time.Hour, MaxBackoff: time.Hour, MaxRetryAfter: time.Hour}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answered := make(chan struct{}, 1)
	m.Handle("GET", "v1/thing", func(r *http.Request) (*http.Response, error) {
		answered <- struct{}{}
		return sdktest.ErrorResponder(Code(503001), "Retry-After", "3600")(r)
	})
	go func() {
		<-answered
		cancel()
	}()
	_, err := c.Do(ctx, &Request{Path: "v1/thing"}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := m.Calls(); got != 1 {
		t.Errorf("%d attempts, want 1", got)
	}
}

func TestCancelledBeforeSend(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	m.Handle("GET", "v1/thing", ok)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Do(ctx, &Request{Path: "v1/thing"}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestPerCallMaxRetries(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	m.Handle("GET", "v1/thing", sdktest.ErrorResponder(Code(503001)))
	_, err := c.Do(context.Background(), &Request{Path: "v1/thing"}, nil, WithMaxRetries(1))
	if !errors.Is(err, Code(503001)) {
		t.Errorf("err = %v", err)
	}
	if got := m.Calls(); got != 2 {
		t.Errorf("%d attempts, want 2", got)
	}
}

// TestRateLimitSpendsTokensOnRetries: with a burst of 2 and one token an
// hour, the third attempt cannot get a token before the deadline, so the
// call fails after two attempts instead of sleeping.
func TestRateLimitSpendsTokensOnRetries(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t, WithRateLimit(rate.Every(time.Hour), 2))
	m.Handle("GET", "v1/thing", sdktest.ErrorResponder(Code(503001)))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := c.Do(ctx, &Request{Path: "v1/thing"}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want a deadline error from the limiter", err)
	}
	if got := m.Calls(); got != 2 {
		t.Errorf("%d attempts, want 2", got)
	}
}

func TestRateLimitWaitHonoursCancel(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t, WithRateLimit(rate.Every(time.Hour), 1))
	m.Handle("GET", "v1/thing", ok)
	if _, err := c.Do(context.Background(), &Request{Path: "v1/thing"}, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	_, err := c.Do(ctx, &Request{Path: "v1/thing"}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestAttemptTimeoutRetried(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	var calls atomic.Int32
	// The second attempt must answer within the timeout, however busy the
	// machine: the first one's wait for it is the test's only cost.
	c, m := newMockClient(t, WithTimeout(time.Second))
	m.Handle("GET", "v1/thing", func(r *http.Request) (*http.Response, error) {
		if calls.Add(1) == 1 {
			select { // hang until the attempt's timeout cancels the request
			case <-r.Context().Done():
				return nil, r.Context().Err()
			case <-release:
			}
		}
		return ok(r)
	})
	if _, err := c.Do(context.Background(), &Request{Path: "v1/thing"}, nil); err != nil {
		t.Fatalf("Do: %v", err)
	}
	if diff := cmp.Diff(int32(2), calls.Load()); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
}
