package rules

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
)

func TestCreateUser(t *testing.T) {
	t.Parallel()
	db, _ := openStore(t)
	u, err := run(t, db, CreateUser)
	if err != nil || u.UserID != 1 || !strings.HasPrefix(u.AccessToken, sim.UserTokenPrefix) {
		t.Fatalf("CreateUser = %+v, %v", u, err)
	}
	// The token is stored hashed, and authenticates the user.
	err = db.Read(t.Context(), func(tx *store.Tx) error {
		tok, err := tx.LookupAccessToken(store.HashSecret(u.AccessToken))
		if err == nil && (tok.Kind != store.TokenKindUser || tok.UserID != u.UserID) {
			t.Errorf("token row %+v, want user %d", tok, u.UserID)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCheckLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want map[string]string
	}{
		{`{"name":"Bistro","gateway":"providerA"}`, nil},
		{`{"name":"Bistro","gateway":"providerA","posUrl":"https://pos.test/","posToken":"t"}`, nil},
		{`{}`, map[string]string{"name": "required", "gateway": "required"}},
		{`{"name":" ","gateway":"providerZ"}`, map[string]string{"name": "must not be empty",
			"gateway": "must be one of providerA, providerB, providerC, providerD, providerE"}},
		{`{"name":"` + strings.Repeat("é", 201) + `","gateway":"providerA"}`, map[string]string{"name": "must be at most 200 characters"}},
		{`{"name":"a","gateway":"providerA","posUrl":"ftp://x"}`, map[string]string{"posUrl": "must be an absolute http or https URL"}},
		{`{"name":"a","gateway":"providerA","posUrl":"http://u:p@x"}`, map[string]string{"posUrl": "must be an absolute http or https URL"}},
		{`{"name":"a","gateway":"providerA","posUrl":""}`, map[string]string{"posUrl": "must be an absolute http or https URL"}},
		{`{"name":"a","gateway":"providerA","posToken":"t"}`, map[string]string{"posToken": "needs posUrl"}},
		{`{"name":"a","gateway":"providerA","posUrl":"http://x","posToken":""}`, map[string]string{"posToken": "must be 1 to 4096 characters"}},
	}
	for _, tt := range tests {
		var req LocationRequest
		if err := api.DecodeBytes([]byte(tt.body), &req); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, fieldErrors(t, CheckLocation([]byte(tt.body), &req))); diff != "" {
			t.Errorf("%.60s: fields (-want +got):\n%s", tt.body, diff)
		}
	}
}

func TestCreateLocation(t *testing.T) {
	t.Parallel()
	db, _ := openStore(t)
	posURL, posToken := "https://pos.test//", "secret"
	created, err := run(t, db, func(tx *store.Tx) (CreatedLocation, error) {
		return CreateLocation(tx, testPOSTokens, LocationRequest{Name: "  Bistro ", Gateway: "providerC", POSURL: &posURL, POSToken: &posToken})
	})
	if err != nil || !strings.HasPrefix(created.POSAccessToken, sim.POSTokenPrefix) {
		t.Fatalf("CreateLocation = %+v, %v", created, err)
	}
	err = db.Read(t.Context(), func(tx *store.Tx) error {
		l, err := tx.GetPOSLocation(created.LocationID)
		if err == nil && l.POSURL != "https://pos.test" {
			t.Errorf("universal POS %q, want the URL without its trailing slashes", l.POSURL)
		}
		if bytes.Contains(l.POSTokenSealed, []byte(posToken)) {
			t.Errorf("the POS token is kept in the clear: %q", l.POSTokenSealed)
		}
		if token, err := testPOSTokens.Open(created.LocationID, l.POSTokenSealed); err != nil || token != posToken {
			t.Errorf("the sealed POS token opens to %q, %v; want %q", token, err, posToken)
		}
		d, err2 := tx.GetLocationDetails(created.LocationID)
		if err2 == nil && (d.Name != "Bistro" || d.Gateway != "providerC") {
			t.Errorf("location %+v, want the name trimmed", d)
		}
		tok, err3 := tx.LookupAccessToken(store.HashSecret(created.POSAccessToken))
		if err3 == nil && (tok.Kind != store.TokenKindPOS || tok.LocationID != created.LocationID) {
			t.Errorf("POS token row %+v", tok)
		}
		return errors.Join(err, err2, err3)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCreateAPIKey(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]map[string]string{
		`{"locationIds":[1]}`:     nil,
		`{}`:                      {"locationIds": "required"},
		`{"locationIds":null}`:    {"locationIds": "required"},
		`{"locationIds":[]}`:      {"locationIds": "must name at least one location"},
		`{"locationIds":[9,9,1]}`: nil,
	} {
		var req APIKeyRequest
		if err := api.DecodeBytes([]byte(body), &req); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, fieldErrors(t, CheckAPIKey([]byte(body), &req))); diff != "" {
			t.Errorf("%s: fields (-want +got):\n%s", body, diff)
		}
	}

	s := newScene(t)
	create := func(ids ...int64) (sandbox.APIKey, error) {
		return run(t, s.db, func(tx *store.Tx) (sandbox.APIKey, error) {
			return CreateAPIKey(tx, APIKeyRequest{LocationIDs: ids})
		})
	}
	k, err := create(s.loc, s.loc)
	if err != nil || !strings.HasPrefix(k.APIKey, sim.APIKeyPrefix) || !slices.Equal(k.LocationIDs, []int64{s.loc}) || k.KeyID == 0 {
		t.Errorf("CreateAPIKey = %+v, %v; want one location", k, err)
	}
	_, err = create(s.loc, 98, s.loc, 99)
	if diff := cmp.Diff(map[string]string{"locationIds[1]": "unknown location", "locationIds[3]": "unknown location"}, fieldErrors(t, err)); diff != "" {
		t.Errorf("unknown locations (-want +got):\n%s", diff)
	}
}

func TestNewFault(t *testing.T) {
	t.Parallel()
	isAdmin := func(p string) bool { return strings.HasPrefix(p, "/sandbox/") }
	tests := []struct {
		body string
		want sim.Fault
		bad  map[string]string
	}{
		{`{"pathPrefix":"/v1/","status":503}`, sim.Fault{PathPrefix: "/v1/", Status: 503, Count: 1}, nil},
		{`{"method":"post","pathPrefix":"/v1/","latencyMs":60000,"count":1000,"afterCommit":true}`,
			sim.Fault{Method: "post", PathPrefix: "/v1/", Count: 1000, LatencyMs: 60000, AfterCommit: true}, nil},
		{`{}`, sim.Fault{}, map[string]string{"pathPrefix": "required", "status": "a fault needs a status or a latency"}},
		{`{"method":"BREW","pathPrefix":"v1","status":302,"count":0,"latencyMs":-1}`, sim.Fault{}, map[string]string{
			"method": `must be an HTTP method, "*" or empty`, "pathPrefix": "must start with /",
			"status": "must be 0 (latency only) or 400-599", "count": "must be between 1 and 1000",
			"latencyMs": "must be between 0 and 60000"}},
		{`{"pathPrefix":"/sandbox/faults","status":500}`, sim.Fault{}, map[string]string{"pathPrefix": "must not name the sandbox admin endpoints"}},
	}
	for _, tt := range tests {
		var req FaultRequest
		if err := api.DecodeBytes([]byte(tt.body), &req); err != nil {
			t.Fatal(err)
		}
		f, err := NewFault([]byte(tt.body), &req, isAdmin)
		if diff := cmp.Diff(tt.bad, fieldErrors(t, err)); diff != "" {
			t.Errorf("%s: fields (-want +got):\n%s", tt.body, diff)
		}
		if f != tt.want {
			t.Errorf("%s: fault %+v, want %+v", tt.body, f, tt.want)
		}
	}
}
