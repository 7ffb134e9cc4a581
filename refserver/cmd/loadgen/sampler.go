package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A soak shows whether the server's costs stay flat as hours pass: the
// sampler reads the server's resident memory, open files, goroutines and
// the size of its database and WAL every -sample-interval, for the CSV
// file, the plot and the trend check. With -webhook and -server-db it also
// counts the webhook's pending deliveries, which the report gives for the
// window: the count at its end is one instant, and the backlog swings
// with the pauses of the server's writer and of the receiver.

// series names the sampled quantities, in the order of the CSV columns
// and the plot's panels.
var series = [...]string{"rss_mib", "fds", "goroutines", "wal_mib", "db_mib", "webhook_pending"}

// seriesPending is the index of the pending deliveries in series.
const seriesPending = 5

// sample is one reading of the server. A quantity that could not be read
// (no -server-pid, no -server-pprof, no -server-db, no -webhook, or an
// error) is marked absent in ok.
type sample struct {
	at     time.Duration        // since the sampler started
	values [len(series)]float64 // by series
	ok     [len(series)]bool
}

// sources say where the sampler reads the server.
type sources struct {
	pid    int    // /proc/<pid>
	pprof  string // base URL of the server's -pprof listener
	db     string // the server's -db file; its WAL is db+"-wal"
	client *http.Client
	// pending counts the webhook's pending deliveries (hookReceiver).
	pending func(context.Context) (int, error)
}

// read takes one sample; errors leave the quantity out.
func (s sources) read(ctx context.Context) sample {
	var sm sample
	set := func(i int, v float64, err error) {
		if err == nil {
			sm.values[i], sm.ok[i] = v, true
		}
	}
	if s.pid > 0 {
		_, rss, err := procMemory(s.pid)
		set(0, float64(rss)/(1<<20), err)
		n, err := countFDs(s.pid)
		set(1, float64(n), err)
	}
	if s.pprof != "" {
		n, err := s.goroutines(ctx)
		set(2, float64(n), err)
	}
	if s.db != "" {
		wal, err := fileMiB(s.db + "-wal")
		set(3, wal, err)
		db, err := fileMiB(s.db)
		set(4, db, err)
	}
	if s.pending != nil {
		n, err := s.pending(ctx)
		set(seriesPending, float64(n), err)
	}
	return sm
}

// countFDs counts a process's open file descriptors.
func countFDs(pid int) (int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents), err
}

// fileMiB is a file's size in MiB; a missing file (a WAL between
// checkpoints that truncate it, or before the first write) is 0.
func fileMiB(path string) (float64, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return float64(fi.Size()) / (1 << 20), nil
}

// goroutines reads the server's goroutine count from the first line of
// its pprof goroutine profile.
func (s sources) goroutines(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.pprof+"/debug/pprof/goroutine?debug=1", nil)
	if err != nil {
		return 0, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("goroutine profile: %s", resp.Status)
	}
	return parseGoroutineTotal(resp.Body)
}

// parseGoroutineTotal reads "goroutine profile: total N", the first line
// of a debug=1 goroutine profile.
func parseGoroutineTotal(r io.Reader) (int, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && line == "" {
		return 0, fmt.Errorf("goroutine profile: %w", err)
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "goroutine profile: total ")
	if !ok {
		return 0, fmt.Errorf("goroutine profile: unexpected first line %q", line)
	}
	return strconv.Atoi(rest)
}

// sampleReadTimeout is the least time one sample's reads may take. It
// is there to catch a hung server, not to keep the pace: a busy machine
// answers the goroutine profile slowly, and a read cut short would leave
// the quantity out of the sample. Ticks missed meanwhile are skipped.
const sampleReadTimeout = 30 * time.Second

// sampler samples the server every interval until stopped.
type sampler struct {
	src      sources
	ctx      context.Context // the run's: its end abandons a read
	start    time.Time
	interval time.Duration

	mu      sync.Mutex
	samples []sample
	stop    func()
	done    chan struct{}
}

// startSampler takes a first sample now and then one every interval.
func startSampler(ctx context.Context, src sources, interval time.Duration) *sampler {
	stopCtx, cancel := context.WithCancel(ctx)
	s := &sampler{src: src, ctx: ctx, start: time.Now(), interval: interval, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			s.take()
			select {
			case <-stopCtx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// take reads one sample and keeps it, unless the run was cancelled
// meanwhile. Stopping the sampler does not cut a read short.
func (s *sampler) take() {
	rctx, cancel := context.WithTimeout(s.ctx, max(s.interval, sampleReadTimeout))
	sm := s.src.read(rctx)
	cancel()
	sm.at = time.Since(s.start)
	if s.ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	s.samples = append(s.samples, sm)
	s.mu.Unlock()
}

// finish stops the sampler, takes a last sample (so that the end of the
// run is sampled however few ticks a slow machine managed, and a trend
// always has two points) and returns the samples.
func (s *sampler) finish() []sample {
	s.stop()
	<-s.done
	s.take()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.samples
}

// between returns the samples taken from from to to.
func (s *sampler) between(samples []sample, from, to time.Time) []sample {
	var out []sample
	for _, sm := range samples {
		if at := s.start.Add(sm.at); !at.Before(from) && !at.After(to) {
			out = append(out, sm)
		}
	}
	return out
}

// writeCSV writes the samples: seconds since the start, then one column
// per series; a quantity not read is an empty cell.
func writeCSV(w io.Writer, samples []sample) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{"seconds"}, series[:]...)); err != nil {
		return err
	}
	for _, sm := range samples {
		rec := []string{strconv.FormatFloat(sm.at.Seconds(), 'f', 1, 64)}
		for i := range series {
			cell := ""
			if sm.ok[i] {
				cell = strconv.FormatFloat(math.Round(sm.values[i]*100)/100, 'f', -1, 64)
			}
			rec = append(rec, cell)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
