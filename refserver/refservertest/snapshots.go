package refservertest

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// Snapshots let a test set a scene up once and start each subtest from
// it:
//
//	env := refservertest.Start(t)
//	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Harbour"})
//	scene := env.Snapshot(t, "venue ready")
//	t.Run("pays", func(t *testing.T) {
//		env.Restore(t, scene.SnapshotID)
//		...
//	})
//
// A snapshot file also starts a server of its own (FromSnapshot), for
// example one made once by a setup program and kept with the tests.

// FromSnapshot is an option of Start: the server starts on a copy of the
// SQLite file at path, a snapshot file (Env.SnapshotFile, or one under
// <db>.snapshots of any server) or any database of the server, instead of
// on a fresh database. The file itself is never changed.
func FromSnapshot(path string) Option {
	return func(o *Options) { o.Snapshot = path }
}

// startFrom copies the file snapshot to dbPath, when there is one.
func startFrom(t testing.TB, dbPath, snapshot string) {
	t.Helper()
	if snapshot == "" {
		return
	}
	if dbPath == store.MemoryPath {
		t.Fatalf("refservertest: FromSnapshot needs a database file, not %s", store.MemoryPath)
	}
	if err := copyFile(snapshot, dbPath); err != nil {
		t.Fatalf("refservertest: FromSnapshot: %v", err)
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, store.PrivateMode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Snapshot saves the sandbox's whole state under name (POST
// /sandbox/snapshots) and returns the snapshot.
func (e *Env) Snapshot(t testing.TB, name string) sandbox.Snapshot {
	t.Helper()
	var s sandbox.Snapshot
	e.mustAdmin(t, http.StatusCreated, http.MethodPost, "/sandbox/snapshots", map[string]any{"name": name}, &s)
	return s
}

// Restore puts the sandbox back to snapshot id (POST
// /sandbox/snapshots/{id}/restore) and returns the restored demo fixture.
func (e *Env) Restore(t testing.TB, id string) sandbox.Fixtures {
	t.Helper()
	var f sandbox.Fixtures
	e.mustAdmin(t, http.StatusOK, http.MethodPost, "/sandbox/snapshots/"+url.PathEscape(id)+"/restore", nil, &f)
	return f
}

// SnapshotFile returns the SQLite file of snapshot id, to copy out or to
// start another server from (FromSnapshot). The server must run on a
// database file.
func (e *Env) SnapshotFile(t testing.TB, id string) string {
	t.Helper()
	p, err := e.Server.SnapshotFile(id)
	if err != nil {
		t.Fatalf("refservertest: snapshot file %s: %v", id, err)
	}
	return p
}
