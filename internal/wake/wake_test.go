package wake

import (
	"context"
	"testing"
	"time"
)

// Loop steps at once, again when woken (long before the step's wait), and
// stops with its context.
func TestLoopStepsAtOnceAndWhenWoken(t *testing.T) {
	t.Parallel()
	s := NewSignal()
	steps := make(chan struct{}, 4)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		Loop(ctx, s, func(context.Context) time.Duration {
			steps <- struct{}{}
			return time.Hour
		})
		close(done)
	}()
	wait := func(what string) {
		t.Helper()
		select {
		case <-steps:
		case <-time.After(10 * time.Second):
			t.Fatalf("no step %s", what)
		}
	}
	wait("at once")
	s.Wake()
	s.Wake() // one pending wake is as good as many: this one never blocks
	wait("after the wake")
	cancel()
	<-done
}
