package keylock

import (
	"context"
	"errors"
	"sync"
	"testing"
)

func TestLockSerialisesPerKey(t *testing.T) {
	t.Parallel()
	var s Set
	var mu sync.Mutex
	inside := map[string]int{}
	var wg sync.WaitGroup
	for i := range 40 {
		key := []string{"a", "b"}[i%2]
		wg.Go(func() {
			unlock, err := s.Lock(context.Background(), key)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			inside[key]++
			if inside[key] != 1 {
				t.Errorf("%d holders of %q at once", inside[key], key)
			}
			mu.Unlock()
			mu.Lock()
			inside[key]--
			mu.Unlock()
			unlock()
		})
	}
	wg.Wait()
	if n := s.Len(); n != 0 {
		t.Errorf("%d locks left after every holder released", n)
	}
}

func TestLockGivesUpWithContext(t *testing.T) {
	t.Parallel()
	var s Set
	unlock, err := s.Lock(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Lock(ctx, "k"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	unlock()
	if n := s.Len(); n != 0 {
		t.Errorf("%d locks left, want 0", n)
	}
}
