// Package bintest builds this module's commands and runs the refserver as
// a process, for the tests that need the real binary: a crash and a
// restart on the same file, the contract command against the server, the
// telemetry a process exports.
//
//	bin := bintest.Build(t, t.TempDir(), "./refserver/cmd/refserver")
//	srv := bintest.Start(t, exec.Command(bin, "-db", ":memory:", "-addr", "127.0.0.1:0", "-tls-addr", "127.0.0.1:0"))
//	... requests to srv.URL ...
package bintest

import (
	"bufio"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/internal/syncbuf"
)

// Build builds the package pkg of this module (a path from the module's
// root, such as "./refserver/cmd/refserver") into dir and returns the
// binary's path. It builds with the race detector when the test runs with
// it, so that the build reuses the packages the test was compiled from
// instead of compiling go-sqlite3 a second time. It skips t when there is
// no go command.
func Build(t testing.TB, dir, pkg string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build %s with: %v", pkg, err)
	}
	gomod, err := exec.Command(goBin, "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	bin := filepath.Join(dir, filepath.Base(pkg))
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command(goBin, append(args, pkg)...)
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// Server is a refserver process that Start started.
type Server struct {
	Cmd    *exec.Cmd
	URL    string          // the HTTP base URL its banner names, no trailing slash
	Stderr *syncbuf.Buffer // what the process has written to stderr
}

// startLimit only catches a server that never starts: no test asserts how
// long a start takes.
const startLimit = 2 * time.Minute

// Start starts cmd, a refserver command line that listens on a port the
// system picks (-addr 127.0.0.1:0), and returns once the banner on its
// stdout names its HTTP base URL. The rest of stdout is drained, so the
// process never blocks on a full pipe, and stderr is kept in
// Server.Stderr (Start sets cmd.Stderr). The process is killed when the
// test ends unless the test has waited for it already. Start fails t,
// quoting stderr, when the process ends before it serves.
func Start(t testing.TB, cmd *exec.Cmd) *Server {
	t.Helper()
	s := &Server{Cmd: cmd, Stderr: &syncbuf.Buffer{}}
	cmd.Stderr = s.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	found := make(chan string, 1)
	go func() { found <- readBanner(stdout) }()
	select {
	case u := <-found:
		if u == "" {
			_ = cmd.Wait()
			t.Fatalf("refserver exited before serving:\n%s", s.Stderr)
		}
		s.URL = u
	case <-time.After(startLimit):
		t.Fatalf("refserver did not start:\n%s", s.Stderr)
	}
	return s
}

// readBanner reads the refserver's start-up banner from r until the line
// that names the HTTP base URL ("  HTTP       http://127.0.0.1:41234"),
// and returns that URL; "" when r ends first. Once the URL is found, the
// rest of r is drained in the background.
func readBanner(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "HTTP" && strings.HasPrefix(f[1], "http://") {
			go func() { _, _ = io.Copy(io.Discard, r) }()
			return f[1]
		}
	}
	return ""
}
