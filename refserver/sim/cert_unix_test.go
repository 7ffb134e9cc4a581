//go:build unix

package sim

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCertificateFilesArePrivate: under the most permissive umask the
// certificate and its key are 0600. Not parallel: the umask is the
// process's.
func TestCertificateFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	db := filepath.Join(t.TempDir(), "c.db")
	if _, err := LoadOrCreateCertificate(db, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{db + ".tls-cert.pem", db + ".tls-key.pem"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(f), fi.Mode().Perm())
		}
	}
}
