package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A second DB on a file that is open is refused at once with a message
// naming the file; once the first is closed, the file opens again in the
// same process (a restart).
func TestOpenRefusesADatabaseThatIsOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "locked.db")
	first, err := Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "other-name.db")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, link} {
		second, err := Open(t.Context(), p, nil)
		if !errors.Is(err, ErrLocked) {
			if second != nil {
				second.Close()
			}
			t.Fatalf("second Open(%s): %v, want ErrLocked", p, err)
		}
		if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "another server") {
			t.Errorf("message %q does not say which file is in use and by what", err)
		}
	}
	// The refused opens left the first DB working.
	if err := first.Write(t.Context(), func(tx *Tx) error { return tx.SetState("k", "v") }); err != nil {
		t.Fatalf("write after refused opens: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(t.Context(), path, nil)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	again.Close()
}

// An in-memory database is private to its DB: any number open at once.
func TestMemoryDatabasesNeedNoLock(t *testing.T) {
	t.Parallel()
	a := openTest(t, MemoryPath, nil)
	b := openTest(t, MemoryPath, nil)
	if a == b {
		t.Fatal("same DB twice")
	}
}

// lockHolderEnv names the database a child process of the test binary
// opens and holds until its stdin closes.
const lockHolderEnv = "HOSPO_STORE_TEST_HOLD_DB"

// The lock holds across processes: while another process has the file
// open, Open is refused; when that process ends, the file opens.
//
// It is not parallel: a process
// it starts inherits, until it execs, the descriptors of every lock the
// package's other tests hold at that moment, and so holds their locks a
// little longer than they do.
func TestOpenRefusesADatabaseOpenInAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldDatabase$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockHolderEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "holding\n" {
		t.Fatalf("holder said %q, %v", line, err)
	}

	db, err := Open(t.Context(), path, nil)
	if !errors.Is(err, ErrLocked) {
		if db != nil {
			db.Close()
		}
		t.Fatalf("Open while another process holds the file: %v, want ErrLocked", err)
	}

	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("holder: %v", err)
	}
	db, err = Open(t.Context(), path, nil)
	if err != nil {
		t.Fatalf("Open after the holder ended: %v", err)
	}
	db.Close()
}

// TestHoldDatabase is the child process of
// TestOpenRefusesADatabaseOpenInAnotherProcess; it does nothing in a
// normal run.
func TestHoldDatabase(t *testing.T) {
	path := os.Getenv(lockHolderEnv)
	if path == "" {
		t.Skip("run as a child process only")
	}
	db, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fmt.Println("holding")
	_, _ = io.Copy(io.Discard, os.Stdin)
}
