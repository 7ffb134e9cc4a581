package rules

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// SnapshotRequest is the body of POST /sandbox/snapshots.
type SnapshotRequest struct {
	Name string `json:"name"`
}

// CheckSnapshot checks a snapshot body raw, decoded into req, and returns
// the name to save it under (trimmed of surrounding spaces), or a 400002:
// the name is required, must hold something besides spaces, be at most
// sandbox.MaxSnapshotName characters and hold no control characters (it
// is shown in lists and on the console).
func CheckSnapshot(raw []byte, req *SnapshotRequest) (string, error) {
	bad := missing(raw, "name")
	name := strings.TrimSpace(req.Name)
	switch {
	case bad["name"] != "":
	case name == "":
		bad["name"] = "must not be empty"
	case utf8.RuneCountInString(name) > sandbox.MaxSnapshotName:
		bad["name"] = fmt.Sprintf("must be at most %d characters", sandbox.MaxSnapshotName)
	case strings.ContainsFunc(name, unicode.IsControl):
		bad["name"] = "must not contain control characters"
	}
	if len(bad) > 0 {
		return "", api.Invalid(bad)
	}
	return name, nil
}

// SnapshotErr turns the errors of the snapshot calls (sim.Snapshots) that
// the caller can act on into the catalogue's: an unknown snapshot is a
// 404001; a save past a bound of the snapshots (sim.SnapshotLimits) is a
// 400002 naming name, as a webhook past MaxWebhooksPerKey names url,
// saying which bound and what to delete; a snapshot this server cannot
// restore (made by a newer version of it, or damaged) is a 400002 naming
// snapshotId. Other errors stay as they are (500001).
func SnapshotErr(err error) error {
	var many *sim.TooManySnapshotsError
	var large *sim.SnapshotsTooLargeError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return api.NotFound("Snapshot")
	case errors.As(err, &many):
		return api.Invalid(map[string]string{"name": fmt.Sprintf("the sandbox keeps %d snapshots already, the most it may (refserver -max-snapshots); "+
			"delete one (DELETE /sandbox/snapshots/{snapshotId}) before saving another", many.Max)})
	case errors.As(err, &large):
		return api.Invalid(map[string]string{"name": fmt.Sprintf("the snapshots take %d bytes and this one needs %d, more than the %d they may take together "+
			"(refserver -max-snapshots-bytes); delete some (DELETE /sandbox/snapshots/{snapshotId}) before saving another", large.Held, large.Need, large.Max)})
	case errors.Is(err, store.ErrNewerCopy):
		return api.Invalid(map[string]string{"snapshotId": "the snapshot was saved by a newer version of the server, which this one cannot restore; " +
			"restore it with that version or a later one"})
	case errors.Is(err, store.ErrDamaged):
		return api.Invalid(map[string]string{"snapshotId": "the snapshot's file is damaged (it fails SQLite's integrity check) and cannot be restored"})
	}
	return err
}
