package sim

import (
	"context"
	"crypto/rsa"
	"time"
)

// KeyPool hands out RSA keys made ahead of time by one background worker
// (Run). An RSA-2048 key costs tens of milliseconds of CPU to make; made
// in the request, a handful of callers asking for keys in a loop took the
// CPU every other request needed. Made here, a request costs a channel
// receive, key making never takes more than one core, and it happens only
// to refill what was taken: nothing is made before the first Take, so a
// server that never hands out a key never pays for one.
type KeyPool struct {
	gen    func() (*rsa.PrivateKey, error)
	keys   chan *rsa.PrivateKey
	demand chan struct{}
}

// NewKeyPool returns a pool that keeps up to size keys made by gen (for
// example NewRSAKey). Start Run to fill it.
func NewKeyPool(size int, gen func() (*rsa.PrivateKey, error)) *KeyPool {
	return &KeyPool{gen: gen, keys: make(chan *rsa.PrivateKey, max(1, size)), demand: make(chan struct{}, 1)}
}

// Run fills the pool back up each time a key is taken, until ctx ends. A
// failure of gen is tried again a second later.
func (p *KeyPool) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.demand:
		}
		for len(p.keys) < cap(p.keys) {
			k, err := p.gen()
			if err != nil {
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Second):
				}
				continue
			}
			select {
			case p.keys <- k:
			case <-ctx.Done():
				return
			}
		}
	}
}

// Take returns a key from the pool, waiting for the worker when it is
// empty, until ctx ends.
func (p *KeyPool) Take(ctx context.Context) (*rsa.PrivateKey, error) {
	select {
	case p.demand <- struct{}{}:
	default: // the worker has been told already
	}
	select {
	case k := <-p.keys:
		return k, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
