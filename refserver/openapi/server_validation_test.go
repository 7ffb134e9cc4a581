package openapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/refserver/sim"
)

// The server's request validation (refserver -validate) answers a body that
// breaks the document with 400002 naming each failing field, in the
// service's error body, before the handler runs; the admin endpoints are
// not checked.
func TestServerValidatesRequests(t *testing.T) {
	t.Parallel()
	srv, err := refserver.New(refserver.Config{
		DBPath:           filepath.Join(t.TempDir(), "validate.db"),
		AdminKey:         "validate-test-admin-key",
		ValidateRequests: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)

	var fx sim.Fixtures
	if code := do(t, ts.URL, "GET", "/sandbox/fixtures", "validate-test-admin-key", "", &fx); code != 200 {
		t.Fatalf("fixtures: %d", code)
	}
	pos := fx.Locations[0]

	// One check with three faults the document catches: a missing member,
	// money with three decimals, a status outside the enum.
	check := fmt.Sprintf(`{"tableNumber": 1, "locationId": %d, "staffId": "s", "guests": 2, "status": "paid",
		"totalAmount": 10.005, "outstandingAmount": 10, "serviceChargeAmount": 0, "tipsPaid": 0,
		"discounts": [], "menuItems": []}`, pos.LocationID)
	var eb struct {
		Error       bool              `json:"error"`
		Code        int               `json:"code"`
		ContextData map[string]string `json:"contextData"`
		RequestInfo struct {
			AccessTokenStatus string `json:"accessTokenStatus"`
			APIVersion        int    `json:"apiVersion"`
		} `json:"requestInfo"`
	}
	code := do(t, ts.URL, "POST", "/v1/pos/push-pull/check?accessToken="+pos.POSAccessToken, "", check, &eb)
	if code != http.StatusBadRequest || !eb.Error || eb.Code != 400002 {
		t.Fatalf("got %d %+v, want 400 with code 400002", code, eb)
	}
	want := map[string]string{
		"checkNumber": "required",
		"totalAmount": "must have at most 2 decimal places",
		"status":      "must be one of open, closed, void",
	}
	if diff := cmp.Diff(want, eb.ContextData); diff != "" {
		t.Errorf("contextData (-want +got):\n%s", diff)
	}
	if eb.RequestInfo.AccessTokenStatus != "authenticated" || eb.RequestInfo.APIVersion != 0 {
		t.Errorf("requestInfo = %+v", eb.RequestInfo)
	}

	// The same check, fixed, goes through.
	fixed := strings.NewReplacer(`"status": "paid"`, `"status": "open"`, `10.005`, `10.00`,
		`"tableNumber": 1,`, `"tableNumber": 1, "checkNumber": 7,`).Replace(check)
	if code := do(t, ts.URL, "POST", "/v1/pos/push-pull/check?accessToken="+pos.POSAccessToken, "", fixed, nil); code != http.StatusOK {
		t.Errorf("valid check: status %d", code)
	}

	// Admin endpoints are left to the server: its own 400002 wording.
	var adminErr struct {
		ContextData map[string]string `json:"contextData"`
	}
	code = do(t, ts.URL, "POST", "/sandbox/clock", "validate-test-admin-key", `{"advanceSeconds": -1}`, &adminErr)
	if code != http.StatusBadRequest || !strings.HasPrefix(adminErr.ContextData["advanceSeconds"], "must be between") {
		t.Errorf("admin endpoint: %d %v, want the server's own 400002", code, adminErr.ContextData)
	}
}

func do(t *testing.T, base, method, path, adminKey, body string, out any) int {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if adminKey != "" {
		req.Header.Set("X-Sandbox-Admin-Key", adminKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return resp.StatusCode
}
