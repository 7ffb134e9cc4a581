// Package syncbuf provides a bytes.Buffer that is safe for concurrent use,
// for tests that capture what a logger or a subprocess writes from other
// goroutines.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer guarded by a mutex. The zero value is ready.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
