package bills_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// TestE2EPerCallOptions: one keyless Service serves two locations, each
// call carrying the API key of its location; a per-call key also wins over
// the Client's.
func TestE2EPerCallOptions(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	ctx := context.Background()
	north := newVenue(t, env, "North", wallet.ProviderB)
	south := newVenue(t, env, "South", wallet.ProviderB)
	northBill := north.PushCheck(t, north.check(11, possync.CheckClosed, "20.00", "0", "0")).BillID
	southBill := south.PushCheck(t, south.check(22, possync.CheckClosed, "30.00", "0", "0")).BillID
	from, to := wide(north, t)

	svc := bills.NewService(env.Client(t))
	for _, tt := range []struct {
		v      *venue
		billID string
	}{{north, northBill}, {south, southBill}} {
		key := client.WithAPIKey(tt.v.apiKey)
		list, err := svc.ListClosed(ctx, tt.v.ID, from, to, key)
		if err != nil || len(list) != 1 || list[0].BillID != tt.billID {
			t.Errorf("%s: ListClosed = %+v, %v; want bill %s", tt.v.Name, list, err, tt.billID)
		}
		b, err := svc.Get(ctx, tt.billID, []bills.Scope{bills.ScopeTable}, key)
		if err != nil || b.Table == nil || b.LocationID != tt.v.ID {
			t.Errorf("%s: Get = %+v, %v", tt.v.Name, b, err)
		}
		var got []string
		for b, err := range svc.All(ctx, tt.v.ID, from, to, nil, key) {
			if err != nil {
				t.Fatalf("%s: All: %v", tt.v.Name, err)
			}
			got = append(got, b.BillID)
		}
		if len(got) != 1 || got[0] != tt.billID {
			t.Errorf("%s: All = %v, want [%s]", tt.v.Name, got, tt.billID)
		}
	}

	// Without a key nothing is sent; the per-call key of another location
	// wins over the Client's key, and the service refuses it.
	if _, err := svc.ListClosed(ctx, north.ID, from, to); !errors.Is(err, client.ErrNoCredential) {
		t.Errorf("ListClosed without a key: %v, want ErrNoCredential", err)
	}
	southKey := client.WithAPIKey(south.apiKey)
	if _, err := north.bills.ListClosed(ctx, north.ID, from, to, southKey); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("ListClosed of North with South's key: %v, want 403001", err)
	}
	if _, err := north.bills.Get(ctx, northBill, nil, southKey); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("Get of North's bill with South's key: %v, want 404001", err)
	}
	if err := allErr(north.bills.All(ctx, north.ID, from, to, nil, southKey)); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("All of North with South's key: %v, want 403001", err)
	}
	if _, err := north.bills.Get(ctx, northBill, nil); err != nil {
		t.Errorf("Get with the Client's own key after the per-call ones: %v", err)
	}
}
