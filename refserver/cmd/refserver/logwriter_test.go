package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// slowWriter records each write and holds it until released, so that the
// test can make lines arrive while a write is under way.
type slowWriter struct {
	mu      sync.Mutex
	writes  []string
	started chan struct{}
	release chan struct{}
}

func (s *slowWriter) Write(p []byte) (int, error) {
	s.started <- struct{}{}
	<-s.release
	s.mu.Lock()
	s.writes = append(s.writes, string(p))
	s.mu.Unlock()
	return len(p), nil
}

func TestLineWriterCombinesLinesInOrder(t *testing.T) {
	t.Parallel()
	sw := &slowWriter{started: make(chan struct{}, 10), release: make(chan struct{})}
	lw := newLineWriter(sw)
	first := make(chan struct{})
	go func() {
		lw.Write([]byte("a\n")) // writes at once, and then what came meanwhile
		close(first)
	}()
	<-sw.started // "a" is being written
	for _, l := range []string{"b\n", "c\n", "d\n"} {
		lw.Write([]byte(l)) // queued: returns without writing
	}
	close(sw.release)
	<-first
	if want := []string{"a\n", "b\nc\nd\n"}; fmt.Sprint(sw.writes) != fmt.Sprint(want) {
		t.Errorf("writes %q, want %q", sw.writes, want)
	}
}

func TestLineWriterAlone(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	lw := newLineWriter(&b)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() { fmt.Fprintf(lw, "line %d\n", i) })
	}
	wg.Wait()
	if n := strings.Count(b.String(), "\n"); n != 50 {
		t.Errorf("%d lines written, want 50:\n%s", n, b.String())
	}
}
