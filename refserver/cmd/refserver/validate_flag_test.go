package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/sim"
)

// With -validate the server answers a request that breaks the OpenAPI
// document with 400002 naming the field and the document's reason; without
// it the same request reaches the handler.
func TestValidateFlag(t *testing.T) {
	t.Parallel()
	token := sim.DemoPOSAccessToken(DefaultAdminKey, 1)
	// accept-payment with a paymentId below the document's minimum.
	send := func(base string) (int, map[string]string) {
		t.Helper()
		resp, err := http.Post(base+"/v1/pos/push-pull/accept-payment?accessToken="+token,
			"application/json", strings.NewReader(`{"paymentId": -3}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Code        int               `json:"code"`
			ContextData map[string]string `json:"contextData"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		if body.Code != 400002 {
			t.Fatalf("code %d, want 400002", body.Code)
		}
		return resp.StatusCode, body.ContextData
	}

	on := startRun(t, "-db", ":memory:", "-validate")
	if status, fields := send(on.base); status != http.StatusBadRequest || fields["paymentId"] != "number must be at least 1" {
		t.Errorf("-validate: %d %v, want the document's reason for paymentId", status, fields)
	}
	off := startRun(t, "-db", ":memory:")
	if status, fields := send(off.base); status != http.StatusBadRequest || fields["paymentId"] != "must be positive" {
		t.Errorf("without -validate: %d %v, want the handler's own reason", status, fields)
	}
}
