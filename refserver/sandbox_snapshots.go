package refserver

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// The sandbox's snapshots (contract.md section 9): copies of the whole
// state, kept by sim.Snapshots.

// handleCreateSnapshot is POST /sandbox/snapshots (rules.CheckSnapshot;
// the bounds of sim.Snapshots.Create, rules.SnapshotErr). The
// copy is made before the Write, from a reader: writes go on meanwhile,
// and the copy is whatever had committed when it began. The Write only
// gives the answer its idempotency record.
func (s sandboxAPI) handleCreateSnapshot(r *http.Request) (api.Write, error) {
	var req rules.SnapshotRequest
	if _, err := api.Decode(r, &req); err != nil {
		return nil, err
	}
	name, err := rules.CheckSnapshot(api.RequestFrom(r.Context()).Body(), &req)
	if err != nil {
		return nil, err
	}
	snap, err := s.snapshots.Create(r.Context(), name)
	if err != nil {
		return nil, rules.SnapshotErr(err)
	}
	return func(*store.Tx) (any, error) { return snap, nil }, nil
}

// handleListSnapshots is GET /sandbox/snapshots: every snapshot, oldest
// first. The snapshots are files beside the database: the Read only
// answers.
func (s sandboxAPI) handleListSnapshots(*http.Request) (api.Read, error) {
	return func(*store.Tx) (any, error) {
		list, err := s.snapshots.List()
		return sandbox.SnapshotList{Snapshots: list}, err
	}, nil
}

// handleRestoreSnapshot is POST /sandbox/snapshots/{snapshotId}/restore
// (Server.restoreSnapshot). It answers with the restored state's fixture
// (as GET /sandbox/fixtures); the answer's idempotency record is written
// into the restored database, so a retry replays it.
func (s sandboxAPI) handleRestoreSnapshot(r *http.Request) (api.Write, error) {
	if err := s.restoreSnapshot(r.Context(), chi.URLParam(r, "snapshotId")); err != nil {
		return nil, rules.SnapshotErr(err)
	}
	return func(tx *store.Tx) (any, error) { return s.demo.Fixtures(tx) }, nil
}

// handleDeleteSnapshot is DELETE /sandbox/snapshots/{snapshotId}.
func (s sandboxAPI) handleDeleteSnapshot(w http.ResponseWriter, r *http.Request) {
	if err := s.snapshots.Delete(chi.URLParam(r, "snapshotId")); err != nil {
		s.api.Error(w, r, rules.SnapshotErr(err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// restoreSnapshot puts snapshot id back in place of the whole database
// and then, before any other write runs, brings everything the server
// derives from the database in line with it (Server.adopt): the POS
// bearer tokens an older version kept in the clear are sealed, the demo
// fixture's credentials (re-derived should the snapshot come from a server with
// another admin key), the virtual clock's offset, the purge time of
// idempotency records (both as POST /sandbox/reset does). The token cache
// is emptied by the store. Then the faults are cleared, the POS monitor
// checks the restored locations' universal POSes and the order
// dispatcher looks at the restored queue.
func (s *Server) restoreSnapshot(ctx context.Context, id string) error {
	var posLocations []int64
	err := s.snapshots.Restore(ctx, id, func(tx *store.Tx) error {
		if _, err := s.adopt(tx); err != nil {
			return err
		}
		offset, err := sim.ClockOffset(tx)
		if err != nil {
			return err
		}
		locs, err := tx.POSLocations()
		if err != nil {
			return err
		}
		for _, l := range locs {
			posLocations = append(posLocations, l.LocationID)
		}
		tx.AfterCommit(func() { s.clock.SetOffset(offset) })
		return nil
	})
	if err != nil {
		return err
	}
	s.faults.Clear()
	for _, id := range posLocations {
		s.monitor.Registered(id)
	}
	s.clockMoved()
	return nil
}

// SnapshotFile returns the SQLite file of snapshot id, to copy out and
// start another server from (Config.DBPath). It fails for an unknown id,
// and for every id when the database, and so the snapshots, are in memory.
func (s *Server) SnapshotFile(id string) (string, error) {
	return s.snapshots.File(id)
}
