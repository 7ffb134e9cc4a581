package sandbox

import (
	"context"
	"net/http"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// MaxSnapshotName is the longest snapshot name the sandbox takes, in
// characters. A name must also hold something besides spaces and no
// control characters.
const MaxSnapshotName = 100

// Snapshot is a saved copy of the sandbox's whole state: every user,
// location, credential, card, check, payment, order, event and delivery,
// and the virtual clock's offset. Faults are not part of it.
type Snapshot struct {
	// SnapshotID names the snapshot in the other calls.
	SnapshotID string `json:"snapshotId"`
	// Name is the name it was saved under; names need not be unique.
	Name string `json:"name"`
	// CreatedAt is when it was saved, Unix seconds on the virtual clock.
	CreatedAt int64 `json:"createdAt"`
	// SizeBytes is the size of the copy, an SQLite database file.
	SizeBytes int64 `json:"sizeBytes"`
}

// Created returns CreatedAt as a time.
func (s Snapshot) Created() time.Time { return time.Unix(s.CreatedAt, 0) }

// SnapshotAPI is the snapshot calls of Service.
type SnapshotAPI interface {
	CreateSnapshot(ctx context.Context, name string, opts ...client.Option) (Snapshot, error)
	Snapshots(ctx context.Context, opts ...client.Option) ([]Snapshot, error)
	RestoreSnapshot(ctx context.Context, snapshotID string, opts ...client.Option) (Fixtures, error)
	DeleteSnapshot(ctx context.Context, snapshotID string, opts ...client.Option) error
}

var _ SnapshotAPI = (*Service)(nil)

type createSnapshotRequest struct {
	Name string `json:"name"`
}

// CreateSnapshot saves the sandbox's whole state under name, to come back
// to with RestoreSnapshot: for example a venue set up once, restored
// before each test. A name that is empty, blank or longer than
// MaxSnapshotName characters is a 400002, and so is a save past the
// server's bounds on the snapshots it keeps (their number and their bytes
// together, refserver -max-snapshots and -max-snapshots-bytes): delete
// one to make room.
//
// POST /sandbox/snapshots
func (s *Service) CreateSnapshot(ctx context.Context, name string, opts ...client.Option) (Snapshot, error) {
	var out Snapshot
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/sandbox/snapshots",
		Body:   createSnapshotRequest{Name: name},
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return Snapshot{}, err
	}
	return out, nil
}

// SnapshotList is the body of GET /sandbox/snapshots.
type SnapshotList struct {
	Snapshots []Snapshot `json:"snapshots"`
}

// Snapshots lists the saved snapshots, oldest first.
//
// GET /sandbox/snapshots
func (s *Service) Snapshots(ctx context.Context, opts ...client.Option) ([]Snapshot, error) {
	var out SnapshotList
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/sandbox/snapshots",
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return nil, err
	}
	return out.Snapshots, nil
}

// RestoreSnapshot puts the sandbox back to the state saved in a snapshot:
// what was made since is gone (a credential made after the snapshot stops
// working, one deleted since works again), the virtual clock is back at the
// snapshot's offset and every fault is cleared. Writes in flight finish
// first and later ones see the restored state. It returns the demo fixture
// of the restored state. An unknown snapshotID is a 404001
// (client.ErrNotFound); a snapshot the server cannot restore (saved by a
// newer version of it, or damaged) is a 400002 naming snapshotId, and
// changes nothing.
//
// POST /sandbox/snapshots/{snapshotId}/restore
func (s *Service) RestoreSnapshot(ctx context.Context, snapshotID string, opts ...client.Option) (Fixtures, error) {
	var out Fixtures
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/sandbox/snapshots/{snapshotId}/restore",
		Params: []string{snapshotID},
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return Fixtures{}, err
	}
	return out, nil
}

// DeleteSnapshot removes a snapshot. An unknown snapshotID is a 404001
// (client.ErrNotFound).
//
// DELETE /sandbox/snapshots/{snapshotId}
func (s *Service) DeleteSnapshot(ctx context.Context, snapshotID string, opts ...client.Option) error {
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodDelete,
		Route:  "/sandbox/snapshots/{snapshotId}",
		Params: []string{snapshotID},
		Auth:   client.AuthAdminKey,
	}, nil, opts...)
	return err
}
