package schedule

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// CatchUp waits for work that other jobs' work made due, and for calls a
// job left running: a producer's run queues an item that a consumer
// handles in a call of its own, and CatchUp returns only once the consumer
// has handled it. The test runs the jobs itself (Handle.run), one at a
// time, each once CatchUp waits (the waiting hook): so it sees what
// CatchUp makes of every run, and that it still waits for the consumer
// once every other job has caught up while the call is under way.
func TestCatchUpWaitsForWorkMadeDueAndCallsUnderWay(t *testing.T) {
	t.Parallel()
	s := New(Config{Now: time.Now, MaxSleep: time.Hour})
	type wait struct {
		gen    uint64
		behind []string
	}
	waits := make(chan wait, 16)
	s.waiting = func(gen uint64, behind []string) { waits <- wait{gen, behind} }
	var (
		mu       sync.Mutex
		queued   int  // items the producer made
		handled  int  // items the consumer finished
		inFlight bool // a consumer call is under way
		due      atomic.Bool
	)
	producer := s.Add(Job{Name: "producer", Run: func(context.Context) Result {
		if !due.Swap(false) {
			return Result{}
		}
		mu.Lock()
		queued++
		mu.Unlock()
		return Result{Worked: true}
	}})
	release, ended := make(chan struct{}), make(chan struct{})
	consumer := s.Add(Job{Name: "consumer", Run: func(context.Context) Result {
		mu.Lock()
		defer mu.Unlock()
		if inFlight {
			return Result{Busy: true}
		}
		if handled == queued {
			return Result{}
		}
		inFlight = true
		go func() {
			<-release
			mu.Lock()
			handled++
			inFlight = false
			mu.Unlock()
			close(ended)
		}()
		return Result{Busy: true, Worked: true}
	}})
	// witness has nothing to do; it runs last in each round, so that
	// CatchUp looks again once the others' runs are counted.
	witness := s.Add(Job{Name: "witness", Run: func(context.Context) Result { return Result{} }})

	ctx := t.Context()
	caughtUp := make(chan error, 1)
	go func() { caughtUp <- s.CatchUp(ctx) }()
	// next wants CatchUp's next wait to be under gen for the jobs behind.
	next := func(when string, gen uint64, behind ...string) {
		t.Helper()
		select {
		case w := <-waits:
			if w.gen != gen || !slices.Equal(w.behind, behind) {
				t.Fatalf("%s: CatchUp waits under %d for %v; want under %d for %v", when, w.gen, w.behind, gen, behind)
			}
		case err := <-caughtUp:
			t.Fatalf("%s: CatchUp returned (%v); want it waiting under %d for %v", when, err, gen, behind)
		}
	}

	due.Store(true) // the clock moved past the producer's due time
	next("at first", 1, "producer", "consumer", "witness")
	producer.run(ctx) // queues an item
	next("after the producer queued an item", 1, "consumer", "witness")
	consumer.run(ctx) // starts its call, which stays under way
	witness.run(ctx)
	next("with the consumer's call under way", 1, "consumer")

	close(release)
	<-ended
	consumer.run(ctx) // woken by the call's end: nothing is left
	// The round had work, so CatchUp runs another, which finds none.
	next("after the consumer's call ended", 2, "producer", "consumer", "witness")
	producer.run(ctx)
	next("in the second round", 2, "consumer", "witness")
	consumer.run(ctx)
	next("in the second round", 2, "witness")
	witness.run(ctx)
	if err := <-caughtUp; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if queued != 1 || handled != 1 {
		t.Errorf("queued %d, handled %d; want 1 and 1", queued, handled)
	}
}

// CatchUp gives up with its context, and returns at once from a scheduler
// that has stopped.
func TestCatchUpEnds(t *testing.T) {
	t.Parallel()
	s := New(Config{Now: time.Now})
	s.Add(Job{Name: "stuck", Run: func(context.Context) Result { return Result{Busy: true} }})
	run, stop := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { s.Run(run); close(stopped) }()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := s.CatchUp(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("CatchUp of a job that never catches up = %v, want the context's deadline", err)
	}
	stop()
	<-stopped
	if err := s.CatchUp(context.Background()); err != nil {
		t.Fatalf("CatchUp after Run = %v", err)
	}
}
