package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// meter is an http.RoundTripper that times every request leaving the load
// generator, by endpoint, while the measuring window is open. The time is
// that of the whole round trip as a client sees it: waiting for a
// connection, sending, the server's work and reading the response headers.
type meter struct {
	base http.RoundTripper

	open atomic.Bool // inside the measuring window

	mu        sync.Mutex
	endpoints map[string]*endpointStats
	timeline  bool              // keep seconds
	seconds   [][]time.Duration // latencies of answered requests by the second of the window they started in
	start     time.Time
	end       time.Time
}

// endpointStats are the samples of one endpoint.
type endpointStats struct {
	latencies []time.Duration // of answered requests
	statuses  map[int]int     // status -> count; 0 is a transport error
}

func newMeter(base http.RoundTripper, timeline bool) *meter {
	return &meter{base: base, timeline: timeline, endpoints: map[string]*endpointStats{}}
}

// startWindow opens the measuring window; samples before it are dropped.
func (m *meter) startWindow() {
	m.mu.Lock()
	m.start = time.Now()
	m.endpoints = map[string]*endpointStats{}
	m.seconds = nil
	m.mu.Unlock()
	m.open.Store(true)
}

// stopWindow closes the measuring window.
func (m *meter) stopWindow() {
	m.open.Store(false)
	m.mu.Lock()
	m.end = time.Now()
	m.mu.Unlock()
}

func (m *meter) RoundTrip(req *http.Request) (*http.Response, error) {
	if !m.open.Load() {
		return m.base.RoundTrip(req)
	}
	start := time.Now()
	resp, err := m.base.RoundTrip(req)
	d := time.Since(start)
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	m.record(req.Method+" "+routeOf(req.URL.Path), status, start, d)
	return resp, err
}

func (m *meter) record(endpoint string, status int, start time.Time, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.open.Load() {
		return
	}
	e := m.endpoints[endpoint]
	if e == nil {
		e = &endpointStats{statuses: map[int]int{}}
		m.endpoints[endpoint] = e
	}
	e.statuses[status]++
	if status == 0 {
		return
	}
	e.latencies = append(e.latencies, d)
	if m.timeline {
		sec := max(0, int(start.Sub(m.start)/time.Second))
		for len(m.seconds) <= sec {
			m.seconds = append(m.seconds, nil)
		}
		m.seconds[sec] = append(m.seconds[sec], d)
	}
}

// unanswered returns those of endpoints that have had no 2xx answer in
// the window so far.
func (m *meter) unanswered(endpoints []string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, name := range endpoints {
		ok := false
		if e := m.endpoints[name]; e != nil {
			for st, n := range e.statuses {
				ok = ok || (st >= 200 && st <= 299 && n > 0)
			}
		}
		if !ok {
			out = append(out, name)
		}
	}
	return out
}

// routeOf turns a path into its route: numeric and id-like segments
// become {id}, so that /v1/pos/push-pull/heartbeat/17 and .../18 count as
// one endpoint.
func routeOf(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if s == "" {
			continue
		}
		digits := strings.Trim(s, "0123456789") == ""
		if digits || (len(s) == 36 && strings.Count(s, "-") == 4) {
			segs[i] = "{id}"
		}
	}
	return strings.Join(segs, "/")
}

// summary is the result of one endpoint over the window.
type summary struct {
	Endpoint  string
	Count     int
	PerSecond float64
	P50, P99  time.Duration
	Max       time.Duration
	Errors    int // non-2xx answers and transport errors
	Statuses  map[int]int
}

// summaries returns the window's results, busiest endpoint first.
func (m *meter) summaries() (time.Duration, []summary) {
	m.mu.Lock()
	defer m.mu.Unlock()
	window := m.end.Sub(m.start)
	var out []summary
	for name, e := range m.endpoints {
		s := summary{Endpoint: name, Statuses: e.statuses}
		for st, n := range e.statuses {
			s.Count += n
			if st < 200 || st > 299 {
				s.Errors += n
			}
		}
		s.PerSecond = float64(s.Count-s.Errors) / window.Seconds()
		lat := slices.Clone(e.latencies)
		slices.Sort(lat)
		s.P50, s.P99 = quantile(lat, 0.50), quantile(lat, 0.99)
		if len(lat) > 0 {
			s.Max = lat[len(lat)-1]
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b summary) int { return b.Count - a.Count })
	return window, out
}

// allLatencies returns every latency of the window, sorted.
func (m *meter) allLatencies() []time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	var all []time.Duration
	for _, e := range m.endpoints {
		all = append(all, e.latencies...)
	}
	slices.Sort(all)
	return all
}

// printTimeline writes one line per second of the window: the requests
// that started in it and their latency. The local clock time lets a stall
// be matched with the server's own logs.
func (m *meter) printTimeline(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintf(w, "\n%6s %12s %9s %9s %9s %9s\n", "second", "starts at", "requests", "p50", "p99", "max")
	for i, lat := range m.seconds {
		slices.Sort(lat) // in place: nothing reads the window's seconds after the report
		at := m.start.Add(time.Duration(i) * time.Second).Format("15:04:05.000")
		fmt.Fprintf(w, "%6d %12s %9d %9s %9s %9s\n", i, at, len(lat), ms(quantile(lat, 0.5)), ms(quantile(lat, 0.99)), ms(quantile(lat, 1)))
	}
}

// quantile returns the q-quantile of sorted samples (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	i = min(max(i, 0), len(sorted)-1)
	return sorted[i]
}

// printSummaries writes the per-endpoint table and the totals.
func printSummaries(w io.Writer, window time.Duration, sums []summary, all []time.Duration) (total, errors int) {
	fmt.Fprintf(w, "%-48s %9s %9s %9s %9s %9s %7s\n", "endpoint", "requests", "ok/s", "p50", "p99", "max", "errors")
	for _, s := range sums {
		fmt.Fprintf(w, "%-48s %9d %9.0f %9s %9s %9s %7d", s.Endpoint, s.Count, s.PerSecond, ms(s.P50), ms(s.P99), ms(s.Max), s.Errors)
		if s.Errors > 0 {
			fmt.Fprintf(w, "  %v", s.Statuses)
		}
		fmt.Fprintln(w)
		total += s.Count
		errors += s.Errors
	}
	fmt.Fprintf(w, "%-48s %9d %9.0f %9s %9s %9s %7d\n", "all", total, float64(total-errors)/window.Seconds(),
		ms(quantile(all, 0.5)), ms(quantile(all, 0.99)), ms(quantile(all, 1)), errors)
	return total, errors
}

// ms formats a duration in milliseconds with two decimals.
func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
