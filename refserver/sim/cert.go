package sim

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Certificate is the sandbox's self-signed TLS certificate and its PEM
// form. The certificate is its own CA: a client trusts the HTTPS listener by
// adding CertPEM to its root pool (it is served at GET /sandbox/ca.pem).
type Certificate struct {
	TLS     tls.Certificate
	CertPEM []byte
}

// CertPaths returns where the certificate and key for the database at
// dbPath are kept: beside it.
func CertPaths(dbPath string) (certFile, keyFile string) {
	return dbPath + ".tls-cert.pem", dbPath + ".tls-key.pem"
}

// LoadOrCreateCertificate loads the certificate kept beside dbPath, making
// and saving a new one on first use, and again when the one kept does not
// name every one of hosts (host names or IP addresses besides the loopback
// ones, by which clients reach the HTTPS listener: a container's host
// name, say). With dbPath ":memory:" the certificate lives in memory only.
// now is the real time (certificates are checked against real clocks,
// never the virtual one).
func LoadOrCreateCertificate(dbPath string, now time.Time, hosts ...string) (Certificate, error) {
	if dbPath == ":memory:" {
		certPEM, keyPEM, err := NewCertificatePEM(now, hosts...)
		if err != nil {
			return Certificate{}, err
		}
		return parseCert(certPEM, keyPEM)
	}
	certFile, keyFile := CertPaths(dbPath)
	certPEM, errC := os.ReadFile(certFile)
	keyPEM, errK := os.ReadFile(keyFile)
	if errC == nil && errK == nil {
		c, err := parseCert(certPEM, keyPEM)
		if err == nil && now.Before(c.TLS.Leaf.NotAfter) && names(c, hosts) {
			return c, nil
		}
		// Unreadable, expired or short of a name: make a new one below.
	} else if (errC != nil && !errors.Is(errC, fs.ErrNotExist)) || (errK != nil && !errors.Is(errK, fs.ErrNotExist)) {
		return Certificate{}, fmt.Errorf("sandbox: read certificate: %w", errors.Join(errC, errK))
	}
	certPEM, keyPEM, err := NewCertificatePEM(now, hosts...)
	if err != nil {
		return Certificate{}, err
	}
	// Both files are private like the database beside them (the
	// certificate is public, but only the server reads the file: clients
	// fetch it from GET /sandbox/ca.pem).
	if err := writePrivate(keyFile, keyPEM); err != nil {
		return Certificate{}, fmt.Errorf("sandbox: save certificate key: %w", err)
	}
	if err := writePrivate(certFile, certPEM); err != nil {
		return Certificate{}, fmt.Errorf("sandbox: save certificate: %w", err)
	}
	return parseCert(certPEM, keyPEM)
}

// names reports whether c is valid for every one of hosts.
func names(c Certificate, hosts []string) bool {
	for _, h := range hosts {
		if c.TLS.Leaf.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

// NewCertificatePEM makes a self-signed ECDSA P-256 certificate for
// 127.0.0.1, ::1, localhost and hosts (names or IP addresses), valid for
// ten years from an hour ago.
func NewCertificatePEM(now time.Time, hosts ...string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: certificate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: certificate serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"hospo-go sandbox"}, CommonName: "hospo-go sandbox"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: create certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: marshal certificate key: %w", err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	return certPEM, keyPEM, nil
}

func parseCert(certPEM, keyPEM []byte) (Certificate, error) {
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return Certificate{}, fmt.Errorf("sandbox: certificate: %w", err)
	}
	if c.Leaf == nil {
		if c.Leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
			return Certificate{}, fmt.Errorf("sandbox: certificate: %w", err)
		}
	}
	return Certificate{TLS: c, CertPEM: certPEM}, nil
}

// writePrivate writes b to path, which is store.PrivateMode afterwards
// even if it existed with another mode.
func writePrivate(path string, b []byte) error {
	if err := os.WriteFile(path, b, store.PrivateMode); err != nil {
		return err
	}
	return store.Chmod(path)
}
