package sandbox_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/sandbox"
)

// The package's types are the wire format of the admin API. Each answer of
// the server decodes into them with no member left over, and encodes back
// to the same JSON, so that neither side can gain or rename a field alone.
func TestE2EWireTypesMatchTheServer(t *testing.T) {
	t.Parallel()
	env, _ := startSandbox(t)
	fx := env.Fixtures(t)
	tests := []struct {
		method, path string
		body         any
		status       int
		into         any
		// echoed are the members that the SDK fills in from the request
		// rather than from the answer.
		echoed []string
	}{
		{http.MethodGet, "/sandbox/fixtures", nil, 200, new(sandbox.Fixtures), nil},
		{http.MethodPost, "/sandbox/users", nil, 201, new(sandbox.User), nil},
		{http.MethodPost, "/sandbox/locations", sandbox.CreateLocationRequest{Name: "Wire", Gateway: "providerB"}, 201, new(sandbox.Location), []string{"name", "gateway"}},
		{http.MethodPost, "/sandbox/api-keys", map[string]any{"locationIds": []int64{fx.Locations[0].LocationID}}, 201, new(sandbox.APIKey), nil},
		{http.MethodGet, "/sandbox/clock", nil, 200, new(sandbox.Clock), nil},
		{http.MethodPost, "/sandbox/clock", map[string]any{"advanceSeconds": 60}, 200, new(sandbox.Clock), nil},
		{http.MethodPost, "/sandbox/faults", sandbox.FaultRequest{PathPrefix: "/v9/", Status: 500, LatencyMs: 1}, 201, new(sandbox.Fault), nil},
		{http.MethodGet, "/sandbox/faults", nil, 200, new(struct {
			Faults []sandbox.Fault `json:"faults"`
		}), nil},
		{http.MethodGet, "/v1/location/424242", nil, 404, nil, nil}, // so that the journal holds an error answer
		{http.MethodGet, "/sandbox/requests", nil, 200, new(sandbox.Journal), nil},
		{http.MethodPost, "/sandbox/reset", nil, 200, new(sandbox.Fixtures), nil},
	}
	for _, tt := range tests {
		var raw json.RawMessage
		if got := env.AdminDo(t, tt.method, tt.path, tt.body, &raw); got != tt.status {
			t.Fatalf("%s %s: status %d, want %d: %s", tt.method, tt.path, got, tt.status, raw)
		}
		if tt.into == nil {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(tt.into); err != nil {
			t.Errorf("%s %s: %v in %s", tt.method, tt.path, err, raw)
			continue
		}
		again, err := json.Marshal(tt.into)
		if err != nil {
			t.Fatal(err)
		}
		var want, got map[string]any
		_ = json.Unmarshal(raw, &want)
		_ = json.Unmarshal(again, &got)
		for _, k := range tt.echoed {
			delete(got, k)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s %s: re-encoded (-server +sdk):\n%s", tt.method, tt.path, d)
		}
	}
}
