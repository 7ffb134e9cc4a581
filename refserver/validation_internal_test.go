package refserver

import (
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// A 400002 names at most 100 failing fields and says how many there were
// (contract section 2).
func TestValidationErrorNamesAtMost100Fields(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	tok := ts.fixtures(t).Users[0].AccessToken
	body := `{"note":"a","items":[` + strings.Repeat(`{},`, 149) + `{}]}`
	resp := do(t, "POST", ts.url+"/v1/test/count?accessToken="+tok, nil, body)
	wantError(t, resp, client.CodeValidation)
	if cd, _ := resp.body["contextData"].(map[string]any); len(cd) != 100 || cd["items[0].price"] != "required" {
		t.Errorf("contextData names %d fields (items[0].price %v), want 100", len(cd), cd["items[0].price"])
	}
	if msg := resp.body["message"]; msg != "Validation failed: 100 of 150 problems shown." {
		t.Errorf("message = %q", msg)
	}
}

// A bad money value does not hide the other failing fields of the same
// body (contract section 2): decoding goes on past it, and one 400002 names
// every field.
func TestMoneyErrorDoesNotHideOtherFields(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	f := ts.fixtures(t)
	user, pos := f.Users[0].AccessToken, f.Locations[0].POSAccessToken
	tests := []struct {
		name, url, body string
		want            map[string]string
	}{
		{"payment", "/payments/v1/payment?accessToken=" + user,
			`{"locationId":1,"checkNumber":1,"amount":1.005,"tip":0}`,
			map[string]string{"amount": "must have at most 2 decimal places", "cardId": "required"}},
		{"check push", "/v1/pos/push-pull/check?accessToken=" + pos,
			`{"tableNumber":1,"checkNumber":5,"locationId":1,"guests":1,"status":"open","totalAmount":1.005,"outstandingAmount":1,` +
				`"serviceChargeAmount":0,"tipsPaid":0,"discounts":[],"menuItems":[{"id":1,"name":"a","quantity":1,"price":2.001,"priceSold":2,"category":null}]}`,
			map[string]string{"totalAmount": "must have at most 2 decimal places", "menuItems[0].price": "must have at most 2 decimal places", "staffId": "required"}},
	}
	for _, tt := range tests {
		resp := do(t, "POST", ts.url+tt.url, nil, tt.body)
		wantError(t, resp, client.CodeValidation)
		cd, _ := resp.body["contextData"].(map[string]any)
		for path, reason := range tt.want {
			if cd[path] != reason {
				t.Errorf("%s: contextData[%q] = %v, want %q (all: %v)", tt.name, path, cd[path], reason, cd)
			}
		}
	}
}

// A JSON string holding invalid UTF-8 is 400001 on every endpoint, whichever
// decoder reads the body; it is never stored altered.
func TestInvalidUTF8IsMalformed(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	f := ts.fixtures(t)
	pos := f.Locations[0].POSAccessToken
	check := func(staff string) string {
		return `{"tableNumber":1,"checkNumber":6,"locationId":1,"staffId":"` + staff + `","guests":1,"status":"open","totalAmount":1,` +
			`"outstandingAmount":1,"serviceChargeAmount":0,"tipsPaid":0,"discounts":[],"menuItems":[]}`
	}
	for _, tt := range []struct{ name, url, body string }{
		{"check push", "/v1/pos/push-pull/check?accessToken=" + pos, check("Al\xffice")},
		{"check push, lone surrogate", "/v1/pos/push-pull/check?accessToken=" + pos, check(`Al\ud800ice`)},
		{"payment", "/payments/v1/payment?accessToken=" + f.Users[0].AccessToken, "{\"locationId\":1,\"note\":\"\xc3\"}"},
		{"sandbox admin", "/sandbox/locations", "{\"name\":\"Caf\xe9\",\"gateway\":\"providerA\"}"},
	} {
		resp := do(t, "POST", ts.url+tt.url, map[string]string{"X-Sandbox-Admin-Key": testAdminKey}, tt.body)
		if resp.code() != int(client.CodeMalformedJSON) {
			t.Errorf("%s: status %d code %d, want 400001: %s", tt.name, resp.status, resp.code(), resp.raw)
		}
	}
	// The check was not stored, altered or not.
	err := ts.db.Read(t.Context(), func(tx *store.Tx) error {
		n, err := tx.CountRows("bills")
		if n != 0 {
			t.Errorf("%d bills stored", n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// With -validate, a push whose categories nest 33 deep (1.3 KB) is
// answered, with or without a credential: the credential is checked first,
// and the OpenAPI check costs one visit per level, not twice as much per
// level as it did.
func TestValidateDeepCategoryChain(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(c *Config) { c.ValidateRequests = true })
	pos := ts.fixtures(t).Locations[0].POSAccessToken
	cat := `null`
	for range 33 {
		cat = `{"name":"c","category":` + cat + `}`
	}
	body := `{"tableNumber":1,"checkNumber":7,"locationId":1,"staffId":"s","guests":1,"status":"open","totalAmount":2,` +
		`"outstandingAmount":2,"serviceChargeAmount":0,"tipsPaid":0,"discounts":[],` +
		`"menuItems":[{"id":1,"name":"a","quantity":1,"price":2,"priceSold":2,"category":` + cat + `}]}`
	wantError(t, do(t, "POST", ts.url+"/v1/pos/push-pull/check", nil, body), client.CodeAccessTokenMissing)
	// The server allows 8 levels: its own 400002 says so.
	resp := do(t, "POST", ts.url+"/v1/pos/push-pull/check?accessToken="+pos, nil, body)
	wantError(t, resp, client.CodeValidation)
}

// A push of nothing but empty menu items, as large as the body limit
// allows, gets a small 400002 that still counts every failure, and the
// server keeps working.
func TestHostilePushGetsSmallAnswer(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	pos := ts.fixtures(t).Locations[0].POSAccessToken
	head := `{"locationId":1,"checkNumber":1,"status":"open","menuItems":[{}`
	items := (api.MaxBodyBytes - len(head) - 2) / 3
	body := head + strings.Repeat(",{}", items) + "]}"
	resp := do(t, "POST", ts.url+"/v1/pos/push-pull/check?accessToken="+pos, nil, body)
	wantError(t, resp, client.CodeValidation)
	if len(resp.raw) > 16<<10 {
		t.Errorf("the 400002 is %d bytes", len(resp.raw))
	}
	msg, _ := resp.body["message"].(string)
	if !strings.HasPrefix(msg, "Validation failed: 100 of ") || !strings.Contains(msg, ",") {
		t.Errorf("message = %q, want it to count the failures in millions", msg)
	}
	if cd, _ := resp.body["contextData"].(map[string]any); len(cd) != 100 {
		t.Errorf("contextData names %d fields, want 100", len(cd))
	}
}
