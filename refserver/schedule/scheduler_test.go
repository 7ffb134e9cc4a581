package schedule

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// CatchUp waits for work that other jobs' work made due, and for calls a
// job left running: a producer's run queues an item that a consumer
// handles in a goroutine of its own, and CatchUp returns only once the
// consumer has handled it.
func TestCatchUpWaitsForWorkMadeDueAndCallsUnderWay(t *testing.T) {
	t.Parallel()
	s := New(Config{Now: time.Now, MaxSleep: time.Hour})
	var (
		mu       sync.Mutex
		queued   int  // items the producer made
		handled  int  // items the consumer finished
		inFlight bool // a consumer call is under way
		due      atomic.Bool
	)
	var consumer *Handle
	s.Add(Job{Name: "producer", Run: func(context.Context) Result {
		if !due.Swap(false) {
			return Result{}
		}
		mu.Lock()
		queued++
		mu.Unlock()
		return Result{Worked: true}
	}})
	release := make(chan struct{})
	consumer = s.Add(Job{Name: "consumer", Run: func(context.Context) Result {
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
			consumer.Wake()
		}()
		return Result{Busy: true, Worked: true}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan struct{})
	go func() { s.Run(ctx); close(stopped) }()

	due.Store(true) // the clock moved past the producer's due time
	caughtUp := make(chan error, 1)
	go func() { caughtUp <- s.CatchUp(ctx) }()
	select {
	case err := <-caughtUp:
		t.Fatalf("CatchUp returned (%v) while the consumer's call was under way", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-caughtUp; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if queued != 1 || handled != 1 {
		t.Errorf("queued %d, handled %d; want 1 and 1", queued, handled)
	}
	mu.Unlock()
	cancel()
	<-stopped
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
