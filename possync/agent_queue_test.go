package possync

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// A push of a check that is already waiting allocates nothing: it writes
// the check's JSON into the buffer of the state it replaces. Each
// allocation per push is garbage the collector must come back for while
// the POS is pushing, which is what made Push's slowest calls slow.
func TestPushOfAWaitingCheckAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops sync.Pool contents at random")
	}
	a := newTestAgent(t, &fakeAPI{}, testConfig())
	defer a.Close()
	check := loadCheck(t)
	check.LocationID = 0 // filled in by Push, without a copy on the heap
	for n := range int64(10) {
		check.CheckNumber = n + 1
		if err := a.Push(check); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	allocs := testing.AllocsPerRun(200, func() {
		i++
		check.CheckNumber = int64(i%10) + 1
		check.OutstandingAmount = client.MoneyFromCents(int64(i))
		if err := a.Push(check); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per push of a waiting check, want 0", allocs)
	}
}

func TestValidateAllocatesNothing(t *testing.T) {
	check := loadCheck(t)
	if allocs := testing.AllocsPerRun(100, func() {
		if err := check.Validate(); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("Validate of a valid check: %v allocations, want 0", allocs)
	}
}

// The path of a modifier nested too deep names the index of every level.
func TestValidateNestingPathNamesEachIndex(t *testing.T) {
	check := loadCheck(t)
	var ms []Modifier
	for range MaxNesting + 1 {
		ms = []Modifier{{Name: "a"}, {Name: "b", Modifiers: ms}}
	}
	check.MenuItems[2].Modifiers = []Modifier{{Name: "x"}, {Name: "y"}, {Name: "z", Modifiers: ms}}
	var ve *client.ValidationError
	if err := check.Validate(); !errors.As(err, &ve) {
		t.Fatalf("Validate: %v, want a *client.ValidationError", err)
	}
	want := "menuItems[2].modifiers[2]" + strings.Repeat(".modifiers[1]", MaxNesting-1) + ".modifiers"
	if diff := cmp.Diff(map[string]string{want: reasonNesting}, ve.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

// jsonStore is a JSONStore whose first write of check holdFor is held
// (closing entered, then waiting for hold), and that copies the JSON it
// gets only after the hold, as late as the contract allows.
type jsonStore struct {
	*memStore
	holdFor int64
	entered chan struct{}
	hold    chan struct{}
	mu      sync.Mutex
	writes  []map[int64]string // the checks each write put, in order
}

func (s *jsonStore) written() []map[int64]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[int64]string(nil), s.writes...)
}

func (s *jsonStore) SaveCheckJSON(ctx context.Context, put []CheckJSON, remove []int64) error {
	for _, p := range put {
		if p.CheckNumber == s.holdFor && s.entered != nil {
			close(s.entered)
			s.entered = nil
			<-s.hold
		}
	}
	w := map[int64]string{}
	for _, p := range put {
		w[p.CheckNumber] = string(p.JSON)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, w)
	return nil
}

// Pushes that replace a check while its JSON is being written to the
// Store leave that JSON alone: the store writes the state it was given.
func TestPushDoesNotReuseJSONTheStoreIsWriting(t *testing.T) {
	store := &jsonStore{memStore: newMemStore(), holdFor: 1, entered: make(chan struct{}), hold: make(chan struct{})}
	down := &fakeAPI{pushFn: func(context.Context, *Check) error { return errors.New("connection refused") }}
	cfg := testConfig()
	cfg.Store = store
	cfg.RetryMin, cfg.RetryMax = time.Hour, time.Hour // one send, then none
	a := newTestAgent(t, down, cfg)
	entered := store.entered
	startAgent(t, a)
	// A failed send of another check starts an hour's backoff, so that
	// check 1 is only written to the store, never handed to a send.
	if err := a.Push(checkN(2, 100)); err != nil {
		t.Fatal(err)
	}
	sdktest.Eventually(t, "a failed send", func() bool { return a.Stats().Retried == 1 })

	if err := a.Push(checkN(1, 100)); err != nil {
		t.Fatal(err)
	}
	<-entered
	for cents := int64(1); cents <= 5; cents++ {
		if err := a.Push(checkN(1, cents)); err != nil {
			t.Fatal(err)
		}
	}
	close(store.hold)
	var writes []string // of check 1
	sdktest.Eventually(t, "the held write and the next", func() bool {
		writes = writes[:0]
		for _, w := range store.written() {
			if j, ok := w[1]; ok {
				writes = append(writes, j)
			}
		}
		return len(writes) == 2
	})
	if diff := cmp.Diff(mustMarshal(t, checkN(1, 100)), writes[0]); diff != "" {
		t.Errorf("the held write (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(mustMarshal(t, checkN(1, 5)), writes[1]); diff != "" {
		t.Errorf("the write after it (-want +got):\n%s", diff)
	}
}

func mustMarshal(t *testing.T, c *Check) string {
	t.Helper()
	b, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stashTransport answers every request with an error at once, without
// reading its body, and keeps the body: net/http may go on reading a
// request's body after RoundTrip has returned.
type stashTransport struct {
	mu     sync.Mutex
	bodies []io.ReadCloser
}

func (s *stashTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Body != nil {
		s.bodies = append(s.bodies, r.Body)
	}
	return nil, errors.New("connection refused")
}

// The JSON handed to a send is never reused, even after the send has
// returned: pushes replacing the check after a failed send leave the body
// of that send as it was.
func TestPushDoesNotReuseJSONASendWasGiven(t *testing.T) {
	tr := &stashTransport{}
	c, err := client.New(client.WithBaseURL("http://pos.invalid"), client.WithAccessToken("pos-token"),
		client.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.RetryMin, cfg.RetryMax = time.Hour, time.Hour // one send, then none
	a := newTestAgent(t, NewService(c), cfg)
	startAgent(t, a)
	if err := a.Push(checkN(1, 100)); err != nil {
		t.Fatal(err)
	}
	sdktest.Eventually(t, "a failed send", func() bool { return a.Stats().Retried == 1 })
	for cents := int64(1); cents <= 5; cents++ {
		if err := a.Push(checkN(1, cents)); err != nil {
			t.Fatal(err)
		}
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.bodies) != 1 {
		t.Fatalf("%d requests, want 1", len(tr.bodies))
	}
	got, err := io.ReadAll(tr.bodies[0])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(mustMarshal(t, checkN(1, 100)), string(got)); diff != "" {
		t.Errorf("the body of the send (-want +got):\n%s", diff)
	}
}

// blockingHandler is a slog.Handler whose first Warn record waits for
// release (closing entered first): a Logger writing to a stuck pipe.
type blockingHandler struct {
	once    sync.Once
	entered chan struct{}
	release chan struct{}
}

func (h *blockingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *blockingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *blockingHandler) WithGroup(string) slog.Handler            { return h }
func (h *blockingHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn {
		h.once.Do(func() {
			close(h.entered)
			<-h.release
		})
	}
	return nil
}

// The agent logs a failed send without holding what Push needs: a Logger
// that blocks does not block Push.
func TestPushDoesNotWaitForTheLogger(t *testing.T) {
	h := &blockingHandler{entered: make(chan struct{}), release: make(chan struct{})}
	down := &fakeAPI{pushFn: func(context.Context, *Check) error { return errors.New("connection refused") }}
	cfg := testConfig()
	cfg.Logger = slog.New(h)
	cfg.DrainTimeout = -1
	a := newTestAgent(t, down, cfg)
	startAgent(t, a)
	t.Cleanup(func() { close(h.release) }) // before the agent is stopped
	if err := a.Push(checkN(1, 100)); err != nil {
		t.Fatal(err)
	}
	<-h.entered // the failed send is logging
	pushAllOrHang(t, a, 100, func(i int) *Check { return checkN(int64(i)+1, 50) },
		"Push blocked while the agent's Logger was stuck")
}
