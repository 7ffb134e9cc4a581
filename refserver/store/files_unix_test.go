//go:build unix

package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFilesArePrivate: under the most permissive umask, the database, its
// -wal and -shm, the lock and a copy are all 0600, and a database left
// 0644 by an earlier version is made 0600. Not parallel: the umask is the
// process's.
func TestFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "p.db")
	older := filepath.Join(dir, "older.db")
	if err := os.WriteFile(older, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, older} {
		db, err := Open(t.Context(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Write(t.Context(), func(tx *Tx) error { return tx.SetState("x", "y") }); err != nil {
			t.Fatal(err)
		}
		files := []string{p, p + "-wal", p + "-shm", p + lockSuffix}
		if p == path {
			copyPath := filepath.Join(dir, "copy.sqlite")
			if _, err := db.CopyToFile(t.Context(), copyPath); err != nil {
				t.Fatal(err)
			}
			files = append(files, copyPath)
		}
		for _, f := range files {
			fi, err := os.Stat(f)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s has mode %v, want 0600", filepath.Base(f), fi.Mode().Perm())
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
