package refserver_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// inMemory is the Start option of a server on ":memory:".
func inMemory(c *refservertest.Options) { c.DBPath = store.MemoryPath }

// userMe returns the status of GET /v1/user/me with token, and the user
// id it answers with.
func userMe(t *testing.T, env *refservertest.Env, token string) (int, int64) {
	t.Helper()
	status, body := env.Send(t, http.MethodGet, "/v1/user/me?accessToken="+token, nil, nil)
	var me struct {
		User struct {
			UserID int64 `json:"userId"`
		} `json:"user"`
	}
	if status == http.StatusOK {
		if err := json.Unmarshal(body, &me); err != nil {
			t.Fatalf("GET /v1/user/me: %v: %s", err, body)
		}
	}
	return status, me.User.UserID
}

func clockOffset(t *testing.T, env *refservertest.Env) int64 {
	t.Helper()
	var c struct{ OffsetSeconds int64 }
	if st := env.AdminDo(t, http.MethodGet, "/sandbox/clock", nil, &c); st != http.StatusOK {
		t.Fatalf("GET /sandbox/clock: %d", st)
	}
	return c.OffsetSeconds
}

// TestSnapshotRestore: a restore brings back the snapshot's credentials,
// data and clock offset, drops what came after it and clears the faults,
// on a database file and in memory alike.
func TestSnapshotRestore(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]refservertest.Option{"file": nil, "memory": {inMemory}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := refservertest.Start(t, opts...)
			before, beforeToken := env.NewUser(t)
			loc, _ := env.NewLocation(t, "Snapshot Diner", "providerA")
			env.AdvanceClock(t, time.Hour)
			fixtures := env.Fixtures(t)

			// The virtual clock runs an hour ahead of the real one: createdAt
			// falls between the real times around the save, an hour on (in
			// whole seconds).
			saving := time.Now().Add(time.Hour).Truncate(time.Second)
			snap := env.Snapshot(t, " venue ready ")
			saved := time.Now().Add(time.Hour)
			if snap.Name != "venue ready" || snap.SizeBytes <= 0 || !strings.HasPrefix(snap.SnapshotID, "snap_") {
				t.Errorf("snapshot = %+v, want the trimmed name, a size and an id", snap)
			}
			if c := snap.Created(); c.Before(saving) || c.After(saved) {
				t.Errorf("createdAt %v is not the virtual clock's now (between %v and %v)", c, saving, saved)
			}

			// Afterwards: a reset drops the user made before, a new user
			// comes, the clock moves on and a fault is armed.
			if st := env.AdminDo(t, http.MethodPost, "/sandbox/reset", nil, nil); st != http.StatusOK {
				t.Fatalf("reset: %d", st)
			}
			_, afterToken := env.NewUser(t)
			env.AdvanceClock(t, 5*time.Hour)
			if st := env.AdminDo(t, http.MethodPost, "/sandbox/faults", map[string]any{"pathPrefix": "/v1/user/me", "status": 503, "count": 5}, nil); st != http.StatusCreated {
				t.Fatalf("fault: %d", st)
			}
			if st, _ := userMe(t, env, beforeToken); st != http.StatusServiceUnavailable {
				t.Fatalf("with the fault armed: %d, want 503", st)
			}

			got := env.Restore(t, snap.SnapshotID)
			if d := cmp.Diff(fixtures, got); d != "" {
				t.Errorf("restore answered another fixture (-want +got):\n%s", d)
			}
			var faults struct{ Faults []any }
			if env.AdminDo(t, http.MethodGet, "/sandbox/faults", nil, &faults); len(faults.Faults) != 0 {
				t.Errorf("faults after restore: %v, want none", faults.Faults)
			}
			if st, id := userMe(t, env, beforeToken); st != http.StatusOK || id != before {
				t.Errorf("token from before the snapshot: %d, user %d; want 200, user %d", st, id, before)
			}
			if st, _ := userMe(t, env, afterToken); st != http.StatusUnauthorized {
				t.Errorf("token made after the snapshot: %d, want 401", st)
			}
			if got := clockOffset(t, env); got != 3600 {
				t.Errorf("clock offset %d s after restore, want the snapshot's 3600", got)
			}
			if st, _ := env.Send(t, http.MethodGet, fmt.Sprintf("/v1/location/%d", loc), nil, nil); st != http.StatusOK {
				t.Errorf("location made before the snapshot: %d, want 200", st)
			}
			// The restored state takes writes, and numbers them on from the
			// snapshot's.
			if id, _ := env.NewUser(t); id != before+1 {
				t.Errorf("next user id %d, want %d", id, before+1)
			}
			var list struct{ Snapshots []sandbox.Snapshot }
			env.AdminDo(t, http.MethodGet, "/sandbox/snapshots", nil, &list)
			if d := cmp.Diff([]sandbox.Snapshot{snap}, list.Snapshots); d != "" {
				t.Errorf("snapshots after restore (-want +got):\n%s", d)
			}
		})
	}
}

// TestSnapshotRestoreRacesWrites sends many writes (each a user and its
// token) while a restore runs. Those answered before the restore was sent
// are gone, those sent after it answered are all there, and every one is
// whole: its token works exactly when its user is there.
func TestSnapshotRestoreRacesWrites(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	snap := env.Snapshot(t, "empty")
	type result struct {
		userID   int64
		token    string
		sent     time.Time
		answered time.Time
	}
	const n = 60
	results := make([]result, n)
	var restoreSent, restoreAnswered time.Time
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var u struct {
				UserID      int64  `json:"userId"`
				AccessToken string `json:"accessToken"`
			}
			sent := time.Now()
			if st := env.AdminDo(t, http.MethodPost, "/sandbox/users", nil, &u); st != http.StatusCreated {
				t.Errorf("create user: %d", st)
			}
			results[i] = result{u.UserID, u.AccessToken, sent, time.Now()}
		})
		if i == n/2 {
			wg.Go(func() {
				restoreSent = time.Now()
				env.Restore(t, snap.SnapshotID)
				restoreAnswered = time.Now()
			})
		}
	}
	wg.Wait()
	var present int
	for i, r := range results {
		st, id := userMe(t, env, r.token)
		switch {
		case st == http.StatusOK:
			present++
			if id != r.userID {
				t.Errorf("write %d: its token is user %d's, want %d", i, id, r.userID)
			}
			if r.answered.Before(restoreSent) {
				t.Errorf("write %d, answered before the restore was sent, survived it", i)
			}
		case st == http.StatusUnauthorized:
			if r.sent.After(restoreAnswered) {
				t.Errorf("write %d, sent after the restore answered, is gone", i)
			}
		default:
			t.Errorf("write %d: GET /v1/user/me: %d", i, st)
		}
	}
	// Every user there has its token: the users made are exactly those
	// whose tokens work, plus the demo fixture's.
	if next, _ := env.NewUser(t); next != int64(len(env.Fixtures(t).Users)+present+1) {
		t.Errorf("next user id %d after %d surviving writes: a write left a user without its token", next, present)
	}
}

// TestSnapshotFileStartsServer: a snapshot file copied out is a database a
// new server starts from, with the snapshot's data, and the file itself is
// left as it was.
func TestSnapshotFileStartsServer(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	uid, token := env.NewUser(t)
	snap := env.Snapshot(t, "one user")
	path := env.SnapshotFile(t, snap.SnapshotID)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(orig)) != snap.SizeBytes {
		t.Errorf("file of %d bytes, snapshot says %d", len(orig), snap.SizeBytes)
	}

	other := refservertest.Start(t, refservertest.FromSnapshot(path))
	if st, id := userMe(t, other, token); st != http.StatusOK || id != uid {
		t.Errorf("user of the snapshot on the new server: %d, user %d; want 200, user %d", st, id, uid)
	}
	if d := cmp.Diff(env.Fixtures(t), other.Fixtures(t)); d != "" {
		t.Errorf("the new server's fixture (-old +new):\n%s", d)
	}
	other.NewUser(t)
	if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, orig) {
		t.Errorf("the snapshot file changed (%v)", err)
	}
}

// TestSnapshotErrors: bad names are 400002 and save nothing; unknown ids,
// including ones that try to leave the snapshot directory, are 404001;
// deleting removes the snapshot.
func TestSnapshotErrors(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]refservertest.Option{"file": nil, "memory": {inMemory}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := refservertest.Start(t, opts...)
			for _, body := range []any{
				map[string]any{},
				map[string]any{"name": ""},
				map[string]any{"name": "   "},
				map[string]any{"name": strings.Repeat("x", sandbox.MaxSnapshotName+1)},
				map[string]any{"name": "a\tb"},
			} {
				var e struct {
					Code        int
					ContextData map[string]string
				}
				if st := env.AdminDo(t, http.MethodPost, "/sandbox/snapshots", body, &e); st != http.StatusBadRequest || e.Code != 400002 || e.ContextData["name"] == "" {
					t.Errorf("POST %v: %d %+v, want 400002 naming name", body, st, e)
				}
			}
			var list struct{ Snapshots []sandbox.Snapshot }
			if env.AdminDo(t, http.MethodGet, "/sandbox/snapshots", nil, &list); len(list.Snapshots) != 0 {
				t.Errorf("refused snapshots were saved: %+v", list.Snapshots)
			}

			a := env.Snapshot(t, "a")
			b := env.Snapshot(t, "b")
			for _, id := range []string{"snap_0000000000000000", "..%2Frefserver.db", "snap_" + strings.Repeat("f", 17), a.SnapshotID + "x"} {
				var e struct {
					Code    int
					Message string
				}
				if st := env.AdminDo(t, http.MethodPost, "/sandbox/snapshots/"+id+"/restore", nil, &e); st != http.StatusNotFound || e.Code != 404001 || e.Message != "Snapshot not found." {
					t.Errorf("restore %s: %d %+v, want 404001 Snapshot not found.", id, st, e)
				}
				if st := env.AdminDo(t, http.MethodDelete, "/sandbox/snapshots/"+id, nil, nil); st != http.StatusNotFound {
					t.Errorf("delete %s: %d, want 404", id, st)
				}
			}
			if st := env.AdminDo(t, http.MethodDelete, "/sandbox/snapshots/"+a.SnapshotID, nil, nil); st != http.StatusNoContent {
				t.Errorf("delete: %d, want 204", st)
			}
			if st := env.AdminDo(t, http.MethodDelete, "/sandbox/snapshots/"+a.SnapshotID, nil, nil); st != http.StatusNotFound {
				t.Errorf("delete again: %d, want 404", st)
			}
			if st := env.AdminDo(t, http.MethodPost, "/sandbox/snapshots/"+a.SnapshotID+"/restore", nil, nil); st != http.StatusNotFound {
				t.Errorf("restore deleted: %d, want 404", st)
			}
			env.AdminDo(t, http.MethodGet, "/sandbox/snapshots", nil, &list)
			if d := cmp.Diff([]sandbox.Snapshot{b}, list.Snapshots); d != "" {
				t.Errorf("snapshots after delete (-want +got):\n%s", d)
			}
		})
	}
}

// TestSnapshotRestoreReplays: a restore sent again with the same
// Idempotency-Key is answered from the record, which lives in the
// restored state.
func TestSnapshotRestoreReplays(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	snap := env.Snapshot(t, "s")
	h := http.Header{client.HeaderAdminKey: {env.AdminKey}, "Idempotency-Key": {"restore-1"}}
	path := "/sandbox/snapshots/" + snap.SnapshotID + "/restore"
	st1, body1 := env.Send(t, http.MethodPost, path, h, nil)
	_, token := env.NewUser(t)
	st2, body2 := env.Send(t, http.MethodPost, path, h, nil)
	if st1 != http.StatusOK || st2 != http.StatusOK || !bytes.Equal(body1, body2) {
		t.Errorf("restore and its replay: %d %s, %d %s", st1, body1, st2, body2)
	}
	if st, _ := userMe(t, env, token); st != http.StatusOK {
		t.Errorf("the replay restored again: the user made in between is gone (%d)", st)
	}
}

// TestSnapshotLimitsAnswer: a save past -max-snapshots or
// -max-snapshots-bytes is a 400002 naming name that says which bound and
// how to make room, and saves nothing (no file either).
func TestSnapshotLimitsAnswer(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]refservertest.Option{"file": nil, "memory": {inMemory}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			refused := func(env *refservertest.Env, want string) {
				t.Helper()
				var before, after struct{ Snapshots []sandbox.Snapshot }
				env.AdminDo(t, http.MethodGet, "/sandbox/snapshots", nil, &before)
				var files []os.DirEntry
				if env.DBPath != store.MemoryPath {
					files, _ = os.ReadDir(env.DBPath + ".snapshots")
				}
				var e struct {
					Code        int
					ContextData map[string]string
				}
				st := env.AdminDo(t, http.MethodPost, "/sandbox/snapshots", map[string]string{"name": "one too many"}, &e)
				if st != http.StatusBadRequest || e.Code != 400002 || !strings.Contains(e.ContextData["name"], want) ||
					!strings.Contains(e.ContextData["name"], "DELETE /sandbox/snapshots/{snapshotId}") {
					t.Errorf("save past the bound: %d %+v, want 400002 naming name, saying %q and how to make room", st, e, want)
				}
				env.AdminDo(t, http.MethodGet, "/sandbox/snapshots", nil, &after)
				if d := cmp.Diff(before.Snapshots, after.Snapshots); d != "" {
					t.Errorf("the refused save changed the list (-before +after):\n%s", d)
				}
				if env.DBPath != store.MemoryPath {
					if now, _ := os.ReadDir(env.DBPath + ".snapshots"); len(now) != len(files) {
						t.Errorf("the refused save left files: %v, before %v", now, files)
					}
				}
			}
			env := refservertest.Start(t, append(opts, func(c *refservertest.Options) { c.MaxSnapshots = 2 })...)
			env.Snapshot(t, "one")
			env.Snapshot(t, "two")
			refused(env, "-max-snapshots")

			env = refservertest.Start(t, append(opts, func(c *refservertest.Options) { c.MaxSnapshotsBytes = 4096 })...)
			refused(env, "-max-snapshots-bytes")
		})
	}
}

// TestSnapshotRestoreRefusesWhatItCannot: a snapshot saved by a newer
// version of the server, or whose file is damaged, is refused with a
// 400002 naming snapshotId that says why, and the state stays as it was.
func TestSnapshotRestoreRefusesWhatItCannot(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	newer := env.Snapshot(t, "from a newer server")
	raw, err := sql.Open("sqlite3", env.SnapshotFile(t, newer.SnapshotID))
	if err != nil {
		t.Fatal(err)
	}
	_, err = raw.Exec(`INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_from_the_future.sql', 0)`)
	if cerr := raw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	damaged := env.Snapshot(t, "damaged")
	if err := os.WriteFile(env.SnapshotFile(t, damaged.SnapshotID), bytes.Repeat([]byte("not a database "), 500), 0o600); err != nil {
		t.Fatal(err)
	}
	_, token := env.NewUser(t)
	for id, want := range map[string]string{newer.SnapshotID: "newer version", damaged.SnapshotID: "damaged"} {
		var e struct {
			Code        int
			ContextData map[string]string
		}
		st := env.AdminDo(t, http.MethodPost, "/sandbox/snapshots/"+id+"/restore", nil, &e)
		if st != http.StatusBadRequest || e.Code != 400002 || !strings.Contains(e.ContextData["snapshotId"], want) {
			t.Errorf("restore of the %s snapshot: %d %+v, want 400002 naming snapshotId", want, st, e)
		}
	}
	if st, _ := userMe(t, env, token); st != http.StatusOK {
		t.Errorf("a refused restore changed the state: the user made after the snapshots is gone (%d)", st)
	}
}
