package rules

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
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
