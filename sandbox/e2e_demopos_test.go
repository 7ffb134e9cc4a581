package sandbox_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// Each demo POS mode gives an order the status it should: accept and
// slow end accepted_by_pos, fail-then-accept too after its failures,
// reject and offline end failed; offline also makes the POS's health
// FAILED.
func TestE2EDemoPOSModes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		req    sandbox.DemoPOSRequest
		status fulfillment.Status
		sends  int // tries the dispatcher made
	}{
		{sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSAccept}, fulfillment.StatusAcceptedByPOS, 1},
		{sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSReject}, fulfillment.StatusFailed, 1},
		{sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSFailThenAccept, FailCount: 2}, fulfillment.StatusAcceptedByPOS, 3},
		{sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSSlow, DelayMs: 50}, fulfillment.StatusAcceptedByPOS, 1},
		{sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSOffline}, fulfillment.StatusFailed, 10},
	}
	for _, tt := range tests {
		t.Run(string(tt.req.Mode), func(t *testing.T) {
			t.Parallel()
			env := refservertest.Start(t, func(c *refservertest.Options) {
				c.OrderRetryBase, c.OrderRetryMax = 5*time.Millisecond, 20*time.Millisecond
			})
			sb := sandbox.NewService(env.Client(t, client.WithAdminKey(env.AdminKey)))
			ctx := context.Background()
			v := env.NewVenue(t, refservertest.VenueConfig{Name: "Kiosk " + string(tt.req.Mode)})

			// The menu is synced in accept mode; then the mode under test.
			if _, err := sb.SetDemoPOS(ctx, v.ID, sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSAccept}); err != nil {
				t.Fatal(err)
			}
			env.WaitForMenu(t, v.ID)
			got, err := sb.SetDemoPOS(ctx, v.ID, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Mode != tt.req.Mode || got.FailCount != tt.req.FailCount || got.FailuresLeft != tt.req.FailCount {
				t.Errorf("demo POS = %+v", got)
			}
			if again, err := sb.DemoPOS(ctx, v.ID); err != nil || again != got {
				t.Errorf("GET demo POS = %+v, %v; want %+v", again, err, got)
			}
			if tt.req.Mode == sandbox.DemoPOSOffline {
				places := wallet.NewService(env.Client(t))
				sdktest.Eventually(t, "the POS's health to be FAILED", func() bool {
					l, err := places.GetLocation(ctx, v.ID)
					return err == nil && l.UniversalPOS != nil && l.UniversalPOS.Health != nil &&
						*l.UniversalPOS.Health == wallet.POSHealthFailed
				})
			}

			d := env.NewDiner(t)
			o, err := d.Order.CreateOrder(ctx, fulfillment.OrderRequest{LocationID: v.ID, Items: []fulfillment.OrderLine{{PLU: "DRK-002", Quantity: 2}}})
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Order.Set(ctx, o.OrderID, fulfillment.OrderAtTable{TableNumber: 3}); err != nil {
				t.Fatal(err)
			}
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			final, err := d.Order.WaitForStatus(wctx, o.OrderID, fulfillment.Settled, 10*time.Millisecond)
			if err != nil {
				t.Fatalf("WaitForStatus: %v (last status %q)", err, final.Status)
			}
			if final.Status != tt.status {
				t.Errorf("order status %q, want %q", final.Status, tt.status)
			}
			if sends := demoPOSSends(t, sb); sends != tt.sends {
				t.Errorf("the dispatcher sent the order %d times, want %d", sends, tt.sends)
			}
			if tt.req.Mode == sandbox.DemoPOSFailThenAccept {
				if d, err := sb.DemoPOS(ctx, v.ID); err != nil || d.FailuresLeft != 0 {
					t.Errorf("demo POS after the order = %+v, %v; want no failures left", d, err)
				}
			}
		})
	}
}

// demoPOSSends counts the POSTs to the demo universal POS that the
// request journal saw: each test makes one order, so each is a try of the
// dispatcher at sending it.
func demoPOSSends(t *testing.T, sb *sandbox.Service) int {
	t.Helper()
	j, err := sb.Requests(context.Background(), sandbox.JournalQuery{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range j.Requests {
		if e.Method == http.MethodPost && strings.HasPrefix(e.Route, "/sandbox/demo-pos/") {
			n++
		}
	}
	return n
}

// Bad demo POS settings are a 400002 naming each field, an unknown
// location a 404001, and neither changes the mode.
func TestE2EDemoPOSBadInput(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()
	v := env.NewVenue(t, refservertest.VenueConfig{})
	want, err := sb.SetDemoPOS(ctx, v.ID, sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSSlow, DelayMs: 250})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Code        client.Code       `json:"code"`
		ContextData map[string]string `json:"contextData"`
	}
	path := "/sandbox/locations/" + strconv.FormatInt(v.ID, 10) + "/demo-pos"
	status := env.AdminDo(t, "PUT", path, map[string]any{"mode": "sleepy", "failCount": -1, "delayMs": -5}, &out)
	if status != 400 || out.Code != client.CodeValidation {
		t.Fatalf("status %d code %d, want 400002", status, out.Code)
	}
	if out.ContextData["mode"] == "" || out.ContextData["failCount"] == "" || out.ContextData["delayMs"] == "" {
		t.Errorf("contextData = %v, want mode, failCount and delayMs", out.ContextData)
	}
	if _, err := sb.SetDemoPOS(ctx, v.ID, sandbox.DemoPOSRequest{}); !errors.Is(err, client.ErrValidation) {
		t.Errorf("no mode: err = %v, want 400002", err)
	}
	var ae *client.APIError
	if _, err := sb.SetDemoPOS(ctx, v.ID+1000, sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSReject}); !errors.As(err, &ae) || ae.Message != "Location not found." {
		t.Errorf("unknown location: err = %v, want 404001 Location not found.", err)
	}
	if got, err := sb.DemoPOS(ctx, v.ID); err != nil || got != want {
		t.Errorf("demo POS after bad requests = %+v, %v; want %+v", got, err, want)
	}
}
