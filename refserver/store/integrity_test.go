package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A database file damaged on disk is refused at Open with a message that
// names the file and says what to do, instead of opening and failing later
// on the first request that reads a damaged page.
func TestOpenRefusesADamagedFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		damage func(t *testing.T, path string, pageSize, root int64)
	}{
		{"garbage over a table's root page", func(t *testing.T, path string, pageSize, root int64) {
			overwrite(t, path, (root-1)*pageSize, pageSize)
		}},
		{"garbage over a table's last pages", func(t *testing.T, path string, pageSize, _ int64) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			overwrite(t, path, fi.Size()-3*pageSize, 2*pageSize)
		}},
		{"the file header", func(t *testing.T, path string, _, _ int64) {
			overwrite(t, path, 0, 100)
		}},
		{"a truncated file", func(t *testing.T, path string, pageSize, _ int64) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, fi.Size()-10*pageSize); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "damaged.db")
			pageSize, root := fillDatabase(t, path)
			tt.damage(t, path, pageSize, root)

			db, err := Open(t.Context(), path, nil)
			if err == nil {
				db.Close()
				t.Fatal("Open accepted the damaged file")
			}
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("Open: %v, want ErrDamaged", err)
			}
			for _, want := range []string{path, "damaged", "restore it from a backup"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q lacks %q", err, want)
				}
			}
			// The refusal released the file: a repaired copy could open.
			l, err := lockDatabase(path)
			if err != nil {
				t.Fatalf("lock after the refusal: %v", err)
			}
			l.release()
		})
	}
}

// An intact file passes the check and opens again and again.
func TestOpenAcceptsAnIntactFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "intact.db")
	fillDatabase(t, path)
	for range 2 {
		db, err := Open(t.Context(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
}

// fillDatabase makes a database at path with a table spread over many
// pages, closes it (which folds the WAL into the file) and returns the
// page size and that table's root page.
func fillDatabase(t *testing.T, path string) (pageSize, root int64) {
	t.Helper()
	db, err := Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Write(t.Context(), func(tx *Tx) error {
		for i := range 2000 {
			if err := tx.SetState(fmt.Sprintf("filler-%04d", i), strings.Repeat("x", 200)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("WAL left after Close: %v", err)
	}
	raw, err := sql.Open("sqlite3", path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if err := raw.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	if err := raw.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 'sandbox_state'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	return pageSize, root
}

// overwrite writes n bytes of a fixed non-zero pattern at offset off.
func overwrite(t *testing.T, path string, off, n int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := make([]byte, n)
	for i := range junk {
		junk[i] = byte(i*7 + 13)
	}
	if _, err := f.WriteAt(junk, off); err != nil {
		t.Fatal(err)
	}
}

// A file above the foreground limit opens at once; a truncated file or a
// damaged header is still refused there, and Verify finds the damage that
// only reading every page shows. An intact file passes both.
func TestVerifyChecksLargeFilesAfterOpen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		damage     func(t *testing.T, path string, pageSize, root int64)
		refusedNow bool
	}{
		{"intact", func(*testing.T, string, int64, int64) {}, false},
		{"garbage over a table's root page", func(t *testing.T, path string, pageSize, root int64) {
			overwrite(t, path, (root-1)*pageSize, pageSize)
		}, false},
		{"a truncated file", func(t *testing.T, path string, pageSize, _ int64) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, fi.Size()-10*pageSize); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"the file header", func(t *testing.T, path string, _, _ int64) {
			overwrite(t, path, 0, 100)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "large.db")
			pageSize, root := fillDatabase(t, path)
			tt.damage(t, path, pageSize, root)

			db, err := Open(t.Context(), path, nil, CheckInForegroundUpTo(1))
			if tt.refusedNow {
				if !errors.Is(err, ErrDamaged) {
					t.Fatalf("Open: %v, want ErrDamaged", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer db.Close()
			err = db.Verify(t.Context())
			if tt.name == "intact" {
				if err != nil {
					t.Errorf("Verify: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), path) {
				t.Errorf("Verify: %v, want ErrDamaged naming the file", err)
			}
		})
	}
}
