package refserver_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/refserver/sim"
)

func TestFixturesAreDerivedFromAdminKey(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	got := env.Fixtures(t)
	k := env.AdminKey
	want := sim.Fixtures{
		Users: []sim.FixtureUser{
			{UserID: 1, AccessToken: sim.DemoUserToken(k, 1)},
			{UserID: 2, AccessToken: sim.DemoUserToken(k, 2)},
		},
		Locations: []sim.FixtureLocation{
			{LocationID: 1, Name: "Harbour Grill", Gateway: "providerB", POSAccessToken: sim.DemoPOSAccessToken(k, 1)},
			{LocationID: 2, Name: "Garden Cafe", Gateway: "providerD", POSAccessToken: sim.DemoPOSAccessToken(k, 2)},
		},
		APIKeys: []sim.FixtureAPIKey{
			{APIKey: sim.DemoAPIKey(k, 1), LocationIDs: []int64{1}},
			{APIKey: sim.DemoAPIKey(k, 2), LocationIDs: []int64{1, 2}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fixtures (-want +got):\n%s", diff)
	}
}

func TestAdminCreatesCredentials(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	uid, tok := env.NewUser(t)
	if uid != 3 || tok == "" {
		t.Errorf("NewUser = %d, %q; want id 3 and a token", uid, tok)
	}
	lid, pos := env.NewLocation(t, "Test Diner", "providerA")
	if lid != 3 || pos == "" {
		t.Errorf("NewLocation = %d, %q; want id 3 and a token", lid, pos)
	}
	if key := env.NewAPIKey(t, 1, lid); key == "" {
		t.Error("NewAPIKey returned no key")
	}
	env.AdvanceClock(t, time.Hour)
	var clock struct{ ServerTime, OffsetSeconds int64 }
	if st := env.AdminDo(t, http.MethodGet, "/sandbox/clock", nil, &clock); st != http.StatusOK || clock.OffsetSeconds != 3600 {
		t.Errorf("GET /sandbox/clock = %d %+v, want 200 with offset 3600", st, clock)
	}
}

func TestAdminValidation(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	tests := []struct {
		path string
		body any
		want map[string]string // contextData keys that must be named
	}{
		{"/sandbox/locations", map[string]any{}, map[string]string{"name": "required", "gateway": "required"}},
		{"/sandbox/locations", map[string]any{"name": " ", "gateway": "providerZ"}, map[string]string{"name": "", "gateway": ""}},
		{"/sandbox/locations", map[string]any{"name": "a", "gateway": "providerA", "posUrl": "ftp://x"}, map[string]string{"posUrl": ""}},
		{"/sandbox/locations", map[string]any{"name": "a", "gateway": "providerA", "posToken": "t"}, map[string]string{"posToken": ""}},
		{"/sandbox/api-keys", map[string]any{}, map[string]string{"locationIds": "required"}},
		{"/sandbox/api-keys", map[string]any{"locationIds": []int64{}}, map[string]string{"locationIds": ""}},
		{"/sandbox/api-keys", map[string]any{"locationIds": []int64{1, 99}}, map[string]string{"locationIds[1]": ""}},
		{"/sandbox/clock", map[string]any{}, map[string]string{"advanceSeconds": "required"}},
		{"/sandbox/clock", map[string]any{"advanceSeconds": -5}, map[string]string{"advanceSeconds": ""}},
	}
	for _, tt := range tests {
		var body struct {
			Code        int               `json:"code"`
			ContextData map[string]string `json:"contextData"`
		}
		st := env.AdminDo(t, http.MethodPost, tt.path, tt.body, &body)
		if st != http.StatusBadRequest || body.Code != 400002 {
			t.Errorf("POST %s %v: %d %d, want 400 400002", tt.path, tt.body, st, body.Code)
			continue
		}
		for k, v := range tt.want {
			if got, ok := body.ContextData[k]; !ok || (v != "" && got != v) {
				t.Errorf("POST %s %v: contextData %v, want %s: %q", tt.path, tt.body, body.ContextData, k, v)
			}
		}
		if len(body.ContextData) != len(tt.want) {
			t.Errorf("POST %s %v: contextData %v names more than %v", tt.path, tt.body, body.ContextData, tt.want)
		}
	}
	var body struct{ Code int }
	if st := env.AdminDo(t, http.MethodPost, "/sandbox/locations", []byte(`{"name":`), &body); st != 400 || body.Code != 400001 {
		t.Errorf("malformed body: %d %d", st, body.Code)
	}
	if st := env.AdminDo(t, http.MethodPost, "/sandbox/clock", []byte(`{"advanceSeconds":"60"}`), &body); st != 400 || body.Code != 400001 {
		t.Errorf("string for integer: %d %d", st, body.Code)
	}
}

func TestAdminKeyRequired(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	for _, ep := range []struct{ method, path string }{
		{"GET", "/sandbox/fixtures"}, {"POST", "/sandbox/users"}, {"POST", "/sandbox/locations"},
		{"POST", "/sandbox/api-keys"}, {"GET", "/sandbox/clock"}, {"POST", "/sandbox/clock"},
		{"POST", "/sandbox/reset"}, {"GET", "/sandbox/faults"}, {"POST", "/sandbox/faults"}, {"DELETE", "/sandbox/faults"},
	} {
		for _, key := range []string{"", "wrong"} {
			req, _ := http.NewRequest(ep.method, env.URL+ep.path, nil)
			if key != "" {
				req.Header.Set("X-Sandbox-Admin-Key", key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s %s with key %q: %d, want 401", ep.method, ep.path, key, resp.StatusCode)
			}
		}
	}
	// The CA certificate is public.
	resp, err := http.Get(env.URL + "/sandbox/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /sandbox/ca.pem: %d", resp.StatusCode)
	}
}

func TestClock(t *testing.T) {
	t.Parallel()
	now := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	env := refservertest.Start(t, func(c *refservertest.Options) { c.Now = func() time.Time { return now } })
	type clock struct {
		ServerTime    int64 `json:"serverTime"`
		OffsetSeconds int64 `json:"offsetSeconds"`
	}
	var got clock
	env.AdminDo(t, "GET", "/sandbox/clock", nil, &got)
	if diff := cmp.Diff(clock{now.Unix(), 0}, got); diff != "" {
		t.Errorf("initial clock (-want +got):\n%s", diff)
	}
	if st := env.AdminDo(t, "POST", "/sandbox/clock", map[string]any{"advanceSeconds": 90}, &got); st != http.StatusOK {
		t.Fatalf("advance: %d", st)
	}
	if diff := cmp.Diff(clock{now.Unix() + 90, 90}, got); diff != "" {
		t.Errorf("advance response (-want +got):\n%s", diff)
	}
	env.AdvanceClock(t, 10*time.Second)
	env.AdminDo(t, "GET", "/sandbox/clock", nil, &got)
	if diff := cmp.Diff(clock{now.Unix() + 100, 100}, got); diff != "" {
		t.Errorf("after two advances (-want +got):\n%s", diff)
	}
	// serverTime in error bodies follows the clock too.
	var errBody struct {
		RequestInfo client.RequestInfo `json:"requestInfo"`
	}
	env.AdminDo(t, "GET", "/v1/no-such-endpoint", nil, &errBody)
	if errBody.RequestInfo.ServerTime != now.Unix()+100 {
		t.Errorf("serverTime %d, want %d", errBody.RequestInfo.ServerTime, now.Unix()+100)
	}
	// The offset survives a restart.
	env.Restart(t)
	env.AdminDo(t, "GET", "/sandbox/clock", nil, &got)
	if got.OffsetSeconds != 100 {
		t.Errorf("offset after restart = %d, want 100", got.OffsetSeconds)
	}
}

func TestReset(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	before := env.Fixtures(t)
	env.NewUser(t)
	env.NewLocation(t, "Extra", "providerC")
	env.AdvanceClock(t, time.Hour)
	env.AdminDo(t, "POST", "/sandbox/faults", map[string]any{"pathPrefix": "/v1/", "status": 500, "count": 5}, nil)

	var after sim.Fixtures
	if st := env.AdminDo(t, "POST", "/sandbox/reset", nil, &after); st != http.StatusOK {
		t.Fatalf("reset: %d", st)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("fixture after reset (-before +after):\n%s", diff)
	}
	var clock struct{ OffsetSeconds int64 }
	env.AdminDo(t, "GET", "/sandbox/clock", nil, &clock)
	if clock.OffsetSeconds != 0 {
		t.Errorf("clock offset after reset = %d", clock.OffsetSeconds)
	}
	var faults struct{ Faults []any }
	env.AdminDo(t, "GET", "/sandbox/faults", nil, &faults)
	if len(faults.Faults) != 0 {
		t.Errorf("faults after reset: %v", faults.Faults)
	}
	// The created user is gone: the next one gets id 3 again.
	if id, _ := env.NewUser(t); id != 3 {
		t.Errorf("first user after reset has id %d, want 3", id)
	}
}

// TestResetInARow resets again and again, with and without changes in
// between: any number of resets in a row work (contract.md section 6).
func TestResetInARow(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	before := env.Fixtures(t)
	for i := range 4 {
		if i%2 == 1 {
			env.NewUser(t)
		}
		var after sim.Fixtures
		if st := env.AdminDo(t, "POST", "/sandbox/reset", nil, &after); st != http.StatusOK {
			t.Fatalf("reset %d: %d", i+1, st)
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("fixture after reset %d (-before +after):\n%s", i+1, diff)
		}
	}
}
