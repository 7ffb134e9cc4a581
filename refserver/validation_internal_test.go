package refserver

import (
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
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
