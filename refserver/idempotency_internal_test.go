package refserver

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// userCount is how many users exist: POST /v1/test/count makes one per
// request that really does its work.
func userCount(t *testing.T, ts *testServer) int {
	t.Helper()
	return int(countRows(t, ts, "users"))
}

func countRows(t *testing.T, ts *testServer, table string) int64 {
	t.Helper()
	var n int64
	err := ts.db.Read(t.Context(), func(tx *store.Tx) error {
		var err error
		n, err = tx.CountRows(table)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestIdempotentReplay(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	f := ts.fixtures(t)
	url := ts.url + "/v1/test/count?accessToken=" + f.Users[0].AccessToken
	key := map[string]string{"Idempotency-Key": "k-1"}
	before := userCount(t, ts)

	first := do(t, "POST", url, key, `{"note":"a"}`)
	if first.status != http.StatusCreated || first.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %v %s", first.status, first.header, first.raw)
	}
	again := do(t, "POST", url, key, `{"note":"a"}`)
	if again.status != http.StatusCreated || string(again.raw) != string(first.raw) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay: %d %q replayed=%q; want 201 %q replayed=true", again.status, again.raw, again.header.Get("Idempotent-Replayed"), first.raw)
	}
	if n := userCount(t, ts); n != before+1 {
		t.Errorf("work done %d times, want 1", n-before)
	}

	// Same key, different body: 409004, nothing done.
	wantError(t, do(t, "POST", url, key, `{"note":"b"}`), client.CodeIdempotencyKeyReused)
	// Same key, same body, different path: also a different request.
	wantError(t, do(t, "POST", url+"&x=1", key, `{"note":"a"}`), client.CodeIdempotencyKeyReused)
	// Same key from another credential: independent.
	other := do(t, "POST", ts.url+"/v1/test/count?accessToken="+f.Users[1].AccessToken, key, `{"note":"a"}`)
	if other.status != http.StatusCreated || other.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("other credential: %d replayed=%q", other.status, other.header.Get("Idempotent-Replayed"))
	}
	// No key: no replay.
	do(t, "POST", url, nil, `{"note":"a"}`)
	do(t, "POST", url, nil, `{"note":"a"}`)
	if n := userCount(t, ts); n != before+4 {
		t.Errorf("users = %d, want %d", n, before+4)
	}
	// Errors are not remembered: a failed request may be retried.
	bad := map[string]string{"Idempotency-Key": "k-bad"}
	wantError(t, do(t, "POST", url, bad, `{}`), client.CodeValidation)
	wantError(t, do(t, "POST", url, bad, `{}`), client.CodeValidation)

	// A token deleted since replays nothing: the request is refused as
	// any other would be.
	uid := f.Users[0].UserID
	if err := ts.db.Write(t.Context(), func(tx *store.Tx) error {
		return tx.DeleteTokensOf(store.TokenKindUser, []int64{uid})
	}); err != nil {
		t.Fatal(err)
	}
	wantError(t, do(t, "POST", url, key, `{"note":"a"}`), client.CodeAccessTokenInvalid)
	if n := userCount(t, ts); n != before+4 {
		t.Errorf("users = %d after a replay with a deleted token, want %d", n, before+4)
	}
	url = ts.url + "/v1/test/count?accessToken=" + f.Users[1].AccessToken

	// After 24 hours the key is forgotten and the request runs again.
	ts.clock.SetOffset(24*time.Hour + time.Second)
	late := do(t, "POST", url, key, `{"note":"a"}`)
	if late.status != http.StatusCreated || late.header.Get("Idempotent-Replayed") != "" || string(late.raw) == string(other.raw) {
		t.Errorf("after 24h: %d replayed=%q %s", late.status, late.header.Get("Idempotent-Replayed"), late.raw)
	}
}

// Records are kept per verified caller: headers the route ignores do not
// make a request new, so it is replayed, not carried out again.
func TestIdempotencyKeyedByVerifiedCaller(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	f := ts.fixtures(t)
	url := ts.url + "/v1/test/count?accessToken=" + f.Users[0].AccessToken
	before := userCount(t, ts)
	var first response
	for i, extra := range []map[string]string{
		{},
		{"Authorization": "Bearer something"},
		{"X-Vendor-API-Key": f.APIKeys[0].APIKey},
		{"X-Sandbox-Admin-Key": "not-the-key"},
	} {
		extra["Idempotency-Key"] = "pay-once"
		resp := do(t, "POST", url, extra, `{"note":"a"}`)
		if i == 0 {
			first = resp
			continue
		}
		if resp.status != first.status || string(resp.raw) != string(first.raw) || resp.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("with %v: %d %s replayed=%q; want the first response replayed", extra, resp.status, resp.raw, resp.header.Get("Idempotent-Replayed"))
		}
	}
	if n := userCount(t, ts); n != before+1 {
		t.Errorf("work done %d times, want 1", n-before)
	}
}

// A server restarted with another admin key cannot open the responses the
// first one stored; a retry is then refused with 409004, never carried out
// a second time.
func TestIdempotentRetryAfterAdminKeyChange(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "shared.db")
	first := newTestServer(t, func(c *Config) { c.DBPath = path })
	url := "/v1/test/count?accessToken="
	key := map[string]string{"Idempotency-Key": "pay-once"}
	resp := do(t, "POST", first.url+url+first.fixtures(t).Users[0].AccessToken, key, `{"note":"a"}`)
	if resp.status != http.StatusCreated {
		t.Fatalf("first run: %d %s", resp.status, resp.raw)
	}
	users := userCount(t, first)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second := newTestServer(t, func(c *Config) { c.DBPath = path; c.AdminKey = "another-admin-key" })
	// The same user, whose demo token the new admin key has changed.
	retry := do(t, "POST", second.url+url+second.fixtures(t).Users[0].AccessToken, key, `{"note":"a"}`)
	wantError(t, retry, client.CodeIdempotencyKeyReused)
	if n := userCount(t, second); n != users {
		t.Errorf("the retry ran again: %d users, want %d", n, users)
	}
	// A new key is a new request.
	resp = do(t, "POST", second.url+url+second.fixtures(t).Users[0].AccessToken, map[string]string{"Idempotency-Key": "next"}, `{"note":"a"}`)
	if resp.status != http.StatusCreated {
		t.Errorf("new key: %d %s", resp.status, resp.raw)
	}
}

func TestIdempotencyKeyValidation(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	url := ts.url + "/v1/test/count?accessToken=" + ts.fixtures(t).Users[0].AccessToken
	for _, k := range []string{"", strings.Repeat("x", 256)} {
		wantError(t, do(t, "POST", url, map[string]string{"Idempotency-Key": k}, `{"note":"a"}`), client.CodeValidation)
	}
	if resp := do(t, "POST", url, map[string]string{"Idempotency-Key": strings.Repeat("x", 255)}, `{"note":"a"}`); resp.status != http.StatusCreated {
		t.Errorf("255-character key: %d %s", resp.status, resp.raw)
	}
}

func TestConcurrentDuplicatesRunOnce(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	url := ts.url + "/v1/test/count?accessToken=" + ts.fixtures(t).Users[0].AccessToken
	before := userCount(t, ts)
	const n = 8
	bodies := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			resp := do(t, "POST", url, map[string]string{"Idempotency-Key": "same"}, `{"note":"a"}`)
			if resp.status != http.StatusCreated {
				t.Errorf("status %d: %s", resp.status, resp.raw)
			}
			bodies[i] = string(resp.raw)
		})
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		if bodies[i] != bodies[0] {
			t.Errorf("response %d = %s, want %s", i, bodies[i], bodies[0])
		}
	}
	if got := userCount(t, ts); got != before+1 {
		t.Errorf("work done %d times, want 1", got-before)
	}
}

func TestIdempotencyRecordsAreSealedAndPurged(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	resp := do(t, "POST", ts.url+"/sandbox/users", map[string]string{"X-Sandbox-Admin-Key": testAdminKey, "Idempotency-Key": "u1"}, "")
	token, _ := resp.body["accessToken"].(string)
	if token == "" {
		t.Fatalf("no token: %s", resp.raw)
	}
	if n := countRows(t, ts, "idempotency_keys"); n != 1 {
		t.Errorf("%d idempotency records, want 1", n)
	}
	for _, p := range []string{ts.db.Path(), ts.db.Path() + "-wal"} {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), token) {
			t.Errorf("%s holds the created token in the clear", p)
		}
	}
	replay := do(t, "POST", ts.url+"/sandbox/users", map[string]string{"X-Sandbox-Admin-Key": testAdminKey, "Idempotency-Key": "u1"}, "")
	if replay.body["accessToken"] != token {
		t.Errorf("replay token %v, want the original", replay.body["accessToken"])
	}

	// A sweep more than a day on deletes the old record, not a new one.
	ts.clock.SetOffset(25 * time.Hour)
	do(t, "POST", ts.url+"/sandbox/users", map[string]string{"X-Sandbox-Admin-Key": testAdminKey, "Idempotency-Key": "u2"}, "")
	if _, err := ts.db.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, ts, "idempotency_keys"); n != 1 {
		t.Errorf("%d records after purge, want 1", n)
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	admin := map[string]string{"X-Sandbox-Admin-Key": testAdminKey}
	url := ts.url + "/v1/test/count?accessToken=" + ts.fixtures(t).Users[0].AccessToken
	before := userCount(t, ts)

	// Plain fault: fails, nothing done.
	resp := do(t, "POST", ts.url+"/sandbox/faults", admin, `{"method":"POST","pathPrefix":"/v1/test/count","status":503,"count":1}`)
	if resp.status != http.StatusCreated {
		t.Fatalf("add fault: %d %s", resp.status, resp.raw)
	}
	wantError(t, do(t, "POST", url, nil, `{"note":"a"}`), client.Code(503001))
	if n := userCount(t, ts); n != before {
		t.Errorf("a failed request did work")
	}
	if resp := do(t, "POST", url, nil, `{"note":"a"}`); resp.status != http.StatusCreated {
		t.Errorf("after the fault is used up: %d", resp.status)
	}

	// After-commit fault: work done, response lost; the retry replays it.
	do(t, "POST", ts.url+"/sandbox/faults", admin, `{"method":"POST","pathPrefix":"/v1/test/","status":500,"count":1,"afterCommit":true}`)
	key := map[string]string{"Idempotency-Key": "ac"}
	wantError(t, do(t, "POST", url, key, `{"note":"a"}`), client.Code(500001))
	if n := userCount(t, ts); n != before+2 {
		t.Errorf("after-commit fault: users %d, want %d", n, before+2)
	}
	replay := do(t, "POST", url, key, `{"note":"a"}`)
	if replay.status != http.StatusCreated || replay.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry after lost response: %d replayed=%q", replay.status, replay.header.Get("Idempotent-Replayed"))
	}
	if n := userCount(t, ts); n != before+2 {
		t.Errorf("retry redid the work")
	}

	// Method mismatch does not match; GET/DELETE of the list; admin paths
	// are never faulted.
	do(t, "POST", ts.url+"/sandbox/faults", admin, `{"method":"GET","pathPrefix":"/","status":502,"count":2}`)
	if resp := do(t, "POST", url, nil, `{"note":"a"}`); resp.status != http.StatusCreated {
		t.Errorf("POST hit a GET fault: %d", resp.status)
	}
	list := do(t, "GET", ts.url+"/sandbox/faults", admin, "")
	faults, _ := list.body["faults"].([]any)
	if len(faults) != 1 {
		t.Fatalf("faults = %s", list.raw)
	}
	if resp := do(t, "DELETE", ts.url+"/sandbox/faults", admin, ""); resp.status != http.StatusNoContent {
		t.Errorf("DELETE: %d", resp.status)
	}
	if resp := do(t, "GET", ts.url+"/v2/test/public", nil, ""); resp.status != http.StatusOK {
		t.Errorf("cleared fault still fires: %d", resp.status)
	}

	// Latency only: the request waits, then proceeds.
	do(t, "POST", ts.url+"/sandbox/faults", admin, `{"pathPrefix":"/v2/test/public","latencyMs":20}`)
	if resp := do(t, "GET", ts.url+"/v2/test/public", nil, ""); resp.status != http.StatusOK {
		t.Errorf("latency-only fault: %d", resp.status)
	}
}

func TestFaultValidation(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	admin := map[string]string{"X-Sandbox-Admin-Key": testAdminKey}
	tests := []struct {
		body  string
		field string
	}{
		{`{}`, "pathPrefix"},
		{`{"pathPrefix":"v1","status":500}`, "pathPrefix"},
		{`{"pathPrefix":"/sandbox/faults","status":500}`, "pathPrefix"},
		{`{"pathPrefix":"/v1","status":200}`, "status"},
		{`{"pathPrefix":"/v1","status":500,"count":0}`, "count"},
		{`{"pathPrefix":"/v1","status":500,"latencyMs":-1}`, "latencyMs"},
		{`{"pathPrefix":"/v1","status":500,"method":"FETCH"}`, "method"},
		{`{"pathPrefix":"/v1"}`, "status"},
	}
	for _, tt := range tests {
		resp := do(t, "POST", ts.url+"/sandbox/faults", admin, tt.body)
		wantError(t, resp, client.CodeValidation)
		if cd, _ := resp.body["contextData"].(map[string]any); cd[tt.field] == nil {
			t.Errorf("%s: contextData %v lacks %s", tt.body, cd, tt.field)
		}
	}
}
