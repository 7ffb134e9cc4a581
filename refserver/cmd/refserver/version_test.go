package main

import (
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/internal/syncbuf"
)

// -version prints the stamped version and commit and the Go version, and
// starts nothing (no database file appears, no port is bound).
func TestVersionFlag(t *testing.T) {
	// Not parallel: it sets the stamped values, as the release build does.
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "v1.2.3", "0123abc"
	var out syncbuf.Buffer
	db := t.TempDir() + "/never.db"
	if err := run(t.Context(), []string{"-version", "-db", db, "-addr", "256.0.0.1:1"}, &out, io.Discard, func(string, string) {
		t.Error("-version served")
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("-version touched the database: %v", err)
	}
	want := "refserver v1.2.3 commit 0123abc " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if out.String() != want {
		t.Errorf("-version printed %q, want %q", out.String(), want)
	}
}

// Without stamped values it still names a version and the Go toolchain.
func TestVersionLineUnstamped(t *testing.T) {
	t.Parallel()
	if l := versionLine(); !strings.HasPrefix(l, "refserver ") || !strings.Contains(l, runtime.Version()) {
		t.Errorf("versionLine() = %q", l)
	}
}
