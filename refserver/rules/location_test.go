package rules

import (
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestGetLocation(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	get := func(id int64) (wallet.Location, error) {
		return run(t, s.db, func(tx *store.Tx) (wallet.Location, error) { return GetLocation(tx, id) })
	}
	loc, err := get(s.loc)
	if err != nil {
		t.Fatal(err)
	}
	if loc.Name != "Trattoria" || loc.LocationPaymentDetails.Gateway != wallet.ProviderB || loc.UniversalPOS != nil ||
		loc.LastHeartbeat == nil || !loc.LastHeartbeat.Equal(testNow) {
		t.Errorf("location = %+v", loc)
	}
	// posStatus follows the heartbeat's age on the store's clock.
	for _, tt := range []struct {
		advance time.Duration
		want    wallet.POSStatus
	}{
		{0, wallet.POSStatusOnline},
		{POSOnlineWindow, wallet.POSStatusOnline},
		{time.Second, wallet.POSStatusOffline},
	} {
		s.clock.Advance(tt.advance)
		if loc, err := get(s.loc); err != nil || loc.POSStatus != tt.want {
			t.Errorf("at %v: posStatus %q, %v; want %q", s.clock.Now().Sub(testNow), loc.POSStatus, err, tt.want)
		}
	}
	if _, err := get(99); !notFoundAs(err, "Location not found.") {
		t.Errorf("unknown location: err = %v, want 404001 Location not found.", err)
	}

	// A location never heard from is offline, with no heartbeat; one with a
	// universal POS shows it, every field nil before the first check.
	posURL, posToken := "http://pos.test", "t"
	var quiet int64
	write(t, s.db, func(tx *store.Tx) (err error) {
		quiet, err = insertPOSLocation(tx, "Quiet", "providerD", posURL, posToken)
		return err
	})
	loc, err = get(quiet)
	if err != nil || loc.POSStatus != wallet.POSStatusOffline || loc.LastHeartbeat != nil ||
		loc.UniversalPOS == nil || *loc.UniversalPOS != (wallet.UniversalPOS{}) {
		t.Errorf("quiet location = %+v, %v", loc, err)
	}
}
