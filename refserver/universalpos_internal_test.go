package refserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
				if r.Header.Get(hangHeader) != "" {
					<-r.Context().Done()
					return
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// hangHeader marks a call sent while the POS hangs (see cutShort): only
// those calls hang, so none waits for a timeout it was not given.
const hangHeader = "X-Test-Hang"

// cutShort is the transport of a test server's POS calls: a call sent
// while pos hangs gets a short timeout (the client's own, which net/http
// reports as a timeout), and every other call all the time a busy machine
// needs, so that a slow answer is never taken for a hang.
type cutShort struct {
	pos   *moodyPOS
	short *http.Client
}

func (c cutShort) RoundTrip(r *http.Request) (*http.Response, error) {
	if c.pos.get() != "hang" {
		return http.DefaultTransport.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set(hangHeader, "1")
	return c.short.Do(r)
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
		c.HTTPClient = &http.Client{Transport: cutShort{pos: pos, short: &http.Client{Timeout: 300 * time.Millisecond}}}
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
