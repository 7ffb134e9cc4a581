package refserver

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

func equalJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var va, vb any
	_ = json.Unmarshal(ja, &va)
	_ = json.Unmarshal(jb, &vb)
	return reflect.DeepEqual(va, vb)
}

func TestAuth(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	f := ts.fixtures(t)
	user, pos1, pos2 := f.Users[0].AccessToken, f.Locations[0].POSAccessToken, f.Locations[1].POSAccessToken
	key1, key2 := f.APIKeys[0].APIKey, f.APIKeys[1].APIKey // key1: location 1 only

	// An expiring user token, expired by advancing the clock.
	expiring := "usr_expiring_token"
	exp := ts.clock.Now().Add(time.Hour).Unix()
	if err := ts.db.Write(t.Context(), func(tx *store.Tx) error {
		return tx.InsertUserToken(store.HashSecret(expiring), 1, &exp)
	}); err != nil {
		t.Fatal(err)
	}
	if resp := do(t, "GET", userURL(ts.url, expiring), nil, ""); resp.status != http.StatusOK {
		t.Fatalf("expiring token before expiry: %d %s", resp.status, resp.raw)
	}
	ts.clock.SetOffset(2 * time.Hour)

	admin := map[string]string{"X-Sandbox-Admin-Key": testAdminKey}
	tests := []struct {
		name        string
		url         string
		headers     map[string]string
		want        client.Code // 0: 200
		tokenStatus string
	}{
		{"user: ok", userURL(ts.url, user), nil, 0, "authenticated"},
		{"user: missing", ts.url + "/v1/test/user", nil, client.CodeAccessTokenMissing, "missing"},
		{"user: unknown", userURL(ts.url, "usr_nope"), nil, client.CodeAccessTokenInvalid, "invalid"},
		{"user: expired", userURL(ts.url, expiring), nil, client.CodeAccessTokenInvalid, "expired"},
		{"user: POS token", userURL(ts.url, pos1), nil, client.CodeForbidden, "authenticated"},
		{"user: API key is no token", ts.url + "/v1/test/user", map[string]string{"X-Vendor-API-Key": key2}, client.CodeAccessTokenMissing, "missing"},
		{"pos: ok", ts.url + "/v1/test/pos/1?accessToken=" + pos1, nil, 0, "authenticated"},
		{"pos: missing", ts.url + "/v1/test/pos/1", nil, client.CodeAccessTokenMissing, "missing"},
		{"pos: unknown", ts.url + "/v1/test/pos/1?accessToken=pos_nope", nil, client.CodeAccessTokenInvalid, "invalid"},
		{"pos: user token", ts.url + "/v1/test/pos/1?accessToken=" + user, nil, client.CodeForbidden, "authenticated"},
		{"pos: other location", ts.url + "/v1/test/pos/1?accessToken=" + pos2, nil, client.CodeForbidden, "authenticated"},
		{"apikey: ok", ts.url + "/v3/test/location/1/bills", map[string]string{"X-Vendor-API-Key": key1}, 0, "missing"},
		{"apikey: ok two", ts.url + "/v3/test/location/2/bills", map[string]string{"X-Vendor-API-Key": key2}, 0, "missing"},
		{"apikey: missing", ts.url + "/v3/test/location/1/bills", nil, client.CodeAPIKeyMissing, "missing"},
		{"apikey: unknown", ts.url + "/v3/test/location/1/bills", map[string]string{"X-Vendor-API-Key": "key_nope"}, client.CodeAPIKeyInvalid, "missing"},
		{"apikey: out of scope", ts.url + "/v3/test/location/2/bills", map[string]string{"X-Vendor-API-Key": key1}, client.CodeForbidden, "missing"},
		{"apikey: token is no key", ts.url + "/v3/test/location/1/bills?accessToken=" + user, nil, client.CodeAPIKeyMissing, "authenticated"},
		{"admin: ok", ts.url + "/sandbox/fixtures", admin, 0, ""},
		{"admin: missing", ts.url + "/sandbox/fixtures", nil, client.CodeAdminKeyInvalid, "missing"},
		{"admin: wrong", ts.url + "/sandbox/fixtures", map[string]string{"X-Sandbox-Admin-Key": testAdminKey + "x"}, client.CodeAdminKeyInvalid, "missing"},
		{"admin: API key is no admin key", ts.url + "/sandbox/fixtures", map[string]string{"X-Vendor-API-Key": key2}, client.CodeAdminKeyInvalid, "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := do(t, "GET", tt.url, tt.headers, "")
			if tt.want == 0 {
				if resp.status != http.StatusOK {
					t.Fatalf("status %d: %s", resp.status, resp.raw)
				}
			} else {
				wantError(t, resp, tt.want)
			}
			if tt.tokenStatus != "" {
				if got := resp.requestInfo()["accessTokenStatus"]; got != tt.tokenStatus {
					t.Errorf("accessTokenStatus = %v, want %s", got, tt.tokenStatus)
				}
			}
		})
	}
}
