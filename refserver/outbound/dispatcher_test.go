package outbound

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/refserver/schedule"
)

// memQueue is a Queue in memory: each delivery answers its tries from a
// script of errors, the last one repeating.
type memQueue struct {
	mu      sync.Mutex
	items   map[string]*memItem
	calls   int // tries running at once, now
	maxRuns int // the most tries ever running at once
	// groupCalls and groupMax are calls and maxRuns per group.
	groupCalls, groupMax map[string]int
	block                chan struct{}
	looks                int // calls of Due
	claims               int // calls of Claim
	claimed              int // deliveries claimed
}

type memItem struct {
	group   string
	block   chan struct{} // when set, its tries wait for it (not memQueue.block)
	script  []error
	due     time.Time
	tries   int
	settled bool
	log     []string
}

func newMemQueue() *memQueue {
	return &memQueue{items: map[string]*memItem{}, groupCalls: map[string]int{}, groupMax: map[string]int{}}
}

// addIn adds a delivery of group whose tries wait for block (nil: none).
func (q *memQueue) addIn(group string, block chan struct{}, id string, script ...error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items[id] = &memItem{group: group, block: block, script: script, due: time.Now()}
}

func (q *memQueue) add(id string, script ...error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items[id] = &memItem{script: script, due: time.Now()}
}

func (q *memQueue) Due(_ context.Context, limit int, room func(string) int) ([]Due, time.Time, error) {
	listed := map[string]int{}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.looks++
	var ids []Due
	var next time.Time
	for id, it := range q.items {
		if it.settled {
			continue
		}
		if !it.due.After(time.Now()) && len(ids) < limit && listed[it.group] < room(it.group) {
			listed[it.group]++
			ids = append(ids, Due{ID: id, Group: it.group})
		}
		if next.IsZero() || it.due.Before(next) {
			next = it.due
		}
	}
	slices.SortFunc(ids, func(a, b Due) int { return strings.Compare(a.ID, b.ID) })
	return ids, next, nil
}

func (q *memQueue) Claim(_ context.Context, ids []string) ([]Attempt, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.claims++
	out := make([]Attempt, len(ids))
	for i, id := range ids {
		if it := q.items[id]; !it.settled && !it.due.After(time.Now()) {
			q.claimed++
			out[i] = &memAttempt{q: q, it: it}
		}
	}
	return out, nil
}

type memAttempt struct {
	q  *memQueue
	it *memItem
}

func (a *memAttempt) Try() int { return a.it.tries + 1 }

func (a *memAttempt) Call(ctx context.Context) error {
	a.q.mu.Lock()
	a.q.calls++
	a.q.maxRuns = max(a.q.maxRuns, a.q.calls)
	g := a.it.group
	a.q.groupCalls[g]++
	a.q.groupMax[g] = max(a.q.groupMax[g], a.q.groupCalls[g])
	block := a.q.block
	if a.it.block != nil {
		block = a.it.block
	}
	err := a.it.script[min(a.it.tries, len(a.it.script)-1)]
	a.q.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
		}
	}
	a.q.mu.Lock()
	a.q.calls--
	a.q.groupCalls[g]--
	a.q.mu.Unlock()
	return err
}

func (a *memAttempt) Record(_ context.Context, o Outcome) (time.Time, error) {
	a.q.mu.Lock()
	defer a.q.mu.Unlock()
	a.it.tries = o.Try
	switch {
	case o.Err == nil:
		a.it.settled = true
		a.it.log = append(a.it.log, "delivered")
	case o.RetryIn == 0:
		a.it.settled = true
		a.it.log = append(a.it.log, "failed: "+o.Detail)
		return time.Time{}, nil
	default:
		a.it.due = time.Now().Add(o.RetryIn)
		a.it.log = append(a.it.log, o.Detail)
		return a.it.due, nil
	}
	return time.Time{}, nil
}

func (q *memQueue) settled() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, it := range q.items {
		if !it.settled {
			return false
		}
	}
	return true
}

func (q *memQueue) logOf(id string) []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.items[id].log)
}

// startDispatcher runs a dispatcher on q with millisecond backoffs and a
// long poll, so only wakes and its own timers move it.
func startDispatcher(t *testing.T, q *memQueue, concurrency int) (*Dispatcher, func()) {
	t.Helper()
	d := NewDispatcher(DispatcherConfig{
		Name:        "test dispatcher",
		Queue:       q,
		Policy:      Policy{MaxTries: 3, Base: time.Millisecond, Max: 4 * time.Millisecond, Temporary: func(err error) bool { return !errors.Is(err, errFinal) }, MaxDetail: 100},
		Now:         time.Now,
		Logger:      slog.New(slog.DiscardHandler),
		Concurrency: concurrency,
		Batch:       10,
		ClaimAhead:  8,
	})
	stop := runScheduled(t, d.Schedule, d.Wait)
	return d, stop
}

// runScheduled runs a job on a scheduler of its own, with a long longest
// sleep so only wakes and its own due times move it, until the returned
// stop (or the test's end).
func runScheduled(t *testing.T, add func(context.Context, *schedule.Scheduler), wait func()) (stop func()) {
	t.Helper()
	s := schedule.New(schedule.Config{Now: time.Now, MaxSleep: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	add(ctx, s)
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx); wait() }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

// waitUntil polls cond until it holds or a generous deadline passes.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestDispatcherRetriesThenSettles(t *testing.T) {
	t.Parallel()
	down := errors.New("503")
	q := newMemQueue()
	q.add("retried", down, down, nil)
	q.add("refused", errFinal)
	q.add("given-up", down)
	startDispatcher(t, q, 4)
	waitUntil(t, "every delivery settled", q.settled)

	want := map[string][]string{
		"retried":  {"try 1: 503; next try in 1ms", "try 2: 503; next try in 2ms", "delivered"},
		"refused":  {"failed: try 1: refused"},
		"given-up": {"try 1: 503; next try in 1ms", "try 2: 503; next try in 2ms", "failed: try 3: 503; giving up after 3 tries"},
	}
	for id, w := range want {
		if diff := cmp.Diff(w, q.logOf(id)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", id, diff)
		}
	}
}

func TestDispatcherWakeStartsANewDelivery(t *testing.T) {
	t.Parallel()
	q := newMemQueue()
	d, _ := startDispatcher(t, q, 1)
	// Once the first look has found nothing, the next poll is an hour
	// away: only the wake can start the delivery.
	waitUntil(t, "the first look", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.looks > 0
	})
	q.add("new", nil)
	d.Wake()
	waitUntil(t, "the woken delivery", q.settled)
}

func TestDispatcherBoundsConcurrency(t *testing.T) {
	t.Parallel()
	q := newMemQueue()
	q.block = make(chan struct{})
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		q.add(id, nil)
	}
	startDispatcher(t, q, 2)
	waitUntil(t, "two tries running", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.calls == 2
	})
	close(q.block)
	waitUntil(t, "every delivery settled", q.settled)
	if q.maxRuns != 2 {
		t.Errorf("at most %d tries ran at once, want 2", q.maxRuns)
	}
}

func TestDispatcherDoesNotCountATryCutShort(t *testing.T) {
	t.Parallel()
	q := newMemQueue()
	q.block = make(chan struct{}) // never closed: only shutdown ends the call
	q.add("cut", nil)
	_, stop := startDispatcher(t, q, 1)
	waitUntil(t, "the try running", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.calls == 1
	})
	stop()
	if log := q.logOf("cut"); len(log) != 0 || q.settled() {
		t.Errorf("a try cut short by shutdown was recorded: %v", log)
	}
}

// A group whose receivers hang holds at most PerGroup of the places:
// another group's delivery goes out meanwhile.
func TestDispatcherSharesPlacesBetweenGroups(t *testing.T) {
	t.Parallel()
	q := newMemQueue()
	hang := make(chan struct{})
	for _, id := range []string{"a1", "a2", "a3", "a4"} {
		q.addIn("a", hang, id, nil)
	}
	q.addIn("b", nil, "b1", nil)
	d := NewDispatcher(DispatcherConfig{
		Name: "test dispatcher", Queue: q, Now: time.Now, Logger: slog.New(slog.DiscardHandler),
		Policy:      Policy{MaxTries: 1, Base: time.Millisecond, Max: time.Millisecond, Temporary: func(error) bool { return false }},
		Concurrency: 4, PerGroup: 2, Batch: 10,
	})
	runScheduled(t, d.Schedule, d.Wait)
	// Both conditions are awaited: b1 may settle before a's second try
	// has started, and a's tries hang until hang is closed.
	waitUntil(t, "b1 delivered and two of a's tries hanging", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.items["b1"].settled && q.groupCalls["a"] == 2
	})
	close(hang)
	waitUntil(t, "every delivery settled", q.settled)
	if n := q.groupMax["a"]; n != 2 {
		t.Errorf("group a had %d tries in flight at most, want 2", n)
	}
}

// The due deliveries a run has room for are claimed in one go, ahead of
// the calls: five deliveries with one place take one claim, and the looks
// at the queue come with room for half a batch, not at every call's end.
func TestDispatcherClaimsInBatches(t *testing.T) {
	t.Parallel()
	q := newMemQueue()
	for i := range 5 {
		q.add(strconv.Itoa(i), nil)
	}
	startDispatcher(t, q, 1)
	waitUntil(t, "every delivery settled", q.settled)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.claims != 1 {
		t.Errorf("%d claims for 5 deliveries due at once, want 1", q.claims)
	}
	if q.maxRuns != 1 {
		t.Errorf("%d calls at once with one place", q.maxRuns)
	}
}

// A long backlog is read a batch at a time: with 2 places the dispatcher
// claims up to 2 x ClaimAhead ahead and looks again once half of them are
// done, so four times that many deliveries take a handful of looks, not
// one per call.
func TestDispatcherLooksOncePerHalfBatch(t *testing.T) {
	t.Parallel()
	q := newMemQueue()
	const claimAhead = 8
	n := 4 * 2 * claimAhead
	for i := range n {
		q.add(strconv.Itoa(100000+i), nil)
	}
	d := NewDispatcher(DispatcherConfig{
		Name: "test dispatcher", Queue: q, Now: time.Now, Logger: slog.New(slog.DiscardHandler),
		Policy:      Policy{MaxTries: 1, Base: time.Millisecond, Max: time.Millisecond, Temporary: func(error) bool { return false }},
		Concurrency: 2, Batch: n, ClaimAhead: claimAhead,
	})
	runScheduled(t, d.Schedule, d.Wait)
	waitUntil(t, "every delivery settled", q.settled)
	q.mu.Lock()
	defer q.mu.Unlock()
	// A quarter taken first, then at least an eighth per look that wanted
	// room (6 more), one look after the last try, and the scheduler's
	// first; a few more if a try's end and a wake cross.
	if q.looks > 16 {
		t.Errorf("%d looks at the queue for %d deliveries, want at most 16", q.looks, n)
	}
}

// Without ClaimAhead (the orders: a claim marks an order sent) a
// dispatcher claims only the deliveries that have a place.
func TestDispatcherWithoutClaimAheadClaimsOnlyWhatHasAPlace(t *testing.T) {
	t.Parallel()
	q := newMemQueue()
	q.block = make(chan struct{})
	for i := range 5 {
		q.add(strconv.Itoa(i), nil)
	}
	d := NewDispatcher(DispatcherConfig{
		Name: "test dispatcher", Queue: q, Now: time.Now, Logger: slog.New(slog.DiscardHandler),
		Policy:      Policy{MaxTries: 1, Base: time.Millisecond, Max: time.Millisecond, Temporary: func(error) bool { return false }},
		Concurrency: 2, Batch: 10,
	})
	runScheduled(t, d.Schedule, d.Wait)
	waitUntil(t, "two calls under way", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.calls == 2
	})
	q.mu.Lock()
	claimed := q.claimed
	q.mu.Unlock()
	if claimed != 2 {
		t.Errorf("%d deliveries claimed with two places, both calling", claimed)
	}
	close(q.block)
	waitUntil(t, "every delivery settled", q.settled)
}
