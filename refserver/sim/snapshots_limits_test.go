package sim

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/internal/storetest"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// snapshotFiles returns the names of the files in the snapshot directory
// of the database at path (none for an in-memory database).
func snapshotFiles(t *testing.T, path string) []string {
	t.Helper()
	if path == store.MemoryPath {
		return nil
	}
	des, err := os.ReadDir(SnapshotDir(path))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

// openLimited opens a database at path and its snapshots under limits.
func openLimited(t *testing.T, path string, limits SnapshotLimits) *Snapshots {
	t.Helper()
	s := NewSnapshots(storetest.Open(t, path, nil), path, time.Now, limits)
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSnapshotLimits: a save past the bound on the number of snapshots,
// or on the bytes they take together, fails with an error saying which
// bound, and changes nothing: the list and the files are as before, with
// no temporary file of the copy that stopped at the bound on bytes (the
// path of a save that fails on a full disk). Deleting a snapshot makes
// room again.
func TestSnapshotLimits(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"file", store.MemoryPath} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			t.Run("count", func(t *testing.T) {
				s := openLimited(t, pathIn(t, path), SnapshotLimits{Count: 2})
				first, err := s.Create(t.Context(), "one")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Create(t.Context(), "two"); err != nil {
					t.Fatal(err)
				}
				before, _ := s.List()
				_, err = s.Create(t.Context(), "three")
				var many *TooManySnapshotsError
				if !errors.As(err, &many) || many.Max != 2 {
					t.Fatalf("third save: %v, want a TooManySnapshotsError of 2", err)
				}
				if after, _ := s.List(); !slices.Equal(after, before) {
					t.Errorf("the refused save changed the list: %+v, want %+v", after, before)
				}
				if err := s.Delete(first.SnapshotID); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Create(t.Context(), "three"); err != nil {
					t.Errorf("save after a delete: %v", err)
				}
			})
			t.Run("bytes", func(t *testing.T) {
				p := pathIn(t, path)
				s := openLimited(t, p, SnapshotLimits{})
				c, err := s.db.CopyToMemory(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				size := c.Size() // of every copy, as nothing is written meanwhile
				c.Close()
				// Room for one snapshot and half of another: the second
				// copy stops part-way through.
				s.limits.Bytes = size + size/2
				if _, err := s.Create(t.Context(), "one"); err != nil {
					t.Fatal(err)
				}
				before, _ := s.List()
				files := snapshotFiles(t, p)
				_, err = s.Create(t.Context(), "two")
				var large *SnapshotsTooLargeError
				if !errors.As(err, &large) || large.Held != size || large.Need != size || large.Max != size+size/2 {
					t.Fatalf("second save: %v, want a SnapshotsTooLargeError of %d held, %d needed, %d allowed", err, size, size, size+size/2)
				}
				if after, _ := s.List(); !slices.Equal(after, before) {
					t.Errorf("the refused save changed the list: %+v, want %+v", after, before)
				}
				if got := snapshotFiles(t, p); !slices.Equal(got, files) {
					t.Errorf("files after the refused save %v, want %v (no temporary file left)", got, files)
				}
				if err := s.Delete(before[0].SnapshotID); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Create(t.Context(), "two"); err != nil {
					t.Errorf("save after a delete: %v", err)
				}
			})
		})
	}
}

// pathIn returns the database path of a subtest of TestSnapshotLimits:
// the in-memory path, or for "file" a new file in a new directory.
func pathIn(t *testing.T, path string) string {
	if path == store.MemoryPath {
		return path
	}
	return filepath.Join(t.TempDir(), "l.db")
}
