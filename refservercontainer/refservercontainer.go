// Package refservercontainer runs the hospo reference server (the sandbox)
// in a container for Go tests, with testcontainers-go: no cgo, no C
// compiler and no server build in the test's module.
//
//	c, err := refservercontainer.Run(ctx, "ghcr.io/hospo-dev/refserver:v1.2.3")
//	if err != nil { ... }
//	defer testcontainers.TerminateContainer(c)
//	sb, err := c.Sandbox() // the admin API: fixtures, clock, faults, ...
//	fx, err := sb.Fixtures(ctx)
//	pos, err := client.New(client.WithBaseURL(c.URL), client.WithAccessToken(fx.Locations[0].POSAccessToken))
//
// Run waits until the sandbox answers, then tells it the URLs its mapped
// ports have on the host, so that every URL it hands out works from the
// test (providerD's tokenisationUri above all), and reads its CA
// certificate for the HTTPS port.
//
// It is a module of its own (github.com/hospo-dev/hospo-go/refservercontainer)
// so that the SDK's users never inherit Docker's dependencies.
package refservercontainer

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// The ports the image listens on, and the variables it is configured by.
const (
	HTTPPort     = "8080/tcp"
	HTTPSPort    = "8443/tcp"
	envAdminKey  = "REFSERVER_ADMIN_KEY"
	envAdminHost = "REFSERVER_ADMIN_HOST"
)

// Container is a running sandbox.
type Container struct {
	*testcontainers.DockerContainer
	// URL and TLSURL are the http and https base URLs of the sandbox from
	// this process, through the mapped ports.
	URL    string
	TLSURL string
	// AdminKey is the sandbox admin key (header X-Sandbox-Admin-Key).
	AdminKey string
	// CACertPEM is the certificate of the HTTPS port, to trust.
	CACertPEM []byte
}

// WithAdminKey sets the sandbox admin key; without it Run makes a random
// one. The demo fixture's credentials derive from the key, so a fixed key
// gives the same demo tokens in every run.
func WithAdminKey(key string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{envAdminKey: key})
}

// WithFlag sets one of the server's flags (name without its dash, such as
// "rate-limit") through its REFSERVER_ variable.
func WithFlag(name, value string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{
		"REFSERVER_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")): value,
	})
}

// startupTimeout bounds how long Run waits for the sandbox to answer; it
// answers within a second of starting, and an image pull comes before.
const startupTimeout = 2 * time.Minute

// Run starts the sandbox image (the refserver image of a release, or one
// built from the repository's Containerfile) and returns it once it
// answers. opts customise the request after Run's own settings, so they
// win: testcontainers.WithEnv, WithFlag, WithAdminKey, a wait strategy of
// one's own, and so on. On an error after the container was created, the
// container is returned too, to be terminated.
func Run(ctx context.Context, image string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	key, err := randomKey()
	if err != nil {
		return nil, err
	}
	// The admin API and the console answer only the host names they are
	// told of (DNS rebinding); the host this process reaches the daemon's
	// ports by is one, and the TLS certificate must name it.
	host, err := daemonHost(ctx)
	if err != nil {
		return nil, err
	}
	env := map[string]string{envAdminKey: key}
	if !isLoopback(host) {
		env[envAdminHost] = host
	}
	all := []testcontainers.ContainerCustomizer{
		testcontainers.WithExposedPorts(HTTPPort, HTTPSPort),
		testcontainers.WithEnv(env),
		testcontainers.WithWaitStrategyAndDeadline(startupTimeout,
			wait.ForHTTP("/sandbox/health").WithPort(HTTPPort).WithStatusCodeMatcher(func(s int) bool { return s == http.StatusOK })),
	}
	all = append(all, opts...)
	// Last: read back the key the options left, and keep the daemon's host
	// among the admin hosts whatever they set.
	all = append(all, testcontainers.CustomizeRequestOption(func(req *testcontainers.GenericContainerRequest) error {
		key = req.Env[envAdminKey]
		if h := env[envAdminHost]; h != "" && req.Env[envAdminHost] != h {
			req.Env[envAdminHost] = strings.TrimPrefix(req.Env[envAdminHost]+","+h, ",")
		}
		return nil
	}))

	ctr, err := testcontainers.Run(ctx, image, all...)
	var c *Container
	if ctr != nil {
		c = &Container{DockerContainer: ctr, AdminKey: key}
	}
	if err != nil {
		return c, fmt.Errorf("refservercontainer: run %s: %w", image, err)
	}
	if c.URL, err = ctr.PortEndpoint(ctx, HTTPPort, "http"); err != nil {
		return c, fmt.Errorf("refservercontainer: %w", err)
	}
	if c.TLSURL, err = ctr.PortEndpoint(ctx, HTTPSPort, "https"); err != nil {
		return c, fmt.Errorf("refservercontainer: %w", err)
	}
	sb, err := c.Sandbox()
	if err != nil {
		return c, err
	}
	if err := setPublicURLs(ctx, c); err != nil {
		return c, err
	}
	if c.CACertPEM, err = sb.CACertificate(ctx); err != nil {
		return c, fmt.Errorf("refservercontainer: read the CA certificate: %w", err)
	}
	return c, nil
}

// Client returns an SDK client of the sandbox's http base URL; pass
// client.WithAccessToken, client.WithAPIKey or client.WithAdminKey for a
// credential.
func (c *Container) Client(opts ...client.Option) (*client.Client, error) {
	return client.New(append([]client.Option{client.WithBaseURL(c.URL)}, opts...)...)
}

// Sandbox returns the client of the sandbox admin API, with the admin key.
func (c *Container) Sandbox(opts ...client.Option) (*sandbox.Service, error) {
	admin, err := c.Client(append([]client.Option{client.WithAdminKey(c.AdminKey)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("refservercontainer: %w", err)
	}
	return sandbox.NewService(admin), nil
}

// CertPool holds the certificate of the HTTPS port.
func (c *Container) CertPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.CACertPEM)
	return pool
}

// HTTPSClient is an HTTP client that trusts the HTTPS port, with
// verification on.
func (c *Container) HTTPSClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: c.CertPool(), MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

// setPublicURLs tells the sandbox the URLs its ports have here, which it
// hands out from then on (PUT /sandbox/public-urls).
func setPublicURLs(ctx context.Context, c *Container) error {
	sb, err := c.Sandbox()
	if err != nil {
		return err
	}
	if _, err := sb.SetPublicURLs(ctx, sandbox.PublicURLs{URL: c.URL, TLSURL: c.TLSURL}); err != nil {
		return fmt.Errorf("refservercontainer: set the sandbox's public URLs: %w", err)
	}
	return nil
}

// daemonHost is the host name by which this process reaches the ports the
// container runtime maps (TESTCONTAINERS_HOST_OVERRIDE, or what
// testcontainers-go works out from DOCKER_HOST).
func daemonHost(ctx context.Context) (string, error) {
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return "", fmt.Errorf("refservercontainer: container runtime: %w", err)
	}
	defer p.Close()
	h, err := p.DaemonHost(ctx)
	if err != nil {
		return "", fmt.Errorf("refservercontainer: container runtime host: %w", err)
	}
	return h, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func randomKey() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", errors.New("refservercontainer: no randomness for the admin key")
	}
	return "tc-" + hex.EncodeToString(b), nil
}
