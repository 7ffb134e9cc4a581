package refservertest

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// newConns holds the connections of a listener that have not sent a
// request yet. http.Server.Shutdown counts such a connection as idle only
// once it is five seconds old, and tests leave them behind all the time (a
// client's dial that lost the race to a connection freed meanwhile), so
// every server would take five seconds to stop.
type newConns struct {
	mu sync.Mutex
	m  map[net.Conn]struct{}
}

// track is an http.Server.ConnState hook.
func (n *newConns) track(c net.Conn, st http.ConnState) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.m == nil {
		n.m = map[net.Conn]struct{}{}
	}
	if st == http.StateNew {
		n.m[c] = struct{}{}
	} else {
		delete(n.m, c)
	}
}

func (n *newConns) closeAll() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for c := range n.m {
		_ = c.Close()
		delete(n.m, c)
	}
}

// shutdown stops srv as Shutdown does, letting requests in flight finish,
// but closes the connections that carry none instead of waiting for them.
func shutdown(ctx context.Context, srv *http.Server, conns *newConns) {
	done := make(chan struct{})
	go func() {
		_ = srv.Shutdown(ctx)
		close(done)
	}()
	// Shutdown closes the listener first; connections still new after that
	// will carry nothing.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			conns.closeAll()
		}
	}
}
