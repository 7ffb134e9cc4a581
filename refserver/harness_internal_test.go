package refserver

import (
	"bytes"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

const testAdminKey = "internal-test-admin-key"

// testRSAKey is made once and handed out as every providerD key of the
// test servers, which need keys but not the cost of making them.
var testRSAKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := sim.NewRSAKey()
	if err != nil {
		panic(err)
	}
	return k
})

// testServer is a Server with the test-only routes of testRoutes, served by
// an httptest.Server.
type testServer struct {
	*Server
	url string
}

func newTestServer(t testing.TB, mod ...func(*Config)) *testServer {
	t.Helper()
	cfg := Config{
		DBPath:          filepath.Join(t.TempDir(), "refserver.db"),
		AdminKey:        testAdminKey,
		routeHook:       testRoutes,
		providerDKeyGen: func() (*rsa.PrivateKey, error) { return testRSAKey(), nil },
		// The first key is made for real (testRSAKey), which on a machine
		// short of CPU can take longer than the default wait.
		ProviderDKeyWait: time.Minute,
	}
	for _, m := range mod {
		m(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return &testServer{Server: srv, url: ts.URL}
}

// testRoutes mounts routes that exercise the core's plumbing the way area
// handlers use it.
func testRoutes(s *Server, r chi.Router) {
	r.With(s.guards.User).Get("/v1/test/user", func(w http.ResponseWriter, r *http.Request) {
		s.api.JSON(w, r, http.StatusOK, map[string]any{
			"userId":      api.RequestFrom(r.Context()).Principal().UserID,
			"requestInfo": s.api.Info(r),
		})
	})
	r.With(s.guards.POS).Get("/v1/test/pos/{locationId}", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(chi.URLParam(r, "locationId"), 10, 64)
		if !api.RequestFrom(r.Context()).Principal().CanSeeLocation(id) {
			s.api.Error(w, r, api.Err(client.CodeForbidden))
			return
		}
		s.api.JSON(w, r, http.StatusOK, map[string]any{"requestInfo": s.api.Info(r)})
	})
	r.With(s.guards.APIKey).Get("/v3/test/location/{locationId}/bills", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(chi.URLParam(r, "locationId"), 10, 64)
		if !api.RequestFrom(r.Context()).Principal().CanSeeLocation(id) {
			s.api.Error(w, r, api.Err(client.CodeForbidden))
			return
		}
		s.api.JSON(w, r, http.StatusOK, map[string]any{"requestInfo": s.api.Info(r)})
	})
	public := r.With(s.guards.Public)
	public.Get("/v2/test/public", func(w http.ResponseWriter, r *http.Request) {
		s.api.JSON(w, r, http.StatusOK, map[string]any{"requestInfo": s.api.Info(r)})
	})
	public.Get("/v1/test/panic", func(w http.ResponseWriter, r *http.Request) {
		panic("internal detail: database password hunter2")
	})
	public.Get("/v1/test/error/{code}", func(w http.ResponseWriter, r *http.Request) {
		c, _ := strconv.Atoi(chi.URLParam(r, "code"))
		s.api.Error(w, r, api.Err(client.Code(c)))
	})
	// POST /v1/test/count creates a user per request that does work, so
	// tests can count how often the work really happened.
	s.writes.Post(r.With(s.guards.User), "/v1/test/count", http.StatusCreated, func(r *http.Request) (api.Write, error) {
		var req struct {
			Note   string       `json:"note"`
			Amount client.Money `json:"amount"`
			Items  []struct {
				Price client.Money `json:"price"`
			} `json:"items"`
		}
		bad, err := api.Decode(r, &req, "note", "items[].price")
		if err != nil {
			return nil, err
		}
		if len(bad) > 0 {
			return nil, api.Invalid(bad)
		}
		return func(tx *store.Tx) (any, error) {
			id, err := tx.InsertUser()
			if err != nil {
				return nil, err
			}
			return map[string]any{"createdUserId": id, "note": req.Note, "amount": req.Amount, "requestInfo": s.api.Info(r)}, nil
		}, nil
	})
}

// response is a decoded HTTP response.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func (r response) code() int {
	c, _ := r.body["code"].(float64)
	return int(c)
}

func (r response) requestInfo() map[string]any {
	ri, _ := r.body["requestInfo"].(map[string]any)
	return ri
}

// do sends a request. body is a string sent as is with Content-Type
// application/json unless headers say otherwise ("" sends no body).
func do(t *testing.T, method, url string, headers map[string]string, body string) response {
	t.Helper()
	resp, err := sendRequest(method, url, headers, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// sendRequest is do for a goroutine of its own: it returns what do fails with.
func sendRequest(method, url string, headers map[string]string, body string) (response, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return response{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		if v == "<none>" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	out := response{status: resp.StatusCode, header: resp.Header, raw: raw}
	if len(bytes.TrimSpace(raw)) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			return response{}, fmt.Errorf("%s %s: decode %q: %w", method, url, raw, err)
		}
	}
	return out, nil
}

// wantError checks that resp is an error with the given code, the error
// body shape and a request id.
func wantError(t *testing.T, resp response, code client.Code) {
	t.Helper()
	if resp.status != code.HTTPStatus() || resp.code() != int(code) {
		t.Fatalf("got status %d code %d, want %d: %s", resp.status, resp.code(), code, resp.raw)
	}
	for _, k := range []string{"error", "code", "message", "contextData", "displayString", "requestInfo"} {
		if _, ok := resp.body[k]; !ok {
			t.Errorf("error body lacks %q: %s", k, resp.raw)
		}
	}
	if len(resp.body) != 6 {
		t.Errorf("error body has %d members, want 6: %s", len(resp.body), resp.raw)
	}
	if resp.body["error"] != true {
		t.Errorf("error = %v, want true", resp.body["error"])
	}
	ri := resp.requestInfo()
	if ri["apiVersion"] != float64(0) || ri["requestId"] != nil {
		t.Errorf("requestInfo = %v, want apiVersion 0 and requestId null", ri)
	}
	if resp.header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id header")
	}
}

func (ts *testServer) fixtures(t *testing.T) sim.Fixtures {
	t.Helper()
	f, err := ts.Fixtures(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func userURL(base, token string) string {
	return base + "/v1/test/user?accessToken=" + token
}
