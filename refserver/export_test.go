package refserver

import (
	"context"
)

// FeedWaits returns how many event feed requests are waiting for events.
func (s *Server) FeedWaits() int64 { return int64(s.feedWaits.count()) }

// HoldWriter queues a hold of the database's writer (store.HoldWrites)
// until release is called, so that the writes sent meanwhile queue behind
// it in order; held is closed once the writer holds, which is after every
// write queued before has committed.
func (s *Server) HoldWriter() (held <-chan struct{}, release func()) {
	h, free := make(chan struct{}), make(chan struct{})
	go func() {
		_ = s.db.HoldWrites(context.Background(), func() {
			close(h)
			<-free
		})
	}()
	return h, func() { close(free) }
}

// WithWriteQueued is an option of refservertest.Start: f is called with
// the context of each write as it enters the database writer's queue.
func WithWriteQueued(f func(ctx context.Context)) func(*Config) {
	return func(c *Config) { c.writeQueued = f }
}
