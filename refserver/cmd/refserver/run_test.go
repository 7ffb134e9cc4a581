package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // the driver, to damage a database file in place

	"github.com/hospo-dev/hospo-go/internal/syncbuf"

	"github.com/hospo-dev/hospo-go/refserver/sim"
)

// started is a run in the background.
type started struct {
	base   string
	tls    string
	cancel context.CancelFunc
	done   chan error
	stdout *syncbuf.Buffer
	stderr *syncbuf.Buffer
}

func startRun(t *testing.T, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &started{cancel: cancel, done: make(chan error, 1), stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}}
	ready := make(chan struct{})
	args = append([]string{"-addr", "127.0.0.1:0", "-tls-addr", "127.0.0.1:0"}, args...)
	go func() {
		s.done <- run(ctx, args, s.stdout, s.stderr, func(h, tl string) {
			s.base, s.tls = "http://"+h, "https://"+tl
			close(ready)
		})
	}()
	select {
	case <-ready:
	case err := <-s.done:
		t.Fatalf("run ended before serving: %v\n%s", err, s.stderr)
	}
	t.Cleanup(func() {
		cancel()
		<-s.done
	})
	return s
}

func TestRunServesPrintsBannerAndShutsDownGracefully(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "run.db")
	s := startRun(t, "-db", db, "-admin-key", "cmd-test-key")

	out := s.stdout.String()
	for _, want := range []string{
		s.base, s.tls, db + ".tls-cert.pem", "cmd-test-key",
		sim.DemoUserToken("cmd-test-key", 1), sim.DemoUserToken("cmd-test-key", 2),
		sim.DemoPOSAccessToken("cmd-test-key", 1), "Harbour Grill", "providerB", "Garden Cafe", "providerD",
		sim.DemoAPIKey("cmd-test-key", 1), sim.DemoAPIKey("cmd-test-key", 2), "locations 1,2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("banner lacks %q:\n%s", want, out)
		}
	}

	// A slow request (an injected latency) is in flight when shutdown
	// starts; it must still get its response.
	req, _ := http.NewRequest("POST", s.base+"/sandbox/faults", strings.NewReader(`{"pathPrefix":"/v1/slow","latencyMs":300}`))
	req.Header.Set("X-Sandbox-Admin-Key", "cmd-test-key")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("add fault: %v %v", resp, err)
	}
	resp.Body.Close()
	slow := make(chan int, 1)
	go func() {
		resp, err := http.Get(s.base + "/v1/slow")
		if err != nil {
			slow <- -1
			return
		}
		resp.Body.Close()
		slow <- resp.StatusCode
	}()
	waitFaultTaken(t, s.base, "cmd-test-key")
	s.cancel()

	if code := <-slow; code != http.StatusNotFound {
		t.Errorf("in-flight request got %d, want its 404", code)
	}
	if err := <-s.done; err != nil {
		t.Fatalf("run: %v\n%s", err, s.stderr)
	}
	s.done <- nil // for the cleanup
	// A clean close checkpoints and removes the WAL.
	if fi, err := os.Stat(db + "-wal"); err == nil && fi.Size() > 0 {
		t.Errorf("WAL left behind after shutdown: %d bytes", fi.Size())
	}
	if _, err := http.Get(s.base + "/sandbox/ca.pem"); err == nil {
		t.Error("server still answers after shutdown")
	}
}

// waitFaultTaken polls until the registered fault has been picked up by a
// request, which is then sleeping inside the server. The bound only
// catches a request that never arrives.
func waitFaultTaken(t *testing.T, base, key string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		req, _ := http.NewRequest("GET", base+"/sandbox/faults", nil)
		req.Header.Set("X-Sandbox-Admin-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Faults []any }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if len(body.Faults) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the slow request never reached the server")
}

func TestRunRestartKeepsFixture(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "again.db")
	first := startRun(t, "-db", db)
	first.cancel()
	if err := <-first.done; err != nil {
		t.Fatal(err)
	}
	first.done <- nil
	second := startRun(t, "-db", db)
	resp, err := http.Get(second.base + "/sandbox/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	pem, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	saved, err := os.ReadFile(db + ".tls-cert.pem")
	if err != nil || !bytes.Equal(pem, saved) {
		t.Errorf("served CA differs from the one kept beside the database (%v)", err)
	}
	// The demo credentials are the same on the second start.
	if !strings.Contains(second.stdout.String(), sim.DemoUserToken(DefaultAdminKey, 1)) {
		t.Errorf("second banner:\n%s", second.stdout)
	}
}

func TestRunInMemory(t *testing.T) {
	t.Parallel()
	s := startRun(t, "-db", ":memory:", "-rate-limit", "100", "-log-level", "debug", "-validate")
	if !strings.Contains(s.stdout.String(), "(in memory)") {
		t.Errorf("banner:\n%s", s.stdout)
	}
	resp, err := http.Get(s.base + "/v1/nothing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status %d", resp.StatusCode)
	}
}

func TestRunFlagErrors(t *testing.T) {
	t.Parallel()
	tests := [][]string{
		{"-no-such-flag"},
		{"-admin-key", ""},
		{"-rate-limit", "-1"},
		{"-log-level", "loud"},
		{"-pos-health-interval", "0s"},
		{"-idle-timeout", "0s"},
		{"-read-timeout", "-1s"},
		{"extra"},
		{"-addr", "256.0.0.1:99999"},
	}
	for _, args := range tests {
		var stderr bytes.Buffer
		err := run(t.Context(), append([]string{"-db", ":memory:"}, args...), io.Discard, &stderr, nil)
		if err == nil {
			t.Errorf("run %q: no error", args)
		}
	}
	if err := run(t.Context(), []string{"-h"}, io.Discard, io.Discard, nil); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
}

// A second server on a database that a running server has open refuses to
// start and says why; the first keeps serving.
func TestRunRefusesADatabaseInUse(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "busy.db")
	first := startRun(t, "-db", db)
	err := run(t.Context(), []string{"-db", db, "-addr", "127.0.0.1:0", "-tls-addr", "127.0.0.1:0"}, io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), db+" is open in another server") {
		t.Fatalf("second run: %v, want a refusal naming %s", err, db)
	}
	if got := getStatus(t, first.base+"/sandbox/ca.pem"); got != http.StatusOK {
		t.Errorf("first server after the refusal: %d", got)
	}
}

// A database file damaged while the server was down is refused with a
// message naming the file, rather than served until a request reads a
// damaged page and gets a 500: at start, or, for a file above
// -start-check-bytes, by stopping the server once the check in the
// background finds it.
func TestRunRefusesADamagedDatabase(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		flags []string
	}{
		{"checked at start", nil},
		{"checked in the background", []string{"-start-check-bytes", "1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "damaged.db")
			damageDatabase(t, db)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			started := false
			args := append([]string{"-db", db, "-addr", "127.0.0.1:0", "-tls-addr", "127.0.0.1:0"}, tt.flags...)
			err := run(ctx, args, io.Discard, io.Discard, func(string, string) { started = true })
			if err == nil || !strings.Contains(err.Error(), "database file is damaged: "+db) {
				t.Fatalf("run on a damaged file: %v, want a refusal naming %s", err, db)
			}
			if background := tt.flags != nil; started != background {
				t.Errorf("started serving: %v, want %v", started, background)
			}
		})
	}
}

// damageDatabase makes a database at db with a server, stops it and writes
// garbage over the first page of a table that nothing reads at start:
// without a check the server would serve until an order is read.
func damageDatabase(t *testing.T, db string) {
	t.Helper()
	first := startRun(t, "-db", db)
	first.cancel()
	if err := <-first.done; err != nil {
		t.Fatal(err)
	}
	first.done <- nil
	raw, err := sql.Open("sqlite3", db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var pageSize, root int64
	if err := raw.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	if err := raw.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 'order_events'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	f, err := os.OpenFile(db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, int(pageSize)), (root-1)*pageSize); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
