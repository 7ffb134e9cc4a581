package possync

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// fakeAPI stands in for the service. Its zero value accepts everything;
// pushFn, when set, decides each push.
type fakeAPI struct {
	mu         sync.Mutex
	pushes     []*Check // every push received, in order
	pushFn     func(ctx context.Context, c *Check) error
	pending    map[int64][]PaymentNotification
	accepted   []int64
	acceptFn   func(ctx context.Context, id int64) error
	polls      int
	heartbeats int
}

func (f *fakeAPI) PushCheck(ctx context.Context, c *Check, _ ...client.Option) (PushResult, error) {
	f.mu.Lock()
	fn := f.pushFn
	f.mu.Unlock()
	if fn != nil {
		if err := fn(ctx, c); err != nil {
			return PushResult{}, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pushes = append(f.pushes, c)
	return PushResult{BillID: fmt.Sprint("b-", c.CheckNumber), Version: int64(len(f.pushes))}, nil
}

func (f *fakeAPI) Payments(context.Context, int64, ...client.Option) (map[int64][]PaymentNotification, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polls++
	out := map[int64][]PaymentNotification{}
	for n, ps := range f.pending {
		out[n] = append([]PaymentNotification(nil), ps...)
	}
	return out, nil
}

func (f *fakeAPI) AcceptPayment(ctx context.Context, id int64, _ ...client.Option) (AcceptResult, error) {
	f.mu.Lock()
	fn := f.acceptFn
	f.mu.Unlock()
	if fn != nil {
		if err := fn(ctx, id); err != nil {
			return AcceptResult{}, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.accepted = append(f.accepted, id)
	for n, ps := range f.pending {
		for i, p := range ps {
			if p.PaymentID == id {
				f.pending[n] = append(ps[:i:i], ps[i+1:]...)
			}
		}
		if len(f.pending[n]) == 0 {
			delete(f.pending, n)
		}
	}
	return AcceptResult{PaymentID: id, Status: "accepted"}, nil
}

func (f *fakeAPI) Heartbeat(context.Context, int64, ...client.Option) (HeartbeatResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.heartbeats++
	return HeartbeatResult{Status: "ok"}, nil
}

// sent returns the check numbers and outstanding amounts pushed, in order.
func (f *fakeAPI) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.pushes {
		out = append(out, fmt.Sprintf("%d:%s", c.CheckNumber, c.OutstandingAmount))
	}
	return out
}

// testConfig is an AgentConfig with millisecond intervals.
func testConfig() AgentConfig {
	return AgentConfig{
		LocationID:        1,
		SavePayment:       func(context.Context, int64, PaymentNotification) error { return nil },
		PollInterval:      time.Hour, // tests poll with PollNow
		HeartbeatInterval: time.Hour,
		RetryMin:          time.Millisecond,
		RetryMax:          5 * time.Millisecond,
		DrainTimeout:      time.Second,
	}
}

// checkN returns a small valid check with the given number and outstanding
// amount in cents.
func checkN(n int64, outstanding int64) *Check {
	return &Check{
		CheckNumber: n, LocationID: 1, StaffID: "s", Status: CheckOpen,
		TotalAmount: client.MoneyFromCents(10000), OutstandingAmount: client.MoneyFromCents(outstanding),
		MenuItems: []MenuItem{{ID: 1, Name: "Soup", Quantity: 1, Price: client.MoneyFromCents(450),
			PriceSold: client.MoneyFromCents(450), Category: Category{Name: "Starters"}}},
	}
}

// startAgent runs a in the background and returns a stop function that
// cancels it and waits for Run to return.
func startAgent(t *testing.T, a *Agent) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func newTestAgent(t *testing.T, api API, cfg AgentConfig) *Agent {
	t.Helper()
	a, err := NewAgent(api, cfg)
	if err != nil {
		t.Fatalf("NewAgent: %v", err)
	}
	return a
}

func TestNewAgentConfig(t *testing.T) {
	t.Parallel()
	save := func(context.Context, int64, PaymentNotification) error { return nil }
	broken := newMemStore()
	broken.loadErr = errors.New("disk on fire")
	tests := []struct {
		name string
		api  API
		cfg  AgentConfig
	}{
		{"nil api", nil, AgentConfig{LocationID: 1, SavePayment: save}},
		{"no location", &fakeAPI{}, AgentConfig{SavePayment: save}},
		{"no SavePayment", &fakeAPI{}, AgentConfig{LocationID: 1}},
		{"store that cannot load", &fakeAPI{}, AgentConfig{LocationID: 1, SavePayment: save, Store: broken}},
	}
	for _, tt := range tests {
		if _, err := NewAgent(tt.api, tt.cfg); err == nil {
			t.Errorf("%s: NewAgent succeeded", tt.name)
		}
	}
	if broken.isOpen() || broken.closes != 1 {
		t.Errorf("a store that failed to load must be closed (closes %d)", broken.closes)
	}
	a := newTestAgent(t, &fakeAPI{}, AgentConfig{LocationID: 1, SavePayment: save})
	want := AgentConfig{
		LocationID: 1, PollInterval: DefaultPollInterval, HeartbeatInterval: DefaultHeartbeatInterval,
		RetryMin: DefaultRetryMin, RetryMax: DefaultRetryMax, MaxQueued: DefaultMaxQueued,
		RequestTimeout: DefaultRequestTimeout, SendConcurrency: DefaultSendConcurrency, DrainTimeout: DefaultDrainTimeout,
	}
	got := a.cfg
	got.SavePayment, got.Logger = nil, nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestAgentDelivers(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{}
	a := newTestAgent(t, api, testConfig())
	for n := int64(1); n <= 3; n++ {
		if err := a.Push(checkN(n, 100*n)); err != nil {
			t.Fatal(err)
		}
	}
	startAgent(t, a)
	flush(t, a)
	if s := a.Stats(); s.Sent != 3 || s.Queued != 0 {
		t.Errorf("after Flush: %v", s)
	}
	if got := len(api.sent()); got != 3 {
		t.Errorf("%d pushes, want 3", got)
	}
}

func TestAgentCoalescesPerCheck(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 10)
	release := make(chan struct{})
	api := &fakeAPI{}
	api.pushFn = func(ctx context.Context, c *Check) error {
		if c.CheckNumber == 1 {
			started <- struct{}{}
			<-release
		}
		return nil
	}
	a := newTestAgent(t, api, testConfig())
	// Before Run, pushes of one check coalesce in the queue.
	for i := int64(1); i <= 5; i++ {
		if err := a.Push(checkN(7, i)); err != nil {
			t.Fatal(err)
		}
	}
	if q := a.Stats().Queued; q != 1 {
		t.Errorf("Queued = %d after 5 pushes of one check, want 1", q)
	}
	startAgent(t, a)
	// While state 1 of check 1 is in flight, states 2..5 coalesce into one.
	if err := a.Push(checkN(1, 1)); err != nil {
		t.Fatal(err)
	}
	<-started
	for i := int64(2); i <= 5; i++ {
		if err := a.Push(checkN(1, i)); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	flush(t, a)
	if s := a.Stats(); s.Queued != 0 || s.Sent != 3 {
		t.Errorf("after Flush: %v", s)
	}

	var check1 []string
	for _, s := range api.sent() {
		if s[:2] == "1:" {
			check1 = append(check1, s)
		}
	}
	if diff := cmp.Diff([]string{"1:0.01", "1:0.05"}, check1); diff != "" {
		t.Errorf("states of check 1 sent (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(true, contains(api.sent(), "7:0.05") && !contains(api.sent(), "7:0.01")); diff != "" {
		t.Errorf("check 7: only the newest state must be sent; sent %v", api.sent())
	}
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func TestAgentOutboxFull(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxQueued = 2
	a := newTestAgent(t, &fakeAPI{}, cfg)
	for n := int64(1); n <= 2; n++ {
		if err := a.Push(checkN(n, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Push(checkN(3, 1)); !errors.Is(err, ErrOutboxFull) {
		t.Fatalf("third distinct check: err = %v, want ErrOutboxFull", err)
	}
	if err := a.Push(checkN(1, 2)); err != nil {
		t.Fatalf("a newer state of a queued check must replace it: %v", err)
	}
	startAgent(t, a)
	flush(t, a)
	if err := a.Push(checkN(3, 1)); err != nil {
		t.Fatalf("after delivery there is room: %v", err)
	}
}

func TestAgentPushNeverBlocks(t *testing.T) {
	t.Parallel()
	for _, durable := range []bool{false, true} {
		t.Run(fmt.Sprint("durable=", durable), func(t *testing.T) {
			t.Parallel()
			// The service hangs: every push waits until it is cancelled.
			api := &fakeAPI{pushFn: func(ctx context.Context, _ *Check) error { <-ctx.Done(); return ctx.Err() }}
			cfg := testConfig()
			cfg.DrainTimeout = -1
			var st *memStore
			if durable {
				// A store whose writes wait until the test ends: Push must
				// not wait for it.
				st = newMemStore()
				st.hold = make(chan struct{})
				cfg.Store = st
			}
			a := newTestAgent(t, api, cfg)
			startAgent(t, a)
			if st != nil {
				t.Cleanup(func() { close(st.hold) }) // before the agent is stopped
			}
			pushAllOrHang(t, a, 2000, func(i int) *Check { return checkN(int64(i%500)+1, int64(i)) },
				"Push blocked while the service (and the store) hang")
			if q := a.Stats().Queued; q != 500 {
				t.Errorf("Queued = %d, want 500", q)
			}
		})
	}
}

// pushAllOrHang pushes n checks, mk(0) to mk(n-1), from another goroutine
// and fails the test with hang if they do not end within a minute: a hang
// detector, as a Push that waits never ends.
func pushAllOrHang(t *testing.T, a *Agent, n int, mk func(i int) *Check, hang string) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		for i := range n {
			if err := a.Push(mk(i)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal(hang)
	}
}

func TestAgentBackoffOn503(t *testing.T) {
	t.Parallel()
	const failFirst = 6
	var calls, inflight, maxProbeInflight, keyed atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.Header.Get("Idempotency-Key") != "" {
			keyed.Add(1)
		}
		cur := inflight.Add(1)
		defer inflight.Add(-1)
		// Requests 2..failFirst+1 arrive after the first failure and before
		// the first success: the agent must send them one at a time.
		if n >= 2 && n <= failFirst+1 && cur > maxProbeInflight.Load() {
			maxProbeInflight.Store(cur)
		}
		w.Header().Set("Content-Type", "application/json")
		if n <= failFirst {
			time.Sleep(time.Millisecond) // give other sends a chance to overlap, were they allowed
			w.WriteHeader(503)
			fmt.Fprint(w, sdktest.ErrorBody(client.Code(503001), ""))
			return
		}
		fmt.Fprint(w, `{"billId":"b","version":1,`+requestInfoJSON+`}`)
	}))
	defer srv.Close()
	c, err := client.New(client.WithBaseURL(srv.URL), client.WithAccessToken(testToken))
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAgent(t, &onlyPush{NewService(c)}, testConfig())
	startAgent(t, a)
	_ = a.Push(checkN(1, 1))
	sdktest.Eventually(t, "the first failure", func() bool { return a.Stats().Retried > 0 })
	for n := int64(2); n <= 8; n++ {
		_ = a.Push(checkN(n, 1))
	}
	flush(t, a)
	s := a.Stats()
	// The client's own retries are off: every 503 is one agent retry.
	if s.Retried != failFirst || s.Sent != 8 || s.Failed != 0 {
		t.Errorf("Retried %d Sent %d Failed %d, want %d 8 0", s.Retried, s.Sent, s.Failed, failFirst)
	}
	if got := calls.Load(); got != failFirst+8 {
		t.Errorf("%d requests, want %d", got, failFirst+8)
	}
	if m := maxProbeInflight.Load(); m != 1 {
		t.Errorf("%d sends in flight at once while the service was failing, want 1", m)
	}
	var ae *client.APIError
	if !errors.As(s.LastError, &ae) || ae.HTTPStatus != 503 {
		t.Errorf("LastError = %v, want the 503", s.LastError)
	}
	if k := keyed.Load(); k != 0 {
		t.Errorf("%d pushes carried an Idempotency-Key; the agent's pushes need none", k)
	}
}

// TestAgentPushWakesDispatcherOnce checks that Push wakes the dispatcher
// only when the ready list stops being empty (with the service down it
// never empties, and a wake per push only found the backoff running), and
// that the checks pushed meanwhile are still all delivered.
func TestAgentPushWakesDispatcherOnce(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{}
	a := newTestAgent(t, api, testConfig())
	if err := a.Push(checkN(1, 1)); err != nil {
		t.Fatal(err)
	}
	if len(a.wakeSend) != 1 {
		t.Fatal("the first push did not wake the dispatcher")
	}
	<-a.wakeSend // as the dispatcher would, leaving check 1 ready
	for _, c := range []*Check{checkN(2, 1), checkN(1, 2), checkN(3, 1)} {
		if err := a.Push(c); err != nil {
			t.Fatal(err)
		}
	}
	if len(a.wakeSend) != 0 {
		t.Error("a push onto a ready list that was not empty woke the dispatcher")
	}
	startAgent(t, a)
	flush(t, a)
	one, two := client.MoneyFromCents(1).String(), client.MoneyFromCents(2).String()
	if got := sorted(api.sent()); !slices.Equal(got, []string{"1:" + two, "2:" + one, "3:" + one}) {
		t.Errorf("sent %v, want checks 1 (its second state), 2 and 3", got)
	}
}

// onlyPush is an API whose polls and heartbeats succeed without a server,
// so that a test server sees check pushes only.
type onlyPush struct{ *Service }

func (onlyPush) Payments(context.Context, int64, ...client.Option) (map[int64][]PaymentNotification, error) {
	return map[int64][]PaymentNotification{}, nil
}

func (onlyPush) Heartbeat(context.Context, int64, ...client.Option) (HeartbeatResult, error) {
	return HeartbeatResult{Status: "ok"}, nil
}

func TestBackoffDelay(t *testing.T) {
	t.Parallel()
	lo, hi := 100*time.Millisecond, 2*time.Second
	tests := []struct {
		n        int
		after    time.Duration
		min, max time.Duration
	}{
		{1, 0, 50 * time.Millisecond, 100 * time.Millisecond},
		{2, 0, 100 * time.Millisecond, 200 * time.Millisecond},
		{4, 0, 400 * time.Millisecond, 800 * time.Millisecond},
		{6, 0, time.Second, 2 * time.Second}, // capped at hi
		{100, 0, time.Second, 2 * time.Second},
		{0, 0, 50 * time.Millisecond, 100 * time.Millisecond},
		{1, 1500 * time.Millisecond, 1500 * time.Millisecond, 1500 * time.Millisecond}, // Retry-After honoured
		{1, time.Hour, hi, hi},                                                         // and capped
	}
	for _, tt := range tests {
		for range 50 {
			if d := backoffDelay(lo, hi, tt.n, tt.after); d < tt.min || d > tt.max {
				t.Errorf("backoffDelay(n=%d, after=%v) = %v, want in [%v, %v]", tt.n, tt.after, d, tt.min, tt.max)
				break
			}
		}
	}
}

func TestAgentDropsRefusedCheck(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{pushFn: func(_ context.Context, c *Check) error {
		if c.CheckNumber == 2 {
			return &client.APIError{HTTPStatus: 400, Code: client.CodeValidation, ContextData: []byte(`{"staffId":"required"}`)}
		}
		return nil
	}}
	a := newTestAgent(t, api, testConfig())
	_ = a.Push(checkN(1, 1))
	_ = a.Push(checkN(2, 1))
	startAgent(t, a)
	sdktest.Eventually(t, "settling", func() bool { return a.Stats().Queued == 0 })
	if s := a.Stats(); s.Sent != 1 || s.Failed != 1 || !errors.Is(s.LastError, client.ErrValidation) {
		t.Errorf("Sent %d Failed %d LastError %v", s.Sent, s.Failed, s.LastError)
	}
}

func TestAgentKeepsChecksOnAuthErrors(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	fail.Store(true)
	api := &fakeAPI{pushFn: func(context.Context, *Check) error {
		if fail.Load() {
			return &client.APIError{HTTPStatus: 401, Code: client.CodeAccessTokenInvalid}
		}
		return nil
	}}
	a := newTestAgent(t, api, testConfig())
	_ = a.Push(checkN(1, 1))
	startAgent(t, a)
	sdktest.Eventually(t, "retries", func() bool { return a.Stats().Retried >= 3 })
	if s := a.Stats(); s.Queued != 1 || s.Failed != 0 {
		t.Errorf("Queued %d Failed %d: a credential problem must not drop checks", s.Queued, s.Failed)
	}
	fail.Store(false)
	flush(t, a)
}

func TestAgentStopsOnCancel(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{pushFn: func(ctx context.Context, _ *Check) error { <-ctx.Done(); return ctx.Err() }}
	cfg := testConfig()
	cfg.DrainTimeout = 10 * time.Millisecond
	a := newTestAgent(t, api, cfg)
	_ = a.Push(checkN(1, 1))
	stop := startAgent(t, a)
	sdktest.Eventually(t, "the send to start", func() bool { a.mu.Lock(); defer a.mu.Unlock(); return a.inflight == 1 })
	stop() // returns only once Run has returned
	if s := a.Stats(); s.Queued != 1 || s.Sent != 0 {
		t.Errorf("Queued %d Sent %d", s.Queued, s.Sent)
	}
	if err := a.Push(checkN(2, 1)); !errors.Is(err, ErrAgentClosed) {
		t.Errorf("Push after Run: %v, want ErrAgentClosed", err)
	}
	if err := a.Run(context.Background()); !errors.Is(err, ErrAgentClosed) {
		t.Errorf("second Run: %v, want ErrAgentClosed", err)
	}
}

func TestAgentRunTwice(t *testing.T) {
	t.Parallel()
	a := newTestAgent(t, &fakeAPI{}, testConfig())
	startAgent(t, a)
	sdktest.Eventually(t, "Run to start", func() bool { return a.state.Load() == stateRunning })
	if err := a.Run(context.Background()); !errors.Is(err, ErrAgentRunning) {
		t.Errorf("second Run: %v, want ErrAgentRunning", err)
	}
}

func TestAgentDrainsOnCancel(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{}
	cfg := testConfig()
	// The drain ends once the queue is empty; its bound only has to be out
	// of reach of a busy machine.
	cfg.DrainTimeout = time.Minute
	a := newTestAgent(t, api, cfg)
	for n := int64(1); n <= 20; n++ {
		_ = a.Push(checkN(n, 1))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // cancelled before Run: everything queued is still delivered in the drain
	if err := a.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if s := a.Stats(); s.Sent != 20 || s.Queued != 0 {
		t.Errorf("Sent %d Queued %d after the drain", s.Sent, s.Queued)
	}
}

func TestAgentDurableStore(t *testing.T) {
	t.Parallel()
	store := newMemStore()
	down := &fakeAPI{pushFn: func(context.Context, *Check) error { return errors.New("connection refused") }}
	cfg := testConfig()
	cfg.Store = store
	a := newTestAgent(t, down, cfg)
	stop := startAgent(t, a)
	for n := int64(1); n <= 3; n++ {
		_ = a.Push(checkN(n, 100))
	}
	_ = a.Push(checkN(2, 50)) // newer state of check 2
	sdktest.Eventually(t, "a failed attempt", func() bool { return a.Stats().Retried > 0 })
	stop()
	if store.isOpen() {
		t.Fatal("Run did not close the store")
	}

	// A second agent on the same store delivers the final states.
	up := &fakeAPI{}
	b := newTestAgent(t, up, cfg)
	if q := b.Stats().Queued; q != 3 {
		t.Fatalf("Queued after restart = %d, want 3", q)
	}
	stop = startAgent(t, b)
	flush(t, b)
	stop()
	if diff := cmp.Diff([]string{"1:1.00", "2:0.50", "3:1.00"}, sorted(up.sent())); diff != "" {
		t.Errorf("delivered after restart (-want +got):\n%s", diff)
	}

	// Delivered checks are gone from the store.
	c := newTestAgent(t, &fakeAPI{}, cfg)
	if q := c.Stats().Queued; q != 0 {
		t.Errorf("Queued on a third start = %d, want 0", q)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestAgentCloseWithoutRunKeepsPushes(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Store = newMemStore()
	a := newTestAgent(t, &fakeAPI{}, cfg)
	_ = a.Push(checkN(5, 5))
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Push(checkN(6, 5)); !errors.Is(err, ErrAgentClosed) {
		t.Errorf("Push after Close: %v", err)
	}
	b := newTestAgent(t, &fakeAPI{}, cfg)
	defer b.Close()
	if q := b.Stats().Queued; q != 1 {
		t.Errorf("Queued = %d, want 1", q)
	}
}

func sorted(xs []string) []string {
	out := append([]string(nil), xs...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestAgentPushChecks(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{}
	a := newTestAgent(t, api, testConfig())
	bad := checkN(1, 1)
	bad.MenuItems[0].Quantity = -2
	if err := a.Push(bad); !errors.Is(err, client.ErrValidation) {
		t.Errorf("invalid check: %v", err)
	}
	other := checkN(2, 1)
	other.LocationID = 99
	if err := a.Push(other); err == nil {
		t.Error("a check of another location was queued")
	}
	if err := a.Push(nil); err == nil {
		t.Error("nil check was queued")
	}
	noLoc := checkN(3, 1)
	noLoc.LocationID = 0
	if err := a.Push(noLoc); err != nil {
		t.Fatalf("check without location: %v", err)
	}
	noLoc.OutstandingAmount = client.MoneyFromCents(999) // Push copied it
	startAgent(t, a)
	flush(t, a)
	api.mu.Lock()
	got := api.pushes[0]
	api.mu.Unlock()
	if got.LocationID != 1 || got.OutstandingAmount.Cents() != 1 {
		t.Errorf("sent location %d outstanding %v", got.LocationID, got.OutstandingAmount)
	}
}

func TestAgentHeartbeatAtStart(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{}
	a := newTestAgent(t, api, testConfig())
	startAgent(t, a)
	sdktest.Eventually(t, "heartbeat", func() bool { return !a.Stats().LastHeartbeat.IsZero() })
	sdktest.Eventually(t, "poll", func() bool { return !a.Stats().LastPoll.IsZero() })
}

// memStore is a Store in memory that outlives the agents using it, standing
// in for a file across restarts. Like possync/outbox, it refuses to be
// loaded by a second agent while open.
type memStore struct {
	mu      sync.Mutex
	checks  map[int64]*Check
	order   map[int64]int64 // check number -> first queued sequence
	seq     int64
	saved   map[int64]int64 // payment id -> check number
	open    bool
	closes  int
	hold    chan struct{} // when set, SaveChecks waits until it is closed
	loadErr error
}

func newMemStore() *memStore {
	return &memStore{checks: map[int64]*Check{}, order: map[int64]int64{}, saved: map[int64]int64{}}
}

func (m *memStore) Load(context.Context) ([]*Check, []int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.loadErr != nil {
		m.open = true
		return nil, nil, m.loadErr
	}
	if m.open {
		return nil, nil, errors.New("memStore: in use")
	}
	m.open = true
	var checks []*Check
	for _, c := range m.checks {
		checks = append(checks, c)
	}
	slices.SortFunc(checks, func(a, b *Check) int { return int(m.order[a.CheckNumber] - m.order[b.CheckNumber]) })
	var saved []int64
	for id := range m.saved {
		saved = append(saved, id)
	}
	slices.Sort(saved)
	return checks, saved, nil
}

func (m *memStore) SaveChecks(ctx context.Context, put []*Check, remove []int64) error {
	if m.hold != nil {
		select {
		case <-m.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.open {
		return errors.New("memStore: closed")
	}
	for _, c := range put {
		if _, ok := m.order[c.CheckNumber]; !ok {
			m.seq++
			m.order[c.CheckNumber] = m.seq
		}
		m.checks[c.CheckNumber] = c
	}
	for _, n := range remove {
		delete(m.checks, n)
		delete(m.order, n)
	}
	return nil
}

func (m *memStore) PutSavedPayment(_ context.Context, id, checkNumber int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.saved[id] = checkNumber
	return nil
}

func (m *memStore) DeleteSavedPayment(_ context.Context, id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.saved, id)
	return nil
}

func (m *memStore) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.open = false
	m.closes++
	return nil
}

func (m *memStore) isOpen() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.open
}

func (m *memStore) savedIDs() []int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []int64
	for id := range m.saved {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func TestStoreRefusesSecondAgent(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Store = newMemStore()
	a := newTestAgent(t, &fakeAPI{}, cfg)
	defer a.Close()
	if b, err := NewAgent(&fakeAPI{}, cfg); err == nil {
		b.Close()
		t.Fatal("a second agent loaded a store in use")
	}
}
