package contract

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/hospo-dev/hospo-go/client"
)

// wireChecks are the conventions every endpoint shares (contract section
// 1 and the routing errors of section 2). The body errors are checked on
// POST /v1/webhooks, which creates nothing from a body it refuses and only
// ever the caller's own subscriptions, so careful mode can run them too.
var wireChecks = []Check{
	{
		Name: "wire/no-such-route", Endpoint: "GET /v9/contract-no-such-route",
		Rule: "a path that matches no route is 404001 \"No such route.\" with contextData.route naming the method and path",
		Run: func(t *T) {
			b := t.rawError(rawRequest{Method: http.MethodGet, Path: "/v9/contract-no-such-route"}, client.CodeNotFound)
			t.equal("message", b["message"], "No such route.")
			t.equal("contextData.route", field(b, "contextData", "route"), "GET "+pathOf(t.last().Request))
		},
	},
	{
		Name: "wire/method-not-allowed", Endpoint: "DELETE /v1/user/me",
		Rule: "a known path asked with another method is 405001, and the Allow header lists the methods it takes",
		Run: func(t *T) {
			t.rawError(rawRequest{Method: http.MethodDelete, Path: "/v1/user/me"}, client.CodeMethodNotAllowed)
			allow := strings.Split(strings.ReplaceAll(t.header("Allow"), " ", ""), ",")
			if !slices.Contains(allow, http.MethodGet) || slices.Contains(allow, http.MethodDelete) {
				t.Errorf("header Allow: got %q, want GET listed and DELETE not", t.header("Allow"))
			}
		},
	},
	{
		Name: "wire/malformed-json", Endpoint: "POST /v1/webhooks",
		Rule:  "a body that does not parse as JSON is 400001",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			t.rawError(rawRequest{Method: http.MethodPost, Path: "/v1/webhooks", APIKey: t.vendor().Key,
				Body: []byte(`{"url": "https://contract.invalid/hook", "events": [`)}, client.CodeMalformedJSON)
		},
	},
	{
		Name: "wire/wrong-json-type", Endpoint: "POST /v1/webhooks",
		Rule:  "a member of the wrong JSON type is 400001",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			t.rawError(rawRequest{Method: http.MethodPost, Path: "/v1/webhooks", APIKey: t.vendor().Key,
				Body: []byte(`{"url": 5, "events": ["*"]}`)}, client.CodeMalformedJSON)
		},
	},
	{
		Name: "wire/invalid-utf8", Endpoint: "POST /v1/webhooks",
		Rule:  "a JSON string holding invalid UTF-8 is 400001",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			t.rawError(rawRequest{Method: http.MethodPost, Path: "/v1/webhooks", APIKey: t.vendor().Key,
				Body: []byte("{\"events\": [\"*\"], \"description\": \"caf\xe9\"}")}, client.CodeMalformedJSON)
		},
	},
	{
		Name: "wire/unsupported-media-type", Endpoint: "POST /v1/webhooks",
		Rule:  "a POST body that is not application/json is 415001",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			t.rawError(rawRequest{Method: http.MethodPost, Path: "/v1/webhooks", APIKey: t.vendor().Key,
				Body: []byte("url=https%3A%2F%2Fcontract.invalid%2Fhook"), ContentType: "application/x-www-form-urlencoded"},
				client.CodeUnsupportedMediaType)
		},
	},
	{
		Name: "wire/body-too-large", Endpoint: "POST /v1/webhooks",
		Rule:  "a body over 1 MiB is 413001",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			body := append([]byte(`{"description": "`), bytes.Repeat([]byte("x"), 1<<20)...)
			body = append(body, `"}`...)
			t.rawError(rawRequest{Method: http.MethodPost, Path: "/v1/webhooks", APIKey: t.vendor().Key, Body: body},
				client.CodeBodyTooLarge)
		},
	},
}

// pathOf is the path of an Exchange's Request ("GET /a/b?x" -> "/a/b").
func pathOf(request string) string {
	_, target, _ := strings.Cut(request, " ")
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	return u.Path
}

// authChecks are the credential errors of contract sections 2 and 3.
var authChecks = []Check{
	{
		Name: "auth/access-token-missing", Endpoint: "GET /v1/user/me",
		Rule: "no accessToken is 401001, and requestInfo.accessTokenStatus is \"missing\"",
		Run: func(t *T) {
			b := t.rawError(rawRequest{Method: http.MethodGet, Path: "/v1/user/me?scope=wallet"}, client.CodeAccessTokenMissing)
			t.equal("requestInfo.accessTokenStatus", field(b, "requestInfo", "accessTokenStatus"), "missing")
		},
	},
	{
		Name: "auth/access-token-invalid", Endpoint: "GET /v1/user/me",
		Rule: "an unknown accessToken is 401002, and requestInfo.accessTokenStatus is \"invalid\"",
		Run: func(t *T) {
			b := t.rawError(rawRequest{Method: http.MethodGet, Path: "/v1/user/me?scope=wallet", AccessToken: "contract-no-such-token"},
				client.CodeAccessTokenInvalid)
			t.equal("requestInfo.accessTokenStatus", field(b, "requestInfo", "accessTokenStatus"), "invalid")
		},
	},
	{
		Name: "auth/api-key-missing", Endpoint: "GET /v3/location/{locationId}/bills/closed",
		Rule: "no X-Vendor-API-Key on a bills endpoint is 401003",
		Run: func(t *T) {
			t.rawError(rawRequest{Method: http.MethodGet, Path: billsPath(1, "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")},
				client.CodeAPIKeyMissing)
		},
	},
	{
		Name: "auth/api-key-invalid", Endpoint: "GET /v3/location/{locationId}/bills/closed",
		Rule: "an unknown X-Vendor-API-Key is 401004",
		Run: func(t *T) {
			t.rawError(rawRequest{Method: http.MethodGet, Path: billsPath(1, "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"),
				APIKey: "contract-no-such-key"}, client.CodeAPIKeyInvalid)
		},
	},
	{
		Name: "auth/admin-key-invalid", Endpoint: "GET /sandbox/fixtures",
		Rule:  "a wrong X-Sandbox-Admin-Key on the admin API is 401005",
		Needs: NeedsSandbox,
		Run: func(t *T) {
			t.rawError(rawRequest{Method: http.MethodGet, Path: "/sandbox/fixtures",
				Header: http.Header{client.HeaderAdminKey: {"contract-wrong-admin-key"}}}, client.CodeAdminKeyInvalid)
		},
	},
	{
		Name: "auth/user-token-on-pos", Endpoint: "GET /v1/pos/push-pull/payments/{locationId}",
		Rule:  "a user's access token on a POS endpoint is 403001",
		Needs: NeedsUser | NeedsLocation,
		Run: func(t *T) {
			_, err := t.venue().POS.Payments(t.ctx, t.venue().ID, client.WithAccessToken(t.user().Token))
			t.wantError(err, client.CodeForbidden)
		},
	},
	{
		Name: "auth/pos-token-other-location", Endpoint: "GET /v1/pos/push-pull/payments/{locationId}",
		Rule:  "a POS token used on another location's id is 403001",
		Needs: NeedsPOS,
		Run: func(t *T) {
			_, err := t.venue().POS.Payments(t.ctx, t.otherLocation())
			t.wantError(err, client.CodeForbidden)
		},
	},
	{
		Name: "auth/api-key-other-location", Endpoint: "GET /v3/location/{locationId}/bills/closed",
		Rule:  "an API key not scoped to the location asked for is 403001",
		Needs: NeedsAPIKey | NeedsSandbox, // a real key may be scoped to any other location

		Run: func(t *T) {
			to := t.serverTime()
			_, err := t.vendor().Bills.ListClosed(t.ctx, t.otherLocation(), to.Add(-24*hour), to)
			t.wantError(err, client.CodeForbidden)
		},
	},
}

// field returns the member at path of a decoded JSON object, or nil.
func field(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[p]
	}
	return v
}
