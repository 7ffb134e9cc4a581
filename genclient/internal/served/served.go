// Package served hands the genclient tests the OpenAPI document as a
// running refserver serves it, the input integrators generate from.
package served

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// Document starts a refserver, fetches its /openapi.json and writes it to
// openapi.json in dir, whose path it returns.
func Document(t testing.TB, dir string) string {
	t.Helper()
	env := refservertest.Start(t)
	resp, err := http.Get(env.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d %v", resp.StatusCode, err)
	}
	path := filepath.Join(dir, "openapi.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
