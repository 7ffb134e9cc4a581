package refserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// moodyPOS is an external universal POS whose health a test sets.
type moodyPOS struct {
	mu      sync.Mutex
	mood    string        // "ok", "failed", "503", "hang" or "block"
	called  chan struct{} // receives a value on every health call, if set
	unblock chan struct{}
}

func (p *moodyPOS) set(mood string) {
	p.mu.Lock()
	p.mood = mood
	p.mu.Unlock()
}

func (p *moodyPOS) get() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mood
}

func (p *moodyPOS) Health(ctx context.Context) (universalpos.HealthStatus, error) {
	if p.called != nil {
		select {
		case p.called <- struct{}{}:
		default:
		}
	}
	switch p.get() {
	case "failed":
		return universalpos.HealthStatus{Status: universalpos.HealthFailed, Message: "printer offline"}, nil
	case "block":
		select {
		case <-p.unblock:
		case <-ctx.Done():
		}
	}
	return universalpos.HealthStatus{Status: universalpos.HealthOK}, nil
}

func (p *moodyPOS) Menus(context.Context) ([]universalpos.Menu, error) { return nil, nil }

func (p *moodyPOS) CreateOrder(context.Context, universalpos.Order) (string, error) {
	return "X", nil
}

// serve wraps the contract handler with the moods NewHandler cannot
// produce: a 503 and a POS that never answers.
func (p *moodyPOS) serve(token string) http.Handler {
	h := universalpos.NewHandler(p, universalpos.HandlerOptions{Token: token})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			switch p.get() {
			case "503":
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte(`{"error":"down for maintenance"}`))
				return
			case "hang":
				<-r.Context().Done()
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// registerPOS creates a location wired to posURL through the admin API.
func registerPOS(t *testing.T, ts *testServer, posURL, token string) int64 {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"name": "External", "gateway": "providerB", "posUrl": posURL, "posToken": token})
	req, _ := http.NewRequest(http.MethodPost, ts.url+"/sandbox/locations", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Sandbox-Admin-Key", testAdminKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		LocationID int64 `json:"locationId"`
	}
	if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&out) != nil {
		t.Fatalf("create location: status %d", resp.StatusCode)
	}
	return out.LocationID
}

func posStatus(t *testing.T, ts *testServer, id int64) store.POSStatus {
	t.Helper()
	var st store.POSStatus
	err := ts.db.Read(context.Background(), func(tx *store.Tx) error {
		var err error
		st, err = tx.GetPOSStatus(id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func deref[T any](p *T) (v T) {
	if p != nil {
		v = *p
	}
	return v
}

// waitFor polls cond until it holds or a generous deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestPOSHealthIsRecorded(t *testing.T) {
	t.Parallel()
	const token = "moody-token"
	pos := &moodyPOS{mood: "ok"}
	posSrv := httptest.NewServer(pos.serve(token))
	defer posSrv.Close()
	ts := newTestServer(t, func(c *Config) {
		c.POSHealthInterval = 100 * time.Millisecond
		c.MenuSyncInterval = time.Hour
		// A POS that does not answer is given up on quickly.
		c.HTTPClient = &http.Client{Timeout: 300 * time.Millisecond}
	})
	id := registerPOS(t, ts, posSrv.URL, token)
	posHost := strings.TrimPrefix(posSrv.URL, "http://")

	steps := []struct {
		mood, health, message string
	}{
		{"ok", "OK", ""},
		{"failed", "FAILED", "printer offline"},
		{"ok", "OK", ""},
		{"503", "UNREACHABLE", "GET /health: 503 Service Unavailable: down for maintenance"},
		{"ok", "OK", ""},
		{"hang", "UNREACHABLE", "GET /health: timed out"},
		{"ok", "OK", ""},
	}
	for _, step := range steps {
		pos.set(step.mood)
		var st store.POSStatus
		waitFor(t, "health "+step.health+" for mood "+step.mood, func() bool {
			st = posStatus(t, ts, id)
			return deref(st.Health) == step.health && strings.Contains(deref(st.HealthMessage), step.message)
		})
		if step.message == "" && st.HealthMessage != nil {
			t.Errorf("mood %s: message %q, want none", step.mood, *st.HealthMessage)
		}
		if st.HealthCheckedAt == nil {
			t.Errorf("mood %s: no check time", step.mood)
		}
		if strings.Contains(deref(st.HealthMessage), token) {
			t.Errorf("the health message shows the token")
		}
		if strings.Contains(deref(st.HealthMessage), posHost) {
			t.Errorf("the health message %q shows the POS's address", deref(st.HealthMessage))
		}
	}

	// A POS that is gone altogether is unreachable too, and the message
	// still does not say where it was.
	posSrv.Close()
	var st store.POSStatus
	waitFor(t, "UNREACHABLE after the POS went away", func() bool {
		st = posStatus(t, ts, id)
		return deref(st.Health) == "UNREACHABLE" && strings.Contains(deref(st.HealthMessage), "connection refused")
	})
	if msg := deref(st.HealthMessage); msg != "GET /health: cannot connect: connect: connection refused" {
		t.Errorf("message %q", msg)
	}
}

func TestPublicPOSErrorNamesNoAddress(t *testing.T) {
	t.Parallel()
	urlErr := &url.Error{Op: "Get", URL: "https://pos.example.internal:9443/secret/path/health", Err: errors.New("x509: certificate is valid for a.internal, not pos.example.internal")}
	dnsErr := &url.Error{Op: "Get", URL: "https://pos.example.internal/h", Err: &net.DNSError{Err: "no such host", Name: "pos.example.internal", IsNotFound: true}}
	tests := []struct {
		err  error
		want string
	}{
		{&universalpos.Error{Op: "GET /health", Err: urlErr}, "GET /health: the connection failed"},
		{&universalpos.Error{Op: "GET /health", Err: dnsErr}, "GET /health: the POS's host name did not resolve"},
		{&universalpos.Error{Op: "GET /health", StatusCode: 502, Message: "unexpected status, want 200"}, "GET /health: 502 Bad Gateway: unexpected status, want 200"},
		{&universalpos.Error{Op: "GET /health", Message: "invalid health body", Err: urlErr}, "GET /health: invalid health body"},
		{errors.New("Get \"https://pos.example.internal/h\": EOF"), "the POS could not be reached"},
	}
	for _, tc := range tests {
		got := publicPOSError(tc.err)
		if got != tc.want {
			t.Errorf("publicPOSError(%v) = %q, want %q", tc.err, got, tc.want)
		}
		if strings.Contains(got, "pos.example.internal") || strings.Contains(got, "secret") {
			t.Errorf("%q names the POS's address", got)
		}
	}
}

func TestPOSRegistrationDoesNotWaitForThePOS(t *testing.T) {
	t.Parallel()
	const token = "slow-token"
	pos := &moodyPOS{mood: "block", called: make(chan struct{}, 1), unblock: make(chan struct{})}
	posSrv := httptest.NewServer(pos.serve(token))
	defer posSrv.Close()
	defer close(pos.unblock)
	ts := newTestServer(t, func(c *Config) {
		c.POSHealthInterval = time.Hour
		c.MenuSyncInterval = time.Hour
		c.HTTPClient = &http.Client{Timeout: time.Minute}
	})
	// The admin request returns although the POS's health check is stuck.
	id := registerPOS(t, ts, posSrv.URL, token)
	<-pos.called
	if st := posStatus(t, ts, id); st.Health != nil {
		t.Fatalf("health %q recorded while the check is still running", *st.Health)
	}
}

func TestPOSClientUsesServerSettings(t *testing.T) {
	t.Parallel()
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		_, _ = w.Write([]byte(`{"status":"OK"}`))
	}))
	defer srv.Close()
	s := &Server{cfg: Config{HTTPClient: srv.Client()}}
	if _, err := s.posClient(srv.URL, "tok").Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got.Get("Authorization") != "Bearer tok" || got.Get("User-Agent") != "hospo-refserver" {
		t.Errorf("headers %v", got)
	}
}
