package refserver

import (
	"net/http"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

// tokenisationURI is the providerD tokenisationUri the server hands a user.
func tokenisationURI(t *testing.T, ts *testServer) string {
	t.Helper()
	resp := do(t, "GET", ts.url+"/v2/payment/providerD/keys?accessToken="+ts.fixtures(t).Users[0].AccessToken, nil, "")
	if resp.status != http.StatusOK {
		t.Fatalf("GET key: %d %s", resp.status, resp.raw)
	}
	uri, _ := resp.body["tokenisationUri"].(string)
	return uri
}

// The URLs the server hands out are its public ones: those it was
// configured with, then those PUT /sandbox/public-urls sets once a
// container's ports are mapped. The admin API answers under their hosts,
// and the certificate names them.
func TestPublicURLs(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(c *Config) {
		c.TLSURL = "https://127.0.0.1:8443"
		c.PublicTLSURL = "https://sandbox.example:9443/"
		c.AdminHosts = []string{"docker"}
	})
	if got, want := tokenisationURI(t, ts), "https://sandbox.example:9443/sandbox/providerD/tokenise"; got != want {
		t.Errorf("tokenisationUri = %q, want %q", got, want)
	}
	for _, host := range []string{"sandbox.example", "docker"} {
		if err := ts.cert.TLS.Leaf.VerifyHostname(host); err != nil {
			t.Errorf("certificate: %v", err)
		}
	}
	admin := map[string]string{api.HeaderAdminKey: testAdminKey}

	resp := do(t, "PUT", ts.url+"/sandbox/public-urls", admin, `{"url":"http://docker:32768","tlsUrl":"https://docker:32769"}`)
	if resp.status != http.StatusOK || resp.body["url"] != "http://docker:32768" || resp.body["tlsUrl"] != "https://docker:32769" {
		t.Fatalf("PUT: %d %s", resp.status, resp.raw)
	}
	if got, want := tokenisationURI(t, ts), "https://docker:32769/sandbox/providerD/tokenise"; got != want {
		t.Errorf("after PUT, tokenisationUri = %q, want %q", got, want)
	}
	resp = do(t, "PUT", ts.url+"/sandbox/public-urls", admin, `{"tlsUrl":"https://localhost:40000"}`)
	if resp.status != http.StatusOK || resp.body["url"] != "http://docker:32768" || resp.body["tlsUrl"] != "https://localhost:40000" {
		t.Errorf("PUT of one field: %d %s", resp.status, resp.raw)
	}

	// Invalid URLs are refused, each field with its reason, and change
	// nothing; so is a host the admin API does not answer under (nor the
	// certificate name).
	for body, fields := range map[string][]string{
		`{"url":"https://docker:1","tlsUrl":"http://docker:2"}`: {"url", "tlsUrl"},
		`{"url":"docker:1"}`:                                             {"url"},
		`{"tlsUrl":"https://docker:2/prefix"}`:                           {"tlsUrl"},
		`{"url":"http://evil.example:1","tlsUrl":"https://localhost:3"}`: {"url"},
	} {
		resp := do(t, "PUT", ts.url+"/sandbox/public-urls", admin, body)
		wantError(t, resp, client.CodeValidation)
		cd, _ := resp.body["contextData"].(map[string]any)
		if len(cd) != len(fields) {
			t.Errorf("%s: contextData %v, want %v", body, cd, fields)
		}
		for _, f := range fields {
			if cd[f] == nil {
				t.Errorf("%s: contextData %v lacks %s", body, cd, f)
			}
		}
	}
	resp = do(t, "GET", ts.url+"/sandbox/public-urls", admin, "")
	if resp.body["url"] != "http://docker:32768" || resp.body["tlsUrl"] != "https://localhost:40000" {
		t.Errorf("after refused PUTs: %s", resp.raw)
	}
}

// Without public URLs the server hands out its own.
func TestPublicURLsDefault(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(c *Config) { c.BaseURL, c.TLSURL = "http://127.0.0.1:1", "https://127.0.0.1:2" })
	if got := ts.PublicURLs(); got != (PublicURLs{URL: "http://127.0.0.1:1", TLSURL: "https://127.0.0.1:2"}) {
		t.Errorf("PublicURLs() = %+v", got)
	}
	if got, want := tokenisationURI(t, ts), "https://127.0.0.1:2/sandbox/providerD/tokenise"; got != want {
		t.Errorf("tokenisationUri = %q, want %q", got, want)
	}
}

// Public URLs given in the configuration are checked like those set later,
// each error naming its field; both are named when both are wrong.
func TestNewChecksPublicURLs(t *testing.T) {
	t.Parallel()
	const (
		notHTTP  = "refserver: Config.PublicURL must be an absolute http URL with a host, such as http://localhost:32768"
		notHTTPS = "refserver: Config.PublicTLSURL must be an absolute https URL with a host, such as https://localhost:32768"
		withPath = "refserver: Config.PublicURL must be a scheme, a host and a port, without a path, query or user"
	)
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{PublicURL: "https://localhost:1"}, notHTTP},
		{Config{PublicTLSURL: "localhost:2"}, notHTTPS},
		{Config{PublicURL: "http://localhost:1/base"}, withPath},
		{Config{PublicURL: "http://localhost:1/base", PublicTLSURL: "http://localhost:2"}, withPath + "\n" + notHTTPS},
	} {
		cfg := tt.cfg
		cfg.DBPath, cfg.AdminKey = ":memory:", testAdminKey
		srv, err := New(cfg)
		if err == nil {
			srv.Close()
			t.Errorf("New with %q and %q succeeded", cfg.PublicURL, cfg.PublicTLSURL)
		} else if err.Error() != tt.want {
			t.Errorf("New with %q and %q: %q, want %q", cfg.PublicURL, cfg.PublicTLSURL, err, tt.want)
		}
	}
}

// GET /sandbox/health answers without a credential once the database
// answers.
func TestHealth(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	if resp := do(t, "GET", ts.url+"/sandbox/health", nil, ""); resp.status != http.StatusOK || resp.body["status"] != "ok" {
		t.Errorf("health: %d %s", resp.status, resp.raw)
	}
}
