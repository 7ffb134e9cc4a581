package sim_test

import (
	"bytes"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/sim"
)

func TestCertificateIsKeptBesideTheDatabase(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "x.db")
	now := time.Now()
	c1, err := sim.LoadOrCreateCertificate(db, now)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := sim.LoadOrCreateCertificate(db, now)
	if err != nil || !bytes.Equal(c1.CertPEM, c2.CertPEM) {
		t.Fatalf("second load made a new certificate (%v)", err)
	}
	_, keyFile := sim.CertPaths(db)
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file %v, %v; want mode 0600", fi, err)
	}
	leaf := c1.TLS.Leaf
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c1.CertPEM)
	for _, host := range []string{"127.0.0.1", "::1", "localhost"} {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: pool, CurrentTime: now}); err != nil {
			t.Errorf("verify for %s: %v", host, err)
		}
	}
	if !leaf.IPAddresses[0].Equal(net.IPv4(127, 0, 0, 1)) {
		t.Errorf("IP SANs %v", leaf.IPAddresses)
	}
	// An expired certificate is replaced.
	c3, err := sim.LoadOrCreateCertificate(db, now.AddDate(11, 0, 0))
	if err != nil || bytes.Equal(c3.CertPEM, c1.CertPEM) {
		t.Errorf("expired certificate kept (%v)", err)
	}
}

func TestInMemoryCertificate(t *testing.T) {
	t.Parallel()
	c, err := sim.LoadOrCreateCertificate(":memory:", time.Now())
	if err != nil || len(c.CertPEM) == 0 {
		t.Fatalf("%v", err)
	}
	if _, err := os.Stat(":memory:.tls-cert.pem"); err == nil {
		t.Error("in-memory certificate written to disk")
	}
}

func TestDemoCredentialsDeriveFromAdminKey(t *testing.T) {
	t.Parallel()
	a, b := "key-a", "key-b"
	all := map[string]bool{}
	for _, s := range []string{
		sim.DemoUserToken(a, 1), sim.DemoUserToken(a, 2), sim.DemoPOSAccessToken(a, 1),
		sim.DemoAPIKey(a, 1), sim.DemoPOSToken(a), sim.DemoUserToken(b, 1),
	} {
		if all[s] || bytes.Contains([]byte(s), []byte(a)) {
			t.Errorf("credential %q repeats or contains the admin key", s)
		}
		all[s] = true
	}
	first, again := sim.DemoUserToken(a, 1), sim.DemoUserToken(a, 1)
	if first != again {
		t.Error("derivation is not deterministic")
	}
}

// Hosts besides the loopback ones (a container's host name, its gateway's
// address) are named in the certificate; a kept certificate that lacks one
// is replaced, one that has them all is kept.
func TestCertificateNamesExtraHosts(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "x.db")
	now := time.Now()
	plain, err := sim.LoadOrCreateCertificate(db, now)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.LoadOrCreateCertificate(db, now, "docker", "10.88.0.1")
	if err != nil || bytes.Equal(c.CertPEM, plain.CertPEM) {
		t.Fatalf("a certificate without the new hosts was kept (%v)", err)
	}
	for _, host := range []string{"docker", "10.88.0.1", "localhost"} {
		if err := c.TLS.Leaf.VerifyHostname(host); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	again, err := sim.LoadOrCreateCertificate(db, now, "10.88.0.1")
	if err != nil || !bytes.Equal(again.CertPEM, c.CertPEM) {
		t.Errorf("a certificate naming every host was replaced (%v)", err)
	}
}
