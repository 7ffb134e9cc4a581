package store_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Building the server, its test package or the command without cgo fails
// with a message that says what is missing and where the prebuilt server
// is, first among the compiler's errors.
func TestBuildWithoutCgoSaysWhatToDo(t *testing.T) {
	t.Parallel()
	for _, pkg := range []string{"../cmd/refserver", "../refservertest", ".."} {
		cmd := exec.Command("go", "build", "-o", os.DevNull, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("CGO_ENABLED=0 go build %s succeeded", pkg)
			continue
		}
		lines := strings.Split(string(out), "\n")
		if len(lines) < 2 || !strings.Contains(lines[1], "refserver needs cgo and a C compiler") ||
			!strings.Contains(lines[1], "release binary or the container image") {
			t.Errorf("CGO_ENABLED=0 go build %s:\n%s", pkg, out)
		}
	}
}
