//go:build unix

package refserver_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A minimal Chrome DevTools Protocol client for the console's browser
// test: Chromium started with --remote-debugging-pipe reads commands from
// file descriptor 3 and writes answers and events to descriptor 4, each
// message a JSON object ended by a NUL byte. No WebSocket, no port and no
// dependency; the test needs only a handful of commands (open a page,
// navigate, evaluate script, take a screenshot).

// browser is a headless Chromium with one page attached.
type browser struct {
	t       testing.TB
	cmd     *exec.Cmd
	toChrom io.WriteCloser
	stderr  *chromiumOutput
	session string // the page's flattened session id

	writeMu sync.Mutex
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan cdpMessage
	readErr error
	done    chan struct{}
}

type cdpMessage struct {
	ID     int64           `json:"id,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// chromiumOutput collects Chromium's output for a failure report.
type chromiumOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *chromiumOutput) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *chromiumOutput) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startBrowser starts Chromium with a fresh profile and opens a blank page
// of the given size. It is stopped when the test ends.
func startBrowser(t testing.TB, chromium string, width, height int) *browser {
	t.Helper()
	profile := t.TempDir()
	cmdIn, toChrom, err := os.Pipe() // Chromium reads commands from fd 3
	if err != nil {
		t.Fatal(err)
	}
	fromChrom, cmdOut, err := os.Pipe() // and writes answers to fd 4
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir="+profile,
		fmt.Sprintf("--window-size=%d,%d", width, height),
		"--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdIn, cmdOut}
	b := &browser{t: t, cmd: cmd, toChrom: toChrom, stderr: &chromiumOutput{}, pending: map[int64]chan cdpMessage{}, done: make(chan struct{})}
	cmd.Stdout = b.stderr
	cmd.Stderr = b.stderr
	// Its own process group, so that the renderer and helper processes can
	// be stopped with it should it not exit by itself.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", chromium, err)
	}
	cmdIn.Close()
	cmdOut.Close()
	go b.read(fromChrom)
	t.Cleanup(b.stop)

	var target struct {
		TargetID string `json:"targetId"`
	}
	b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.call(b.session, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false,
	}, nil)
	return b
}

// read dispatches Chromium's answers to the calls waiting for them;
// events are dropped.
func (b *browser) read(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReader(r)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = err
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			close(b.done)
			return
		}
		var m cdpMessage
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.pending[m.ID]
		delete(b.pending, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// send sends one command and waits (up to a deadline) for its answer.
func (b *browser) send(session, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return nil, fmt.Errorf("browser gone: %w", b.readErr)
	}
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()

	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	b.writeMu.Lock()
	_, err = b.toChrom.Write(append(data, 0))
	b.writeMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: browser gone", method)
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		return m.Result, nil
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("%s: no answer in 30s", method)
	}
}

// call is send that fails the test on error and decodes the result into
// out (when not nil).
func (b *browser) call(session, method string, params, out any) {
	b.t.Helper()
	res, err := b.send(session, method, params)
	if err != nil {
		b.t.Fatalf("chromium: %v\nchromium output:\n%s", err, b.stderr.String())
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			b.t.Fatalf("chromium: %s: decode: %v", method, err)
		}
	}
}

// navigate loads url in the page.
func (b *browser) navigate(url string) {
	b.t.Helper()
	var res struct {
		ErrorText string `json:"errorText"`
	}
	b.call(b.session, "Page.navigate", map[string]any{"url": url}, &res)
	if res.ErrorText != "" {
		b.t.Fatalf("navigate to %s: %s", url, res.ErrorText)
	}
}

// eval runs a script expression in the page and decodes its value into
// out (when not nil). A thrown exception is an error.
func (b *browser) eval(expr string, out any) error {
	res, err := b.send(b.session, "Runtime.evaluate", map[string]any{
		"expression": expr, "returnByValue": true, "awaitPromise": true,
	})
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("script error: %s %s", r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil && len(r.Result.Value) > 0 {
		return json.Unmarshal(r.Result.Value, out)
	}
	return nil
}

// run evaluates a statement and fails the test if it throws.
func (b *browser) run(expr string) {
	b.t.Helper()
	if err := b.eval(expr, nil); err != nil {
		b.t.Fatalf("%s: %v", expr, err)
	}
}

// waitFor polls a boolean expression until it is true, failing the test
// with what the page shows after timeout. Errors while a page loads (no
// document yet) count as false.
func (b *browser) waitFor(what, expr string, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		if err := b.eval(expr, &ok); err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			var text string
			_ = b.eval(`location.href + "\n" + (document.body ? document.body.innerText : "")`, &text)
			b.t.Fatalf("timed out after %v waiting for %s (%s); the page shows:\n%s", timeout, what, expr, text)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// screenshot returns a PNG of the page's viewport.
func (b *browser) screenshot() ([]byte, error) {
	res, err := b.send(b.session, "Page.captureScreenshot", map[string]any{"format": "png"})
	if err != nil {
		return nil, err
	}
	var r struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// stop closes the browser: politely, then by signal to its process group.
func (b *browser) stop() {
	_, _ = b.send("", "Browser.close", map[string]any{})
	b.toChrom.Close()
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
	}
}

var errNoChromium = errors.New("no chromium")

// findChromium returns the Chromium to drive: $HOSPO_CHROMIUM, else the
// first of the usual names on $PATH.
func findChromium() (string, error) {
	if p := os.Getenv("HOSPO_CHROMIUM"); p != "" {
		return exec.LookPath(p)
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errNoChromium
}
