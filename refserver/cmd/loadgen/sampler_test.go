package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"image/png"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseGoroutineTotal(t *testing.T) {
	t.Parallel()
	n, err := parseGoroutineTotal(strings.NewReader("goroutine profile: total 1234\n5 @ 0x1 0x2\n#\t0x1\tmain.f+0x1\n"))
	if err != nil || n != 1234 {
		t.Errorf("got %d, %v; want 1234", n, err)
	}
	for _, bad := range []string{"", "heap profile: 1: 2 [3: 4] @ heap/1048576\n", "goroutine profile: total many\n"} {
		if _, err := parseGoroutineTotal(strings.NewReader(bad)); err == nil {
			t.Errorf("parseGoroutineTotal(%q) accepted", bad)
		}
	}
}

// TestSourcesRead reads this process as if it were the server: its
// memory and open files from /proc, its goroutines from a real pprof
// handler, the sizes of a database file and its WAL, and the pending
// deliveries the webhook's counter gives.
func TestSourcesRead(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "x.db")
	if err := os.WriteFile(db, make([]byte, 3<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	src := sources{pid: os.Getpid(), pprof: srv.URL, db: db, client: srv.Client(),
		pending: func(context.Context) (int, error) { return 7, nil }}
	sm := src.read(t.Context())
	for i, name := range series {
		if !sm.ok[i] {
			t.Errorf("%s not read", name)
		}
	}
	if sm.values[0] <= 0 || sm.values[1] < 3 || sm.values[2] < 2 {
		t.Errorf("rss %v MiB, fds %v, goroutines %v: want positive, at least 3 (stdio) and at least 2", sm.values[0], sm.values[1], sm.values[2])
	}
	if sm.values[3] != 0 || sm.values[4] != 3 || sm.values[seriesPending] != 7 {
		t.Errorf("wal %v MiB (no file), db %v MiB, %v pending; want 0, 3 and 7", sm.values[3], sm.values[4], sm.values[seriesPending])
	}

	// Without sources, nothing is read; a pprof address that does not
	// answer leaves the goroutines out.
	if sm := (sources{}).read(t.Context()); sm.ok != [len(series)]bool{} {
		t.Errorf("empty sources read %v", sm.ok)
	}
	srv.Close()
	if sm := src.read(t.Context()); sm.ok[2] || !sm.ok[0] {
		t.Errorf("with pprof down: ok %v; want all but goroutines", sm.ok)
	}
}

// testSamples are n samples a minute apart: RSS constant with a wobble,
// fds growing by 1 a minute, goroutines constant, no WAL, db growing.
func testSamples(n int) []sample {
	var out []sample
	for k := range n {
		sm := sample{at: time.Duration(k) * time.Minute, ok: [len(series)]bool{true, true, true, false, true}}
		sm.values = [len(series)]float64{100 + float64(k%2), 50 + float64(k), 300, 0, 10 + 0.5*float64(k)}
		out = append(out, sm)
	}
	return out
}

func TestWriteCSV(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := writeCSV(&b, testSamples(3)); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"seconds", "rss_mib", "fds", "goroutines", "wal_mib", "db_mib", "webhook_pending"},
		{"0.0", "100", "50", "300", "", "10", ""},
		{"60.0", "101", "51", "300", "", "10.5", ""},
		{"120.0", "100", "52", "300", "", "11", ""},
	}
	if len(recs) != len(want) {
		t.Fatalf("got %q", recs)
	}
	for i := range want {
		if strings.Join(recs[i], ",") != strings.Join(want[i], ",") {
			t.Errorf("row %d = %q, want %q", i, recs[i], want[i])
		}
	}
}

func TestWritePlot(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 40} {
		var b bytes.Buffer
		if err := writePlot(&b, testSamples(n)); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("%d samples: not a PNG: %v", n, err)
		}
		w, h := plotSize(len(series))
		if got := img.Bounds().Size(); got.X != w || got.Y != h {
			t.Errorf("%d samples: size %v, want %dx%d", n, got, w, h)
		}
		// The line colour appears exactly when there is something to draw.
		lines := 0
		for y := range h {
			for x := range w {
				if r, g, bl, _ := img.At(x, y).RGBA(); r>>8 == uint32(colLine.R) && g>>8 == uint32(colLine.G) && bl>>8 == uint32(colLine.B) {
					lines++
				}
			}
		}
		if (lines > 0) != (n > 0) {
			t.Errorf("%d samples: %d pixels of line", n, lines)
		}
	}
}

func TestFitTrend(t *testing.T) {
	t.Parallel()
	samples := testSamples(41) // 40 minutes
	// The last 20 minutes: samples 20..40.
	fds := fitTrend(samples, 1, 20*time.Minute)
	if fds.n != 21 || math.Abs(fds.perMinute-1) > 1e-9 || fds.flat || fds.window != 20*time.Minute {
		t.Errorf("fds: %+v; want 21 samples, 1/min, not flat, over 20m", fds)
	}
	if fds.min != 70 || fds.max != 90 || fds.mean != 80 || fds.last != 90 {
		t.Errorf("fds: %+v", fds)
	}
	rss := fitTrend(samples, 0, 20*time.Minute)
	if !rss.flat || math.Abs(rss.perMinute) > 0.01 {
		t.Errorf("rss: %+v; want flat", rss)
	}
	if g := fitTrend(samples, 2, 20*time.Minute); !g.flat || g.perMinute != 0 {
		t.Errorf("goroutines: %+v; want flat, slope 0", g)
	}
	// The line may move by just under 5 % of the mean over the window.
	edge := []sample{{at: 0, ok: [len(series)]bool{true}, values: [len(series)]float64{100}}, {at: time.Minute, ok: [len(series)]bool{true}, values: [len(series)]float64{104.9}}}
	if tr := fitTrend(edge, 0, time.Hour); !tr.flat {
		t.Errorf("4.9%% drift: %+v; want flat", tr)
	}
	edge[1].values[0] = 105.2
	if tr := fitTrend(edge, 0, time.Hour); tr.flat {
		t.Errorf("5.2%% drift: %+v; want not flat", tr)
	}
	if tr := fitTrend(samples, 3, 20*time.Minute); tr.n != 0 {
		t.Errorf("unsampled series: %+v", tr)
	}
	if tr := fitTrend(nil, 0, time.Minute); tr.n != 0 {
		t.Errorf("no samples: %+v", tr)
	}

	var b strings.Builder
	printTrends(&b, samples, 20*time.Minute)
	out := b.String()
	for _, want := range []string{"rss_mib", "flat over 20m0s", "fds", "NOT flat (grows)", "db_mib"} {
		if !strings.Contains(out, want) {
			t.Errorf("trend report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "wal_mib") {
		t.Errorf("trend report shows a series never sampled:\n%s", out)
	}
}

// TestSamplerKeepsSlowReads: a goroutine profile that answers later than
// one sample interval (a busy machine) is still read, and stopping the
// sampler samples the end of the run, so a run always has at least two
// samples.
func TestSamplerKeepsSlowReads(t *testing.T) {
	t.Parallel()
	const interval = time.Millisecond
	entered, release := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
		_, _ = io.WriteString(w, "goroutine profile: total 7\n")
	}))
	defer srv.Close()
	s := startSampler(t.Context(), sources{pprof: srv.URL, client: srv.Client()}, interval)
	<-entered
	// The first read has now lasted longer than the interval, however fast
	// the machine is.
	time.Sleep(10 * interval)
	close(release)
	samples := s.finish()
	if len(samples) < 2 {
		t.Fatalf("%d samples, want the first one and the last one at least", len(samples))
	}
	for _, sm := range samples {
		if !sm.ok[2] || sm.values[2] != 7 {
			t.Errorf("sample at %v: goroutines %v (read: %v), want 7", sm.at, sm.values[2], sm.ok[2])
		}
	}
}
