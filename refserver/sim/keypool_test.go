package sim_test

import (
	"context"
	"crypto/rsa"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/sim"
)

// testKey is one real key that the fake generators hand out again and
// again: making keys is what the pool is there to keep off requests.
var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := sim.NewRSAKey()
	if err != nil {
		panic(err)
	}
	return k
})

func TestKeyPool(t *testing.T) {
	t.Parallel()
	var made atomic.Int64
	gen := func() (*rsa.PrivateKey, error) { made.Add(1); return testKey(), nil }
	p := sim.NewKeyPool(4, gen)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	if n := made.Load(); n != 0 {
		t.Errorf("%d keys made before any was asked for", n)
	}
	for i := range 10 {
		k, err := p.Take(t.Context())
		if err != nil || k == nil {
			t.Fatalf("Take %d: %v, %v", i, k, err)
		}
	}
	// The pool refills, but never beyond its size.
	if n := made.Load(); n > 10+4 {
		t.Errorf("%d keys made for 10 taken, want at most 14", n)
	}
}

func TestKeyPoolTakeStopsWithContext(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	p := sim.NewKeyPool(1, func() (*rsa.PrivateKey, error) { <-block; return testKey(), nil })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx) }()
	t.Cleanup(func() { cancel(); close(block); <-done })

	wait, stop := context.WithCancel(t.Context())
	stop()
	if _, err := p.Take(wait); !errors.Is(err, context.Canceled) {
		t.Errorf("Take with an ended context = %v, want context.Canceled", err)
	}
}
