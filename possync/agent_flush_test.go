package possync

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// flushTimeout bounds a Flush that should succeed; it only catches a hang.
const flushTimeout = 30 * time.Second

// flush waits for a's pushes to be delivered, failing the test otherwise.
func flush(t *testing.T, a *Agent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := a.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// goFlush runs Flush in the background, returns the channel its error
// arrives on, and waits until Flush has taken its snapshot of the queue,
// so that what the test pushes next comes after the call.
func goFlush(t *testing.T, ctx context.Context, a *Agent) <-chan error {
	t.Helper()
	a.mu.Lock()
	before := len(a.waiters)
	a.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- a.Flush(ctx) }()
	sdktest.Eventually(t, "Flush to start waiting", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		return len(a.waiters) > before
	})
	return done
}

// pushMock is the push endpoint of an httpmock service: each push is
// announced on arrived (check number and outstanding amount) and answered
// by answer.
type pushMock struct {
	arrived chan string
	answer  func(r *http.Request, c *Check) (*http.Response, error)
}

// newMockAgent returns an agent over a Service whose client talks to
// httpmock: heartbeats and polls succeed, pushes go to pm.
func newMockAgent(t *testing.T, pm *pushMock, cfg AgentConfig) *Agent {
	t.Helper()
	s, m := newMockService(t)
	m.Reply(http.MethodPost, "v1/pos/push-pull/heartbeat/1", 200, `{"status":"ok",`+requestInfoJSON+`}`)
	m.Reply(http.MethodGet, "v1/pos/push-pull/payments/1", 200, `{"checks":{},`+requestInfoJSON+`}`)
	m.Handle(http.MethodPost, "v1/pos/push-pull/check", func(r *http.Request) (*http.Response, error) {
		var c Check
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			t.Errorf("push body: %v", err)
		}
		if pm.arrived != nil {
			select {
			case pm.arrived <- c.OutstandingAmount.String():
			case <-r.Context().Done():
				return nil, r.Context().Err()
			}
		}
		if pm.answer != nil {
			return pm.answer(r, &c)
		}
		return delivered(), nil
	})
	return newTestAgent(t, s, cfg)
}

func delivered() *http.Response {
	return sdktest.JSONResponse(200, `{"billId":"b-1","version":1,`+requestInfoJSON+`}`)
}

// holdUntil answers a push once release yields, or fails it when the
// request ends first.
func holdUntil(release <-chan struct{}) func(*http.Request, *Check) (*http.Response, error) {
	return func(r *http.Request, _ *Check) (*http.Response, error) {
		select {
		case <-release:
			return delivered(), nil
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
}

func TestFlushWithNothingQueued(t *testing.T) {
	t.Parallel()
	a := newMockAgent(t, &pushMock{}, testConfig())
	defer a.Close()
	if err := a.Flush(context.Background()); err != nil {
		t.Errorf("Flush of an empty agent that is not running: %v", err)
	}
}

func TestFlushWaitsForDelivery(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	pm := &pushMock{arrived: make(chan string, 10), answer: holdUntil(release)}
	a := newMockAgent(t, pm, testConfig())
	for n := int64(1); n <= 3; n++ {
		if err := a.Push(checkN(n, n)); err != nil {
			t.Fatal(err)
		}
	}
	first := goFlush(t, context.Background(), a) // before Run: waits for it
	startAgent(t, a)
	second := goFlush(t, context.Background(), a)
	var got []string
	for range 3 {
		got = append(got, <-pm.arrived)
	}
	for _, done := range []<-chan error{first, second} {
		select {
		case err := <-done:
			t.Fatalf("Flush returned %v with every push still unanswered", err)
		default:
		}
	}
	close(release)
	for i, done := range []<-chan error{first, second} {
		if err := <-done; err != nil {
			t.Errorf("Flush %d: %v", i+1, err)
		}
	}
	if diff := cmp.Diff([]string{"0.01", "0.02", "0.03"}, sorted(got)); diff != "" {
		t.Errorf("pushes (-want +got):\n%s", diff)
	}
	if s := a.Stats(); s.Sent != 3 || s.Queued != 0 {
		t.Errorf("after Flush: %v", s)
	}
}

// A check pushed after the call is not waited for.
func TestFlushIgnoresLaterPushes(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	pm := &pushMock{arrived: make(chan string, 10)}
	pm.answer = func(r *http.Request, c *Check) (*http.Response, error) {
		if c.CheckNumber == 2 { // never answered while the test runs
			<-r.Context().Done()
			return nil, r.Context().Err()
		}
		return holdUntil(release)(r, c)
	}
	cfg := testConfig()
	cfg.DrainTimeout = -1 // check 2 is never answered
	a := newMockAgent(t, pm, cfg)
	_ = a.Push(checkN(1, 1))
	startAgent(t, a)
	<-pm.arrived
	done := goFlush(t, context.Background(), a)
	_ = a.Push(checkN(2, 2))
	<-pm.arrived
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Flush: %v", err)
	}
	if q := a.Stats().Queued; q != 1 {
		t.Errorf("Queued = %d, want check 2 still waiting", q)
	}
}

// When a newer state of a check was pushed before the call, the answer to
// an older state in flight does not settle it: the newer one must arrive.
func TestFlushWaitsForTheNewestState(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	pm := &pushMock{arrived: make(chan string, 10), answer: holdUntil(release)}
	a := newMockAgent(t, pm, testConfig())
	_ = a.Push(checkN(1, 1))
	startAgent(t, a)
	if got := <-pm.arrived; got != "0.01" {
		t.Fatalf("first push %s", got)
	}
	_ = a.Push(checkN(1, 2))
	done := goFlush(t, context.Background(), a)
	release <- struct{}{} // the answer to state 1
	if got := <-pm.arrived; got != "0.02" {
		t.Fatalf("second push %s", got)
	}
	select {
	case err := <-done:
		t.Fatalf("Flush returned %v before the newest state was answered", err)
	default:
	}
	release <- struct{}{}
	if err := <-done; err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

func TestFlushReportsRefusedChecks(t *testing.T) {
	t.Parallel()
	pm := &pushMock{answer: func(_ *http.Request, c *Check) (*http.Response, error) {
		if c.CheckNumber == 2 {
			return sdktest.JSONResponse(400, sdktest.ErrorBody(client.CodeValidation, `{"staffId":"required"}`)), nil
		}
		return delivered(), nil
	}}
	a := newMockAgent(t, pm, testConfig())
	for n := int64(1); n <= 3; n++ {
		_ = a.Push(checkN(n, n))
	}
	done := goFlush(t, context.Background(), a)
	startAgent(t, a)
	err := <-done
	if !errors.Is(err, client.ErrValidation) {
		t.Fatalf("Flush: %v, want the service's 400002", err)
	}
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.FieldErrors()["staffId"] != "required" {
		t.Errorf("Flush: %v, want the *client.APIError with its fields", err)
	}
	for _, want := range []string{"refused 1 of 3 checks", "check 2: "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Flush: %q, want it to say %q", err, want)
		}
	}
	if s := a.Stats(); s.Sent != 2 || s.Failed != 1 || s.Queued != 0 {
		t.Errorf("after Flush: %v", s)
	}
}

func TestFlushUntilContextEnds(t *testing.T) {
	t.Parallel()
	pm := &pushMock{arrived: make(chan string), answer: func(*http.Request, *Check) (*http.Response, error) {
		return nil, errors.New("connection refused")
	}}
	a := newMockAgent(t, pm, testConfig())
	_ = a.Push(checkN(1, 1))
	_ = a.Push(checkN(2, 1))
	startAgent(t, a)
	ctx, cancel := context.WithCancel(context.Background())
	done := goFlush(t, ctx, a)
	// Both checks go out at once; the third attempt starts only after a
	// failure is recorded.
	for range 3 {
		<-pm.arrived
	}
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Flush: %v, want context.Canceled", err)
	}
	for _, want := range []string{"2 of 2 checks not delivered yet", "last error: ", "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Flush: %q, want it to say %q", err, want)
		}
	}
}

func TestFlushWhenTheAgentStops(t *testing.T) {
	t.Parallel()
	down := func(*http.Request, *Check) (*http.Response, error) { return nil, errors.New("connection refused") }

	// Run returns while Flush waits.
	a := newMockAgent(t, &pushMock{answer: down}, testConfig())
	_ = a.Push(checkN(1, 1))
	stop := startAgent(t, a)
	done := goFlush(t, context.Background(), a)
	stop()
	if err := <-done; !errors.Is(err, ErrAgentClosed) || !strings.Contains(err.Error(), "1 of 1 checks not delivered") {
		t.Errorf("Flush while Run returns: %v, want ErrAgentClosed", err)
	}
	if err := a.Flush(context.Background()); !errors.Is(err, ErrAgentClosed) {
		t.Errorf("Flush after Run returned: %v, want ErrAgentClosed", err)
	}

	// Close of an agent that never ran.
	b := newMockAgent(t, &pushMock{answer: down}, testConfig())
	_ = b.Push(checkN(1, 1))
	done = goFlush(t, context.Background(), b)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrAgentClosed) {
		t.Errorf("Flush while Close: %v, want ErrAgentClosed", err)
	}
}

// WaitPayments on an agent that has stopped says so at once.
func TestWaitPaymentsOnAStoppedAgent(t *testing.T) {
	t.Parallel()
	a := newMockAgent(t, &pushMock{arrived: make(chan string, 1)}, AgentConfig{LocationID: 1, SavePayment: func(context.Context, int64, PaymentNotification) error { return nil }})
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.WaitPayments(context.Background(), 7); !errors.Is(err, ErrAgentClosed) {
		t.Fatalf("WaitPayments = %v, want ErrAgentClosed", err)
	}
}
