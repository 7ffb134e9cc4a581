package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
)

func TestGetMenu(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	get := func(id int64) (fulfillment.LocationMenu, error) {
		return run(t, k.db, func(tx *store.Tx) (fulfillment.LocationMenu, error) { return GetMenu(tx, id) })
	}
	m, err := get(k.menuLoc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pricingMenus().menus, m.Menus, exactMoney, cmpopts.EquateEmpty()); diff != "" || !m.SyncedAt.Equal(testNow) {
		t.Errorf("synced menu at %v (-want +got):\n%s", m.SyncedAt, diff)
	}
	// Before the first sync: no menus ([] on the wire) and no time.
	if m, err := get(k.unsyncedLoc); err != nil || m.Menus == nil || len(m.Menus) != 0 || !m.SyncedAt.IsZero() {
		t.Errorf("unsynced menu = %+v, %v", m, err)
	}
	if _, err := get(99); !notFoundAs(err, "Location not found.") {
		t.Errorf("unknown location: err = %v, want 404001 Location not found.", err)
	}
}

// The menu cache holds the menus as synced, or the POS's whole body.
func TestDecodeMenuJSON(t *testing.T) {
	t.Parallel()
	want := []universalpos.Menu{{Reference: "a", Name: "A"}}
	for _, raw := range []string{`[{"reference":"a","name":"A"}]`, `{"menus":[{"reference":"a","name":"A"}]}`, ` [{"reference":"a","name":"A"}] `} {
		got, err := decodeMenuJSON([]byte(raw))
		if err != nil || len(got) != 1 || got[0].Reference != want[0].Reference || got[0].Name != want[0].Name {
			t.Errorf("%s: %+v, %v", raw, got, err)
		}
	}
	for _, raw := range []string{``, `null`} {
		if got, err := decodeMenuJSON([]byte(raw)); got != nil || err != nil {
			t.Errorf("%q: %+v, %v; want nothing", raw, got, err)
		}
	}
	if _, err := decodeMenuJSON([]byte(`{"menus":7}`)); err == nil {
		t.Error("a broken cache decoded")
	}
}
