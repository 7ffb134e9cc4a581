package events

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A webhook receiver or a feed consumer needs none of the server: the
// package must build without cgo and without refserver, so that it runs
// anywhere Go does (a scratch container, GOOS=js, CGO_ENABLED=0).
func TestNoServerOrCgoDependency(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{len .CgoFiles}}", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	var n int
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		path, std, cgoFiles := f[0], f[1] == "true", f[2]
		n++
		switch {
		case strings.HasPrefix(path, "github.com/hospo-dev/hospo-go/refserver"):
			t.Errorf("depends on the server: %s", path)
		case strings.Contains(path, "go-sqlite3"):
			t.Errorf("depends on the SQLite driver: %s", path)
		case !std && cgoFiles != "0":
			t.Errorf("depends on a cgo package: %s", path)
		}
	}
	if n < 10 {
		t.Errorf("go list found only %d packages; is the test looking at the right one?", n)
	}
}
