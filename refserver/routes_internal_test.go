package refserver

import (
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/console"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sim"
)

// publicRoutes are the routes that need no credential, by design. Every
// other route of the router must refuse a request without one.
var publicRoutes = map[string]string{
	"GET /":                             "the sandbox's home page, links only",
	"GET /openapi.json":                 "an API description",
	"GET /universal-pos/openapi.json":   "an API description",
	"GET /v1/location/{locationId}":     "a location's public details",
	"GET /v2/location/{id}/menu":        "a menu, for kiosks",
	"GET /sandbox/ca.pem":               "a certificate, no secret",
	"GET /sandbox/health":               "for a container's health check: says only that the database answers",
	"GET /sandbox/providerB/public-key": "a payment provider's public key",
	"POST /sandbox/providerD/tokenise":  "a payment provider's tokenisation, called by apps",
}

// notIdempotentPOSTs are the POST routes that are not registered through
// api.Writes, each with why.
var notIdempotentPOSTs = map[string]string{
	"POST /sandbox/providerD/tokenise": "the provider's side; a stored request hash of card data could be brute-forced",
}

// notReadGETs are the GET routes that are not registered through api.Reads,
// each with why.
var notReadGETs = map[string]string{
	"GET /":                             "a static page",
	"GET /openapi.json":                 "a static document",
	"GET /universal-pos/openapi.json":   "a static document",
	"GET /sandbox/ca.pem":               "a static document",
	"GET /sandbox/providerB/public-key": "makes the provider's key on first use",
	"GET /v2/payment/providerD/keys":    "takes a key from the pool and stores it: a write",
	"GET /v1/events":                    "reads again after waiting for a new event",
	"GET /sandbox/requests":             "the request journal, in memory",
}

// TestRouteTable walks the router's route table: every POST runs through
// api.Writes (idempotent replay and the write transaction), every GET
// through api.Reads (one read transaction), and every route
// but the public ones refuses a request without its credential; the admin
// API refuses every credential but the admin key.
func TestRouteTable(t *testing.T) {
	t.Parallel()
	// A second passes at every look at the clock, so that the wrong admin
	// keys this test sends (one per admin route) never run out the
	// allowance of wrong keys that guessing is limited by.
	start := time.Now()
	var ticks atomic.Int64
	ts := newTestServer(t, func(c *Config) {
		c.routeHook = nil
		c.Now = func() time.Time { return start.Add(time.Duration(ticks.Add(1)) * time.Second) }
	})
	f := ts.fixtures(t)
	others := map[string]map[string]string{
		"no credential": nil,
		"user token":    {"accessToken": f.Users[0].AccessToken},
		"POS token":     {"accessToken": f.Locations[0].POSAccessToken},
		"API key":       {api.HeaderAPIKey: f.APIKeys[0].APIKey},
		"wrong admin":   {api.HeaderAdminKey: testAdminKey + "x"},
	}
	routes, ok := ts.Handler().(chi.Routes)
	if !ok {
		t.Fatalf("the handler %T is not a chi.Routes", ts.Handler())
	}
	param := regexp.MustCompile(`\{[^}]*\}`)
	seen := map[string]bool{}
	err := chi.Walk(routes, func(method, route string, h http.Handler, _ ...func(http.Handler) http.Handler) error {
		key := method + " " + route
		seen[key] = true
		switch {
		case strings.HasPrefix(route, sim.DemoPOSPath+"/"):
			return nil // the demo universal POS: another service's API, with its own bearer token
		case strings.HasPrefix(route, console.Prefix+"/"), route == console.Prefix:
			return nil // the console: its own sign-in, not the API's
		}
		if method == http.MethodPost && !api.IsWrite(h) && notIdempotentPOSTs[key] == "" {
			t.Errorf("%s does not run through api.Writes: register it with s.writes.Post", key)
		}
		if method == http.MethodGet && !api.IsRead(h) && notReadGETs[key] == "" {
			t.Errorf("%s does not run through api.Reads: register it with s.reads.Get", key)
		}
		if publicRoutes[key] != "" {
			return nil
		}
		path := param.ReplaceAllString(route, "1")
		admin := strings.HasPrefix(route, "/sandbox/")
		for name, cred := range others {
			if !admin && name != "no credential" {
				continue
			}
			resp := do(t, method, ts.url+withCredential(path, cred), headersOf(cred), "")
			code := client.Code(resp.code())
			switch {
			case admin && code != client.CodeAdminKeyInvalid:
				t.Errorf("%s with %s: status %d code %d, want 401005", key, name, resp.status, code)
			case !admin && (resp.status != http.StatusUnauthorized && resp.status != http.StatusForbidden || code.HTTPStatus() != resp.status):
				t.Errorf("%s with %s: status %d code %d, want a 401 or 403 of the catalogue", key, name, resp.status, code)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range publicRoutes {
		if !seen[key] {
			t.Errorf("public route %s is not in the route table", key)
		}
	}
	for key := range notIdempotentPOSTs {
		if !seen[key] {
			t.Errorf("POST route %s is not in the route table", key)
		}
	}
}

// withCredential adds an accessToken of cred to path.
func withCredential(path string, cred map[string]string) string {
	if tok := cred["accessToken"]; tok != "" {
		return path + "?accessToken=" + tok
	}
	return path
}

// headersOf returns the headers of cred.
func headersOf(cred map[string]string) map[string]string {
	h := map[string]string{}
	for k, v := range cred {
		if k != "accessToken" {
			h[k] = v
		}
	}
	return h
}

// TestNoRouteAndWrongMethod checks what the router answers outside its
// route table: a path it does not know is 404001 "No such route." naming
// the method and path (never the query), and a path it knows asked with
// another method is 405001 with Allow listing the methods the path takes.
func TestNoRouteAndWrongMethod(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	long := "/v1/" + strings.Repeat("x", 400)
	tests := []struct {
		name, method, path string
		headers            map[string]string
		body               string
		wantRoute          string // for a 404001
		wantAllow          string // for a 405001
	}{
		{name: "unknown path", method: "GET", path: "/v9/x?accessToken=secret-token", wantRoute: "GET /v9/x"},
		{name: "prefix before a known path", method: "GET", path: "/api/v1/user/me", wantRoute: "GET /api/v1/user/me"},
		{name: "unknown POST path", method: "POST", path: "/v9/nothing", body: `{}`, wantRoute: "POST /v9/nothing"},
		{name: "escapes kept", method: "GET", path: "/v9/a%20b/%2F", wantRoute: "GET /v9/a%20b/%2F"},
		{name: "long path cut", method: "GET", path: long, wantRoute: ("GET " + long)[:256] + "..."},
		{name: "unknown method, unknown path", method: "BREW", path: "/v9/pot", wantRoute: "BREW /v9/pot"},
		{name: "unknown fulfillment type", method: "POST", path: "/ordering/v3/order/o-1/fulfillment-type/by-drone?accessToken=" + ts.fixtures(t).Users[0].AccessToken,
			body: `{}`, wantRoute: "POST /ordering/v3/order/o-1/fulfillment-type/by-drone"},
		{name: "DELETE on a GET route", method: "DELETE", path: "/v1/user/me", wantAllow: "GET"},
		{name: "HEAD on a GET route", method: "HEAD", path: "/v1/location/1", wantAllow: "GET"},
		{name: "GET on a POST route", method: "GET", path: "/payments/v1/payment", wantAllow: "POST"},
		{name: "two methods", method: "PUT", path: "/sandbox/clock", wantAllow: "GET, POST"},
		{name: "three methods", method: "PATCH", path: "/sandbox/faults", wantAllow: "GET, POST, DELETE"},
		{name: "unknown method, known path", method: "BREW", path: "/v1/user/me", wantAllow: "GET"},
		{name: "POST with a body", method: "POST", path: "/v1/user/me", body: `{}`, wantAllow: "GET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := do(t, tt.method, ts.url+tt.path, tt.headers, tt.body)
			if tt.wantAllow != "" {
				if tt.method != "HEAD" {
					wantError(t, resp, client.CodeMethodNotAllowed)
					if resp.body["message"] != "Method not allowed." || resp.body["contextData"] != nil {
						t.Errorf("message %v, contextData %v", resp.body["message"], resp.body["contextData"])
					}
				} else if resp.status != http.StatusMethodNotAllowed {
					t.Errorf("status %d, want 405", resp.status)
				}
				if got := resp.header.Values("Allow"); len(got) != 1 || got[0] != tt.wantAllow {
					t.Errorf("Allow = %q, want %q", got, tt.wantAllow)
				}
				return
			}
			wantError(t, resp, client.CodeNotFound)
			if resp.body["message"] != "No such route." {
				t.Errorf("message %v, want No such route.", resp.body["message"])
			}
			if want := map[string]any{"route": tt.wantRoute}; !equalJSON(resp.body["contextData"], want) {
				t.Errorf("contextData = %v, want %v", resp.body["contextData"], want)
			}
			if strings.Contains(string(resp.raw), "secret-token") || strings.Contains(string(resp.raw), "accessToken=") {
				t.Errorf("the answer echoes the query: %s", resp.raw)
			}
			if resp.header.Get("Allow") != "" {
				t.Errorf("Allow %q on a 404", resp.header.Get("Allow"))
			}
		})
	}
}
