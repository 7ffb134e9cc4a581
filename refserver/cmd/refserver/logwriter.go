package main

import (
	"io"
	"runtime"
	"sync"
)

// maxPendingLog bounds the log bytes waiting to be written; a goroutine
// logging beyond it waits for the next write.
const maxPendingLog = 1 << 20

// logWriter hands log lines to a goroutine of its own, which writes every
// line that came since its last write in one call. The server logs a line
// per request, and under load one system call per line cost more than
// producing the line. (slog's handlers write under a lock of their own, so
// combining can only happen behind them.) A line waits for the writer
// goroutine to be scheduled, no longer; lines still waiting when the
// process dies are lost, so run closes the writer on every way out.
type logWriter struct {
	w       io.Writer
	mu      sync.Mutex
	drained sync.Cond // broadcast when pending is taken
	pending []byte    // lines not yet written, in order
	closed  bool
	wake    chan struct{} // the writer goroutine has lines to write
	done    chan struct{} // the writer goroutine has stopped

	wmu   sync.Mutex // held while writing, so that writes keep the order of the lines
	spare []byte     // the buffer of the last write, reused for pending
}

func newLogWriter(w io.Writer) *logWriter {
	lw := &logWriter{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	lw.drained.L = &lw.mu
	go lw.run()
	return lw
}

// Write queues p for the writer goroutine; after Close it writes p at
// once.
func (lw *logWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	if lw.closed {
		lw.mu.Unlock()
		lw.wmu.Lock()
		defer lw.wmu.Unlock()
		return lw.w.Write(p)
	}
	for len(lw.pending) > maxPendingLog && !lw.closed {
		lw.drained.Wait()
	}
	lw.pending = append(lw.pending, p...)
	select {
	case lw.wake <- struct{}{}:
	default: // already woken: it will take p too
	}
	lw.mu.Unlock()
	return len(p), nil
}

func (lw *logWriter) run() {
	defer close(lw.done)
	for range lw.wake {
		// Let the goroutines that are ready to run go first: under load
		// some are about to log, and their lines join this write.
		runtime.Gosched()
		lw.Flush()
	}
}

// Flush writes the lines queued so far before it returns.
func (lw *logWriter) Flush() {
	lw.wmu.Lock()
	defer lw.wmu.Unlock()
	lw.mu.Lock()
	buf := lw.pending
	lw.pending = lw.spare[:0]
	lw.drained.Broadcast()
	lw.mu.Unlock()
	if len(buf) > 0 {
		_, _ = lw.w.Write(buf) // a log that cannot be written has nowhere to say so
	}
	lw.spare = buf
}

// Close writes what is queued and stops the writer goroutine; later lines
// are written as they come.
func (lw *logWriter) Close() error {
	lw.mu.Lock()
	if lw.closed {
		lw.mu.Unlock()
		return nil
	}
	lw.closed = true
	close(lw.wake)
	lw.drained.Broadcast()
	lw.mu.Unlock()
	<-lw.done
	lw.Flush()
	return nil
}
