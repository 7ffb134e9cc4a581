package main

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/internal/storetest"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// TestLoad runs a small, short load against an in-process sandbox: every
// kind of request must be made, none may fail, and the report must be
// complete. The server is sampled (this process stands in for it, with a
// pprof handler of its own), with a webhook's pending deliveries, and a
// reporting vendor reads the bills of the first location. Nothing here
// depends on how fast anything is: with -until-answered the window lasts
// until each kind of request has had an answer in it.
func TestLoad(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	pp := httptest.NewServer(mux)
	defer pp.Close()
	dir := t.TempDir()
	csvPath, pngPath := filepath.Join(dir, "s.csv"), filepath.Join(dir, "s.png")
	var out strings.Builder
	err := run(t.Context(), []string{
		"-samples", csvPath, "-plot", pngPath, "-sample-interval", "200ms", "-trend-window", "1h",
		"-server-pprof", strings.TrimPrefix(pp.URL, "http://"), "-server-db", env.DBPath, "-webhook",
		"-bills-location", "-1", "-bills-interval", "100ms",
		"-url", env.URL, "-admin-key", env.AdminKey,
		"-locations", "3", "-customers", "2", "-open-checks", "2",
		"-push-interval", "20ms", "-poll-interval", "100ms", "-heartbeat-interval", "200ms", "-pay-interval", "50ms",
		"-warmup", "300ms", "-duration", "1500ms", "-timeline", "-until-answered",
		"-server-pid", strconv.Itoa(os.Getpid()), // the server runs in this process
	}, &out)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	report := out.String()
	t.Log(report)
	for _, want := range []string{
		"POST /v1/pos/push-pull/check", "GET /v1/pos/push-pull/payments/{id}", "POST /v1/pos/push-pull/heartbeat/{id}",
		"POST /payments/v1/payment", "check pushes:", "errors: 0 ", "peak RSS (VmHWM)",
		"second    starts at  requests", "\n     0 ",
		"GET /v3/location/{id}/bills/closed", "vendor: ", " 0 failed\n",
		"server samples: ", "rss_mib", "fds", "goroutines", "wal_mib", "db_mib", "webhook_pending",
		"webhook: pending, counted every 200ms through the window and at its end",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// The load is sampled at its first instant and at its end, and in
	// between as often as the machine manages.
	if len(recs) < 3 {
		t.Fatalf("samples: %q", recs)
	}
	for _, rec := range recs[1:] {
		for i, cell := range rec {
			if cell == "" {
				t.Errorf("sample %q lacks %s", rec, recs[0][i])
			}
		}
	}
	b, err := os.ReadFile(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("plot: %v", err)
	}
}

// With -webhook the load's events reach a webhook whose receiver, inside
// loadgen, verifies their signatures: the report counts them, over the
// window and, once the deliveries have drained, in all: every payment the
// customers made has been delivered by then, however slow the machine.
// With -server-db the deliveries pending at the end of the window, and at
// each second of it, are counted in the server's database.
func TestLoadWithWebhook(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	var out strings.Builder
	err := run(t.Context(), []string{
		"-url", env.URL, "-admin-key", env.AdminKey, "-webhook", "-until-answered", "-server-db", env.DBPath,
		"-locations", "2", "-customers", "2", "-open-checks", "2",
		"-push-interval", "20ms", "-poll-interval", "100ms", "-heartbeat-interval", "200ms", "-pay-interval", "50ms",
		"-warmup", "300ms", "-duration", "1500ms",
	}, &out)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	report := out.String()
	t.Log(report)
	if m := regexp.MustCompile(`webhook: (\d+) deliveries verified \(\d+/s\), 0 refused, over the window; by type:`).FindStringSubmatch(report); m == nil || m[1] == "0" {
		t.Errorf("the report shows no verified deliveries over the window")
	}
	m := regexp.MustCompile(`webhook: after the drain, \d+ deliveries verified in all, 0 refused; payment\.created (\d+) for (\d+) payments made in all`).FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("the report lacks the deliveries in all")
	}
	// A payment answered after its client gave up, or a delivery tried
	// again, can be delivered more than once; none may be missing.
	created, made := atoi(t, m[1]), atoi(t, m[2])
	if made == 0 || created < made {
		t.Errorf("%d payment.created deliveries verified for %d payments made", created, made)
	}
	if !regexp.MustCompile(`webhook: at the end of the window \d+ deliveries were pending \(counted in the server's database\): a lag of [\d.]+ s at the window's delivery rate; drained \S+ after the load stopped\nwebhook: of those, \d+ had not reached the receiver`).MatchString(report) {
		t.Errorf("the report lacks the deliveries' backlog")
	}
	if !regexp.MustCompile(`webhook: pending, counted every 1s through the window and at its end \(\d+ counts\): median \d+, most \d+: a lag of [\d.]+ s and [\d.]+ s`).MatchString(report) {
		t.Errorf("the report lacks the pending deliveries counted through the window")
	}
	if !strings.Contains(report, "errors: 0 ") {
		t.Errorf("the load had errors")
	}
}

func TestHello(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(helloHandler())
	defer srv.Close()
	o, err := parseFlags([]string{"-hello", "-concurrency", "2", "-warmup", "0s", "-duration", "300ms", "-until-answered"}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := driveHello(t.Context(), srv.URL, o, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "POST /v1/pos/push-pull/check") {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	bad := [][]string{
		{"-url", "http://example.com:8080"},
		{"-url", "http://10.0.0.1"},
		{"-url", "ftp://127.0.0.1"},
		{"-duration", "3h"},
		{"-duration", "0s"},
		{"-locations", "0"},
		{"-push-interval", "0s"},
		{"-sample-interval", "0s"},
		{"-bills-location", "-2"},
		{"-bills-key", "key_x"},
		{"-bills-location", "3", "-bills-gets", "-1"},
		{"-server-pprof", "10.0.0.1:6060"},
		{"extra"},
	}
	for _, args := range bad {
		if _, err := parseFlags(args, &strings.Builder{}); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
	if o, err := parseFlags([]string{"-server-pprof", "127.0.0.1:6060"}, &strings.Builder{}); err != nil || o.serverPprof != "http://127.0.0.1:6060" {
		t.Errorf("-server-pprof 127.0.0.1:6060: %q, %v", o.serverPprof, err)
	}
	for _, u := range []string{"http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:8080"} {
		if _, err := parseFlags([]string{"-url", u}, &strings.Builder{}); err != nil {
			t.Errorf("parseFlags(-url %s): %v", u, err)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The timeline has a line for each second of the window that requests
// started in.
func TestTimeline(t *testing.T) {
	t.Parallel()
	m := newMeter(nil, true)
	m.startWindow()
	for _, at := range []time.Duration{100 * time.Millisecond, 1200 * time.Millisecond, 1300 * time.Millisecond} {
		m.record("GET /x", http.StatusOK, m.start.Add(at), time.Millisecond)
	}
	m.stopWindow()
	var out strings.Builder
	m.printTimeline(&out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("timeline:\n%s", out.String())
	}
	for i, want := range []string{"0", "1"} {
		if f := strings.Fields(lines[i+1]); f[0] != want || f[2] != strconv.Itoa(i+1) {
			t.Errorf("line %q, want second %s with %d requests", lines[i+1], want, i+1)
		}
	}
}

func TestRouteOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/v1/pos/push-pull/heartbeat/17":                          "/v1/pos/push-pull/heartbeat/{id}",
		"/ordering/v3/order/0b8f1c9e-8a53-4c55-9a3e-6b1f2f4d8c11": "/ordering/v3/order/{id}",
		"/v1/pos/push-pull/check":                                 "/v1/pos/push-pull/check",
	} {
		if got := routeOf(in); got != want {
			t.Errorf("routeOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// The pending deliveries counted in the server's database are all of them,
// past the 1,000 the deliveries list shows, and only the webhook's own;
// those the receiver had before the count are told apart.
func TestPendingIsCountedExactly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	db := storetest.Open(t, path, nil)
	err := db.Write(t.Context(), func(tx *store.Tx) error {
		key, err := tx.InsertAPIKey("k", nil)
		if err != nil {
			return err
		}
		for _, id := range []string{"wh_a", "wh_b"} {
			if err := tx.InsertWebhook(store.Webhook{WebhookID: id, KeyID: key, URL: "http://127.0.0.1:9/", EventsJSON: `["*"]`, SecretSealed: []byte("x")}); err != nil {
				return err
			}
		}
		for n := range 1203 {
			seq, err := tx.InsertEvent(store.Event{EventID: "evt_" + strconv.Itoa(n), Type: "ping", OwnerKeyID: &key, DataJSON: "{}"})
			if err != nil {
				return err
			}
			if err := tx.QueueDelivery(seq, "wh_a"); err != nil {
				return err
			}
			if n < 7 {
				if err := tx.QueueDelivery(seq, "wh_b"); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sdb, err := openServerDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	for id, want := range map[string]int{"wh_a": 1203, "wh_b": 7} {
		if ids, err := pendingEvents(t.Context(), sdb, id); err != nil || len(ids) != want {
			t.Errorf("%s: %d pending (%v), want %d", id, len(ids), err, want)
		}
	}
	// The receiver had some of them before the count, one after.
	h := &hookReceiver{received: map[string]time.Time{}}
	at := time.Now()
	h.received["evt_0"] = at.Add(-time.Second)
	h.received["evt_1"] = at
	h.received["evt_2"] = at.Add(time.Second)
	ids, err := pendingEvents(t.Context(), sdb, "wh_b")
	if err != nil {
		t.Fatal(err)
	}
	if n := h.unreceived(ids, at); n != 5 {
		t.Errorf("%d of wh_b's 7 pending not received, want 5", n)
	}
	var out strings.Builder
	reportBacklog(&out, backlog{pending: 1203, exact: true, counted: true, unreceived: 601}, hookCounts{}, hookCounts{verified: 601}, 1)
	for _, want := range []string{
		"webhook: at the end of the window 1203 deliveries were pending (counted in the server's database): a lag of 2.00 s at the window's delivery rate",
		"webhook: of those, 601 had not reached the receiver (the others waited for their outcome to be written): a lag of 1.00 s\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report %q lacks %q", out.String(), want)
		}
	}
}
