package sim

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/internal/storetest"
)

// TestSnapshotLeftoversRemovedAtStart: what saves cut short left (a
// process killed during a save, a save that failed on a full disk) is
// removed when the snapshots are opened again; a whole snapshot stays.
func TestSnapshotLeftoversRemovedAtStart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "l.db")
	db := storetest.Open(t, path, nil)
	kept, err := NewSnapshots(db, path, time.Now, SnapshotLimits{}).Create(t.Context(), "kept")
	if err != nil {
		t.Fatal(err)
	}
	dir := SnapshotDir(path)
	leftovers := []string{
		"snap_0123456789abcdef.sqlite.tmp", "snap_0123456789abcdef.sqlite.tmp-journal",
		"snap_1123456789abcdef.json.tmp", "snap_2123456789abcdef.sqlite", // a copy without its metadata
	}
	for _, f := range leftovers {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	list, err := NewSnapshots(db, path, time.Now, SnapshotLimits{}).List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].SnapshotID != kept.SnapshotID {
		t.Errorf("snapshots %+v, want only %s", list, kept.SnapshotID)
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	want := []string{kept.SnapshotID + ".json", kept.SnapshotID + ".sqlite"}
	if !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
}
