package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The -metrics listener serves the Prometheus text format, which a strict
// parser reads back: request counts and latencies by route and status, the
// requests in flight, the writer's queue and batch sizes.
func TestMetricsFlagServesPrometheusText(t *testing.T) {
	t.Parallel()
	s := startRun(t, "-db", ":memory:", "-metrics", "127.0.0.1:0")
	m := regexp.MustCompile(`url=(http://\S+/metrics)`).FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no metrics address logged:\n%s", s.stderr)
	}
	for range 3 {
		if got := getStatus(t, s.base+"/v1/location/1"); got != http.StatusOK {
			t.Fatalf("GET /v1/location/1: %d", got)
		}
	}
	getStatus(t, s.base+"/v1/location/999")
	req, _ := http.NewRequest(http.MethodPost, s.base+"/sandbox/users", nil)
	req.Header.Set("X-Sandbox-Admin-Key", DefaultAdminKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /sandbox/users: %d", resp.StatusCode)
	}
	// The API listener does not serve metrics.
	if got := getStatus(t, s.base+"/metrics"); got == http.StatusOK {
		t.Errorf("GET /metrics on the API listener: 200, want it absent")
	}

	resp, err = http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	fams, err := parsePromText(resp.Body)
	if err != nil {
		t.Fatalf("scrape does not parse: %v", err)
	}
	want := func(family, typ string) *promFamily {
		t.Helper()
		f := fams[family]
		if f == nil {
			t.Fatalf("no family %s (have %v)", family, keys(fams))
		}
		if f.typ != typ {
			t.Errorf("%s is a %s, want %s", family, f.typ, typ)
		}
		return f
	}
	dur := want("http_server_request_duration_seconds", "histogram")
	ok200 := `http_request_method="GET",http_response_status_code="200",http_route="/v1/location/{locationId}"`
	if v := dur.value("http_server_request_duration_seconds_count{" + ok200 + "}"); v != 3 {
		t.Errorf("location requests counted %v, want 3", v)
	}
	if v := dur.value(`http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_code="404",http_route="/v1/location/{locationId}"}`); v != 1 {
		t.Errorf("404s counted %v, want 1", v)
	}
	// No path with an id, only route patterns.
	for k := range dur.samples {
		if strings.Contains(k, "/v1/location/1") || strings.Contains(k, "/v1/location/999") {
			t.Errorf("a series names a path: %s", k)
		}
	}
	want("http_server_active_requests", "gauge")
	// The Go runtime's and the process's own, beside the server's.
	want("go_goroutine_count", "gauge")
	want("go_memory_used", "gauge")
	if runtime.GOOS == "linux" {
		want("process_cpu_time_seconds_total", "counter")
		want("process_memory_usage", "gauge")
		want("process_unix_file_descriptor_count", "gauge")
	}
	want("refserver_store_write_queue", "gauge")
	batch := want("refserver_store_write_batch_size", "histogram")
	if v := batch.value("refserver_store_write_batch_size_count"); v < 1 {
		t.Errorf("write batches counted %v, want the user's", v)
	}
}

func TestMetricsFlagRefusesAnExposedAddressUnlessPublic(t *testing.T) {
	t.Parallel()
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-tls-addr", "127.0.0.1:0", "-db", ":memory:", "-metrics", "0.0.0.0:0"}, io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "-metrics-public") {
		t.Fatalf("run with -metrics 0.0.0.0:0: %v, want a refusal naming -metrics-public", err)
	}
	s := startRun(t, "-db", ":memory:", "-metrics", "0.0.0.0:0", "-metrics-public")
	m := regexp.MustCompile(`url=http://\S+:(\d+)/metrics`).FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no metrics address logged:\n%s", s.stderr)
	}
	if got := getStatus(t, "http://"+net.JoinHostPort("127.0.0.1", m[1])+"/metrics"); got != http.StatusOK {
		t.Errorf("GET /metrics: %d", got)
	}
}

// promFamily is one metric family of a scrape.
type promFamily struct {
	typ     string
	samples map[string]float64 // name{labels} as written, in label order
}

func (f *promFamily) value(series string) float64 {
	v, ok := f.samples[series]
	if !ok {
		return math.NaN()
	}
	return v
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

var (
	promName   = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	promSample = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$`)
	promLabel  = regexp.MustCompile(`^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)`)
)

// parsePromText reads the text exposition format strictly: every line a
// HELP, a TYPE or a sample; one TYPE per family, before its samples;
// sample names that belong to their family's type; well-formed labels and
// values; no series twice; histogram buckets cumulative, ending in a +Inf
// bucket equal to the count.
func parsePromText(r io.Reader) (map[string]*promFamily, error) {
	fams := map[string]*promFamily{}
	var cur string
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fail := func(format string, args ...any) error {
			return fmt.Errorf("line %d %q: %s", n, line, fmt.Sprintf(format, args...))
		}
		switch {
		case strings.HasPrefix(line, "# HELP "):
			f := strings.SplitN(strings.TrimPrefix(line, "# HELP "), " ", 2)
			if !promName.MatchString(f[0]) {
				return nil, fail("bad name")
			}
		case strings.HasPrefix(line, "# TYPE "):
			f := strings.Fields(strings.TrimPrefix(line, "# TYPE "))
			if len(f) != 2 || !promName.MatchString(f[0]) {
				return nil, fail("bad TYPE line")
			}
			switch f[1] {
			case "counter", "gauge", "histogram", "summary", "untyped":
			default:
				return nil, fail("unknown type")
			}
			if fams[f[0]] != nil {
				return nil, fail("second TYPE for %s", f[0])
			}
			fams[f[0]] = &promFamily{typ: f[1], samples: map[string]float64{}}
			cur = f[0]
		case strings.HasPrefix(line, "#") || line == "":
			return nil, fail("unexpected line")
		default:
			m := promSample.FindStringSubmatch(line)
			if m == nil {
				return nil, fail("not a sample")
			}
			name, labels, val := m[1], m[3], m[4]
			f := fams[cur]
			if f == nil {
				return nil, fail("sample before any TYPE")
			}
			suffix := strings.TrimPrefix(name, cur)
			if !strings.HasPrefix(name, cur) || !validSuffix(f.typ, cur, suffix) {
				return nil, fail("sample %s outside family %s (%s)", name, cur, f.typ)
			}
			for rest := labels; rest != ""; {
				lm := promLabel.FindStringSubmatch(rest)
				if lm == nil {
					return nil, fail("bad labels %q", rest)
				}
				rest = rest[len(lm[0]):]
				if lm[3] == "" && rest != "" {
					return nil, fail("labels run on")
				}
			}
			v, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return nil, fail("bad value")
			}
			key := name
			if m[2] != "" {
				key += m[2]
			}
			if _, dup := f.samples[key]; dup {
				return nil, fail("series twice")
			}
			f.samples[key] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for name, f := range fams {
		if len(f.samples) == 0 {
			return nil, fmt.Errorf("family %s has no samples", name)
		}
		if f.typ == "histogram" {
			if err := checkBuckets(name, f); err != nil {
				return nil, err
			}
		}
	}
	return fams, nil
}

func validSuffix(typ, family, suffix string) bool {
	switch typ {
	case "histogram":
		return suffix == "_bucket" || suffix == "_sum" || suffix == "_count"
	case "counter":
		return suffix == "" && strings.HasSuffix(family, "_total")
	default:
		return suffix == ""
	}
}

// checkBuckets checks that each series' buckets only grow and that its
// +Inf bucket equals its count.
func checkBuckets(name string, f *promFamily) error {
	le := regexp.MustCompile(`,?le="([^"]*)"`)
	type series struct{ inf, count float64 }
	all := map[string]*series{}
	get := func(k string) *series {
		if all[k] == nil {
			all[k] = &series{inf: -1, count: -2}
		}
		return all[k]
	}
	// Buckets must be read in the order written; the map lost it, so
	// compare bounds numerically.
	type bucket struct{ bound, v float64 }
	buckets := map[string][]bucket{}
	for k, v := range f.samples {
		switch {
		case strings.HasPrefix(k, name+"_bucket"):
			m := le.FindStringSubmatch(k)
			if m == nil {
				return fmt.Errorf("%s: bucket without le", k)
			}
			rest := strings.Replace(strings.TrimPrefix(k, name+"_bucket"), m[0], "", 1)
			rest = strings.TrimSuffix(strings.TrimPrefix(rest, "{"), "}")
			b, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				return fmt.Errorf("%s: bad le", k)
			}
			buckets[rest] = append(buckets[rest], bucket{b, v})
			if math.IsInf(b, 1) {
				get(rest).inf = v
			}
		case strings.HasPrefix(k, name+"_count"):
			rest := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(k, name+"_count"), "{"), "}")
			get(rest).count = v
		}
	}
	for k, bs := range buckets {
		s := get(k)
		for _, b := range bs {
			for _, c := range bs {
				if b.bound < c.bound && b.v > c.v {
					return fmt.Errorf("%s{%s}: bucket le=%v (%v) above le=%v (%v)", name, k, b.bound, b.v, c.bound, c.v)
				}
			}
		}
		if s.inf != s.count {
			return fmt.Errorf("%s{%s}: +Inf bucket %v, count %v", name, k, s.inf, s.count)
		}
	}
	return nil
}
