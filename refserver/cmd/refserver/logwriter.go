package main

import (
	"io"
	"sync"
)

// maxPendingLog bounds the log bytes that wait while another goroutine
// writes; beyond it a logging goroutine waits too.
const maxPendingLog = 1 << 20

// lineWriter writes log lines to w, combining the lines that arrive while
// a write is under way into the next one. The server logs a line per
// request, and under load one system call per line cost more than
// producing the line. A line is written by the goroutine that logs it,
// or, if another is writing at that moment, by that one right after its
// write: never held back for later, so that nothing waits in memory when
// the process stops.
type lineWriter struct {
	w       io.Writer
	mu      sync.Mutex
	drained sync.Cond // signalled after each write, for goroutines over maxPendingLog
	pending []byte    // bytes to write, in the order they came
	spare   []byte    // the buffer of the last write, reused for pending
	writing bool      // a goroutine is writing; it writes pending too
}

func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: w}
	lw.drained.L = &lw.mu
	return lw
}

// Write queues p and writes everything queued, unless another goroutine
// is writing: then that one writes p as well. An error is reported to the
// goroutine that met it.
func (lw *lineWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	lw.pending = append(lw.pending, p...)
	if lw.writing {
		for lw.writing && len(lw.pending) > maxPendingLog {
			lw.drained.Wait()
		}
		lw.mu.Unlock()
		return len(p), nil
	}
	lw.writing = true
	var err error
	for len(lw.pending) > 0 {
		buf := lw.pending
		lw.pending = lw.spare[:0]
		lw.mu.Unlock()
		if _, werr := lw.w.Write(buf); err == nil {
			err = werr
		}
		lw.mu.Lock()
		lw.spare = buf
		lw.drained.Broadcast()
	}
	lw.writing = false
	lw.mu.Unlock()
	return len(p), err
}
