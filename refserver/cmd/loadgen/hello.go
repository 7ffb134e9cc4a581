package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
)

// helloHandler is the ceiling: it reads the body and answers a tiny JSON
// object, doing none of the service's work.
func helloHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
}

// serveHello serves helloHandler on addr, prints the URL, and stops when
// ctx ends or after a bound, whichever comes first (so an orphaned child
// never outlives its purpose).
func serveHello(ctx context.Context, addr string, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: helloHandler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(out, "hello listening http://%s\n", ln.Addr())
	ctx, cancel := context.WithTimeout(ctx, 2*maxDuration)
	defer cancel()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// sampleBody is a check as a till sends it, so that the ceiling moves the
// same bytes as the real load.
func sampleBody() []byte {
	t := newTill(1, 1, 1, newPayables(), &counters{})
	c := t.checks[1]
	for range 3 {
		t.addItem(c)
	}
	b, _ := json.Marshal(c)
	return b
}

// runHello starts the hello-world server in a child process (so that, as
// with the refserver, client and server are separate processes sharing the
// machine) and measures it.
func runHello(ctx context.Context, o options, out io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, exe, "-hello-serve", "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return fmt.Errorf("hello server: %w", err)
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "hello listening ")
	if !ok {
		return fmt.Errorf("hello server said %q", line)
	}
	o.serverPID = cmd.Process.Pid
	return driveHello(ctx, base, o, out)
}

// driveHello posts sampleBody to base with o.concurrency loops and reports
// like the load does.
func driveHello(ctx context.Context, base string, o options, out io.Writer) error {
	m := newMeter(newTransport(o.maxConns), o.timeline)
	hc := &http.Client{Transport: m, Timeout: 30 * time.Second}
	body := sampleBody()
	loadCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range o.concurrency {
		wg.Go(func() {
			for loadCtx.Err() == nil {
				req, _ := http.NewRequestWithContext(loadCtx, http.MethodPost, base+"/v1/pos/push-pull/check", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(client.HeaderIdempotencyKey, "hello")
				resp, err := hc.Do(req)
				if err != nil { // counted by the meter
					sleep(loadCtx, 10*time.Millisecond)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	sleep(ctx, o.warmup)
	m.startWindow()
	before := snapshot(o.serverPID, []*possync.Agent{}, &counters{}, nil)
	sleep(ctx, o.duration)
	if o.untilAnswered {
		awaitAnswered(ctx, m, []string{"POST /v1/pos/push-pull/check"}, nil, 0)
	}
	after := snapshot(o.serverPID, []*possync.Agent{}, &counters{}, nil)
	m.stopWindow()
	stop()
	wg.Wait()

	window, sums := m.summaries()
	fmt.Fprintf(out, "hello-world net/http ceiling: %d concurrent loops posting a %d-byte check\n", o.concurrency, len(body))
	fmt.Fprintf(out, "window: %s after %s of warm-up\n\n", window.Round(time.Millisecond), o.warmup)
	printSummaries(out, window, sums, m.allLatencies())
	fmt.Fprintf(out, "loadgen CPU: %.2f cores\n", (after.selfCPU-before.selfCPU).Seconds()/window.Seconds())
	if o.serverPID > 0 && after.memErr == nil {
		fmt.Fprintf(out, "server: peak RSS (VmHWM) %s, CPU %.2f cores\n", mib(after.serverPeak),
			(after.serverCPU-before.serverCPU).Seconds()/window.Seconds())
	}
	return nil
}
