package refserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
)

// A tip far beyond any real one is a 400002: the amount is bounded by the
// check, the tip only by this rule, and a POS adding it to tipsPaid would
// overflow.
func TestPaymentTipBounded(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	tok := ts.fixtures(t).Users[0].AccessToken
	url := ts.url + "/payments/v1/payment?accessToken=" + tok
	tests := []struct {
		tip  string
		want map[string]string
	}{
		{"1000000.01", map[string]string{"tip": "must be at most 1000000.00"}},
		{"92233720368547758.07", map[string]string{"tip": "must be at most 1000000.00"}},
		{"-0.01", map[string]string{"tip": "must not be negative"}},
	}
	for _, tt := range tests {
		resp := do(t, "POST", url, nil, `{"locationId":1,"checkNumber":1,"cardId":1,"amount":1,"tip":`+tt.tip+`}`)
		wantError(t, resp, client.CodeValidation)
		got := map[string]string{}
		cd, _ := resp.body["contextData"].(map[string]any)
		for k, v := range cd {
			got[k], _ = v.(string)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("tip %s: contextData (-want +got):\n%s", tt.tip, diff)
		}
	}
	// The bound itself is a tip like any other: past validation, the
	// unknown card is what fails.
	resp := do(t, "POST", url, nil, `{"locationId":1,"checkNumber":1,"cardId":999,"amount":1,"tip":1000000}`)
	wantError(t, resp, client.CodeNotFound)
}
