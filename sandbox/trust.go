package sandbox

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

// ErrNoCertificate is returned when GET /sandbox/ca.pem answers with
// something that holds no PEM certificate, which happens when the base URL
// is not a sandbox's.
var ErrNoCertificate = errors.New("sandbox: GET /sandbox/ca.pem answered no PEM certificate; is the base URL a sandbox?")

// maxCAPEM bounds the certificate read: the sandbox's certificate is
// small, and a base URL pointing elsewhere must not make the call read
// without end.
const maxCAPEM = 64 << 10

// CACertificate returns the PEM certificate of the sandbox's HTTPS
// listener, where providerD's tokenisation endpoint lives. It is
// self-signed, made on the sandbox's first start and kept beside its
// database. It needs no credential. Most programs want ProviderTrust.
//
// GET /sandbox/ca.pem
func (s *Service) CACertificate(ctx context.Context, opts ...client.Option) ([]byte, error) {
	buf := &limitedBuffer{max: maxCAPEM}
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/sandbox/ca.pem",
		Auth:   client.AuthNone,
	}, buf, opts...)
	if err != nil {
		return nil, err
	}
	b := buf.buf.Bytes()
	if blk, _ := pem.Decode(b); blk == nil || blk.Type != "CERTIFICATE" {
		return nil, ErrNoCertificate
	}
	return b, nil
}

// CertPool returns a pool holding only the sandbox's certificate
// (CACertificate), for an *http.Client or a *tls.Config of your own.
func (s *Service) CertPool(ctx context.Context, opts ...client.Option) (*x509.CertPool, error) {
	b, err := s.CACertificate(ctx, opts...)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, ErrNoCertificate
	}
	return pool, nil
}

// ProviderTrust returns the wallet option that makes the wallet's calls to
// the payment providers trust exactly the sandbox's certificate, so that
// providerD tokenisation reaches the sandbox's HTTPS listener with
// verification on:
//
//	trust, err := sb.ProviderTrust(ctx)
//	...
//	w := wallet.NewService(c, trust)
//
// Without it, tokenisation fails with "x509: certificate signed by unknown
// authority".
func (s *Service) ProviderTrust(ctx context.Context, opts ...client.Option) (wallet.ServiceOption, error) {
	pool, err := s.CertPool(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return wallet.WithProviderRootCAs(pool), nil
}

// errCertTooLarge stops reading an answer that is too large to be the
// sandbox's certificate.
var errCertTooLarge = errors.New("sandbox: GET /sandbox/ca.pem answered more than 64 KiB; is the base URL a sandbox?")

// limitedBuffer is a buffer that refuses to grow beyond max. It holds its
// bytes.Buffer in a field rather than embedding it, since an embedded
// ReadFrom would let io.Copy go around Write.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.buf.Len()+len(p) > b.max {
		return 0, errCertTooLarge
	}
	return b.buf.Write(p)
}
