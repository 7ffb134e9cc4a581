package sandbox

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/hospo-dev/hospo-go/client"
)

func TestCreateSnapshot(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/snapshots", rec.json(201,
		`{"snapshotId":"snap_0123456789abcdef","name":"venue ready","createdAt":1700000000,"sizeBytes":131072}`))

	snap, err := s.CreateSnapshot(context.Background(), "venue ready")
	if err != nil {
		t.Fatal(err)
	}
	c := rec.last(t)
	testAdminRequest(t, c, http.MethodPost, "/prefix/sandbox/snapshots")
	testBody(t, c, `{"name":"venue ready"}`)
	want := Snapshot{SnapshotID: "snap_0123456789abcdef", Name: "venue ready", CreatedAt: 1700000000, SizeBytes: 131072}
	if snap != want {
		t.Errorf("snapshot = %+v, want %+v", snap, want)
	}
	if got := snap.Created().Unix(); got != 1700000000 {
		t.Errorf("Created() = %d", got)
	}
}

func TestCreateSnapshotBadName(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/snapshots", rec.json(400,
		errorBody(client.CodeValidation, "", `{"name":"must not be empty"}`)))

	_, err := s.CreateSnapshot(context.Background(), "")
	if !errors.Is(err, client.ErrValidation) {
		t.Fatalf("err = %v, want ErrValidation", err)
	}
	// The empty name is sent, for the server to refuse: the SDK does not
	// keep a second copy of the rule.
	testBody(t, rec.last(t), `{"name":""}`)
}

func TestSnapshots(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/snapshots", rec.json(200,
		`{"snapshots":[{"snapshotId":"snap_a","name":"a","createdAt":1,"sizeBytes":4096},{"snapshotId":"snap_b","name":"b","createdAt":2,"sizeBytes":8192}]}`))

	list, err := s.Snapshots(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	testAdminRequest(t, rec.last(t), http.MethodGet, "/prefix/sandbox/snapshots")
	want := []Snapshot{{"snap_a", "a", 1, 4096}, {"snap_b", "b", 2, 8192}}
	if d := cmp.Diff(want, list); d != "" {
		t.Errorf("snapshots (-want +got):\n%s", d)
	}
}

func TestRestoreSnapshot(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/snapshots/snap_a/restore", rec.json(200,
		`{"users":[{"userId":1,"accessToken":"usr_1"}],"locations":[],"apiKeys":[]}`))

	f, err := s.RestoreSnapshot(context.Background(), "snap_a")
	if err != nil {
		t.Fatal(err)
	}
	c := rec.last(t)
	testAdminRequest(t, c, http.MethodPost, "/prefix/sandbox/snapshots/snap_a/restore")
	testBody(t, c, "")
	want := Fixtures{Users: []User{{UserID: 1, AccessToken: "usr_1"}}, Locations: []Location{}, APIKeys: []APIKey{}}
	if d := cmp.Diff(want, f); d != "" {
		t.Errorf("fixtures (-want +got):\n%s", d)
	}
}

func TestDeleteSnapshot(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodDelete, testBase+"sandbox/snapshots/snap_a", rec.respond(204, "", ""))

	if err := s.DeleteSnapshot(context.Background(), "snap_a"); err != nil {
		t.Fatal(err)
	}
	testAdminRequest(t, rec.last(t), http.MethodDelete, "/prefix/sandbox/snapshots/snap_a")
}

// An id is one path segment, escaped: a slash in it cannot reach another
// route.
func TestSnapshotIDIsEscaped(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var paths []string
	mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		paths = append(paths, req.URL.EscapedPath())
		return httpmock.NewStringResponse(404, errorBody(client.CodeNotFound, "Snapshot not found.", "")), nil
	})

	if _, err := s.RestoreSnapshot(context.Background(), "a/b"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("restore: err = %v, want ErrNotFound", err)
	}
	if err := s.DeleteSnapshot(context.Background(), "a/b"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("delete: err = %v, want ErrNotFound", err)
	}
	want := []string{"/prefix/sandbox/snapshots/a%2Fb/restore", "/prefix/sandbox/snapshots/a%2Fb"}
	if d := cmp.Diff(want, paths); d != "" {
		t.Errorf("paths (-want +got):\n%s", d)
	}
}
