package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The controls' snapshots: save the sandbox's whole state under a name,
// restore it, delete it. Each is the admin API's request, sent in-process
// like every control.

// snapshotView is one snapshot on the controls page.
type snapshotView struct {
	ID      string
	Name    string
	Created string // virtual time, UTC
	Size    string
}

// loadSnapshots lists the snapshots for the controls page, newest first;
// without a Config.Snapshots the section shows none.
func (h *Handler) loadSnapshots() ([]snapshotView, error) {
	if h.cfg.Snapshots == nil {
		return nil, nil
	}
	list, err := h.cfg.Snapshots.List()
	if err != nil {
		return nil, err
	}
	out := make([]snapshotView, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		s := list[i]
		out = append(out, snapshotView{
			ID:      s.SnapshotID,
			Name:    s.Name,
			Created: time.Unix(s.CreatedAt, 0).UTC().Format(timeLayout),
			Size:    formatBytes(s.SizeBytes),
		})
	}
	return out, nil
}

// formatBytes shows a size in KiB or MiB with one decimal.
func formatBytes(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}

// handleSaveSnapshot saves the state: POST /sandbox/snapshots.
func (h *Handler) handleSaveSnapshot(w http.ResponseWriter, r *http.Request) {
	name := r.PostForm.Get("name")
	res, err := h.adminCall(r, http.MethodPost, "/sandbox/snapshots", map[string]string{"name": name})
	h.finish(w, r, res, err, "Snapshot "+strings.TrimSpace(name)+" saved.")
}

// handleRestoreSnapshot puts the state back to a snapshot: POST
// /sandbox/snapshots/{snapshotId}/restore. The form must tick its
// confirmation box.
func (h *Handler) handleRestoreSnapshot(w http.ResponseWriter, r *http.Request) {
	if r.PostForm.Get("confirm") != "yes" {
		h.sessions.setFlash(sessionFrom(r), "Tick the box to confirm the restore.", true)
		http.Redirect(w, r, Prefix+"/controls", http.StatusSeeOther)
		return
	}
	id := r.PostForm.Get("snapshotId")
	res, err := h.adminCall(r, http.MethodPost, "/sandbox/snapshots/"+url.PathEscape(id)+"/restore", nil)
	h.finish(w, r, res, err, "Sandbox restored to snapshot "+id+"; faults cleared.")
}

// handleDeleteSnapshot removes a snapshot: DELETE
// /sandbox/snapshots/{snapshotId}.
func (h *Handler) handleDeleteSnapshot(w http.ResponseWriter, r *http.Request) {
	id := r.PostForm.Get("snapshotId")
	res, err := h.adminCall(r, http.MethodDelete, "/sandbox/snapshots/"+url.PathEscape(id), nil)
	h.finish(w, r, res, err, "Snapshot "+id+" deleted.")
}
