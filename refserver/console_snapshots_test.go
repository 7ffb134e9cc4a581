package refserver_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// The controls page saves, lists, restores and deletes snapshots through
// the admin API.
func TestConsoleSnapshots(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	a := loggedInAgent(t, env)
	csrf := a.csrf()
	post := func(path string, form url.Values) string { return a.postControl(csrf, path, form) }

	if page := post("/console/controls/snapshots", url.Values{"name": {"  "}}); !strings.Contains(page, "name: must not be empty") {
		t.Error("a blank name does not report the admin API's reason")
	}
	env.AdvanceClock(t, time.Hour)
	page := post("/console/controls/snapshots", url.Values{"name": {"<b>scene</b>"}})
	if !strings.Contains(page, "Snapshot &lt;b&gt;scene&lt;/b&gt; saved.") || strings.Contains(page, "<b>scene</b>") {
		t.Error("saving is not confirmed, or the name is not escaped")
	}
	var list struct{ Snapshots []sandbox.Snapshot }
	env.AdminDo(t, http.MethodGet, "/sandbox/snapshots", nil, &list)
	if len(list.Snapshots) != 1 {
		t.Fatalf("snapshots = %+v, want the one saved", list.Snapshots)
	}
	id := list.Snapshots[0].SnapshotID
	if !strings.Contains(page, "<code>"+id+"</code>") {
		t.Error("the snapshot is not listed")
	}

	env.AdvanceClock(t, time.Hour)
	if page := post("/console/controls/snapshots/restore", url.Values{"snapshotId": {id}}); !strings.Contains(page, "Tick the box") {
		t.Error("a restore without confirmation is not refused")
	}
	if got := clockOffset(t, env); got != 7200 {
		t.Fatalf("clock offset %d, want 7200", got)
	}
	if page := post("/console/controls/snapshots/restore", url.Values{"snapshotId": {id}, "confirm": {"yes"}}); !strings.Contains(page, "Sandbox restored") {
		t.Error("the restore is not confirmed")
	}
	if got := clockOffset(t, env); got != 3600 {
		t.Errorf("clock offset %d after the restore, want the snapshot's 3600", got)
	}
	if page := post("/console/controls/snapshots/delete", url.Values{"snapshotId": {id}}); !strings.Contains(page, "deleted") || !strings.Contains(page, "No snapshots.") {
		t.Error("the delete is not confirmed, or the snapshot is still listed")
	}
	if page := post("/console/controls/snapshots/delete", url.Values{"snapshotId": {id}}); !strings.Contains(page, "Snapshot not found.") {
		t.Error("deleting an unknown snapshot does not say so")
	}
}
