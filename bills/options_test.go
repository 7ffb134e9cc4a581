package bills_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// seen records the API key and trace header of every request of a mock.
type seen struct {
	mu   sync.Mutex
	keys []string
	tags []string
}

func (s *seen) record(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = append(s.keys, r.Header.Get(client.HeaderAPIKey))
	s.tags = append(s.tags, r.Header.Get("X-Trace"))
}

func (s *seen) take() (keys, tags []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys, tags = s.keys, s.tags
	s.keys, s.tags = nil, nil
	return keys, tags
}

// newKeylessService returns a Service over httpmock whose Client holds no
// API key; the fake server f answers requests carrying testKey.
func newKeylessService(t *testing.T, f *fakeServer, s *seen) *bills.Service {
	t.Helper()
	m := sdktest.NewMock()
	m.Transport.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		s.record(r)
		return f.respond(r)
	})
	c, err := client.New(client.WithBaseURL(sdktest.BaseURL), client.WithHTTPClient(m.HTTPClient), client.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return bills.NewService(c)
}

// Every call takes client options last, for that call only.
func TestPerCallOptions(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f := &fakeServer{t: t, bills: summaries(t0, t0.Add(time.Hour), t0.Add(40*24*time.Hour))}
	var s seen
	svc := newKeylessService(t, f, &s)
	ctx := context.Background()
	opts := []client.Option{client.WithAPIKey(testKey), client.WithHeader("X-Trace", "t-1")}

	list, err := svc.ListClosed(ctx, 7, t0, t0.Add(24*time.Hour), opts...)
	if err != nil || len(list) != 2 {
		t.Fatalf("ListClosed with a per-call key: %v, %v", list, err)
	}
	b, err := svc.Get(ctx, "b1", []bills.Scope{bills.ScopeItems}, opts...)
	if err != nil || b.BillID != "b1" {
		t.Fatalf("Get with a per-call key: %v, %v", b, err)
	}
	ids, err := collect(svc.All(ctx, 7, t0, t0.Add(60*24*time.Hour), nil, opts...))
	if err != nil {
		t.Fatalf("All with a per-call key: %v", err)
	}
	if diff := cmp.Diff([]string{"b0", "b1", "b2"}, ids); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	// 1 list, 1 get, then All: 2 windows and 3 fetches, every one with
	// the options.
	keys, tags := s.take()
	if len(keys) != 7 {
		t.Fatalf("%d requests, want 7", len(keys))
	}
	for i := range keys {
		if keys[i] != testKey || tags[i] != "t-1" {
			t.Errorf("request %d: key %q, X-Trace %q; want the per-call options", i+1, keys[i], tags[i])
		}
	}

	// The options applied to those calls only.
	if _, err := svc.Get(ctx, "b1", nil); !errors.Is(err, client.ErrNoCredential) {
		t.Errorf("Get without options: %v, want ErrNoCredential", err)
	}
	if _, err := svc.ListClosed(ctx, 7, t0, t0); !errors.Is(err, client.ErrNoCredential) {
		t.Errorf("ListClosed without options: %v, want ErrNoCredential", err)
	}
	if _, err := collect(svc.All(ctx, 7, t0, t0, nil)); !errors.Is(err, client.ErrNoCredential) {
		t.Errorf("All without options: %v, want ErrNoCredential", err)
	}
	if keys, _ := s.take(); len(keys) != 0 {
		t.Errorf("%d requests sent without a credential", len(keys))
	}
}

// A per-call retry policy retries that call only.
func TestPerCallRetries(t *testing.T) {
	t.Parallel()
	var calls int
	var mu sync.Mutex
	svc := newTestService(t, func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n <= 2 { // the call without retries, then the first attempt of the one with
			return sdktest.ErrorResponse(client.CodeInternal), nil
		}
		return sdktest.JSONResponse(http.StatusOK, `{"bill":{"billId":"b1"},`+sdktest.RequestInfo(3)+`}`), nil
	})
	ctx := context.Background()
	if _, err := svc.Get(ctx, "b1", nil); !errors.Is(err, client.ErrInternal) {
		t.Fatalf("Get on a Client without retries: %v, want the 500001", err)
	}
	retry := client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 1, MinBackoff: time.Microsecond, MaxBackoff: time.Millisecond})
	if _, err := svc.Get(ctx, "b1", nil, retry); err != nil {
		t.Fatalf("Get with a per-call retry: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 3 {
		t.Errorf("%d requests, want 1 + 2", calls)
	}
}
