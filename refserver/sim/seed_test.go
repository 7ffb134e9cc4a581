package sim_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/internal/storetest"
	"github.com/hospo-dev/hospo-go/refserver/internal/testclock"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// openDB opens an empty in-memory database on a clock the test moves.
func openDB(t *testing.T) (*store.DB, *testclock.Clock) {
	t.Helper()
	clock := testclock.New(june2030)
	return storetest.Open(t, store.MemoryPath, clock.Now), clock
}

func write(t *testing.T, db *store.DB, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := db.Write(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func fixturesOf(t *testing.T, db *store.DB, d sim.Demo) sim.Fixtures {
	t.Helper()
	var f sim.Fixtures
	err := db.Read(context.Background(), func(tx *store.Tx) error {
		var err error
		f, err = d.Fixtures(tx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// userTokenWorks reports whether token is a live access token.
func userTokenWorks(t *testing.T, db *store.DB, token string) bool {
	t.Helper()
	var found bool
	err := db.Read(context.Background(), func(tx *store.Tx) error {
		_, err := tx.LookupAccessToken(store.HashSecret(token))
		found = err == nil
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestDemoEnsureSeedsOnceAndFollowsTheServer(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	demo := sim.Demo{AdminKey: "first-key", POSURL: "http://127.0.0.1:1" + sim.DemoPOSPath}
	ensure := func(d sim.Demo) []int64 {
		var changed []int64
		write(t, db, func(tx *store.Tx) error {
			var err error
			changed, err = d.Ensure(tx)
			return err
		})
		return changed
	}

	seeded := ensure(demo)
	f := fixturesOf(t, db, demo)
	if len(f.Users) != sim.DemoUsers || len(f.Locations) != len(sim.DemoLocations) || len(f.APIKeys) != len(sim.DemoAPIKeyScopes) {
		t.Fatalf("fixture %+v", f)
	}
	var ids []int64
	for _, l := range f.Locations {
		ids = append(ids, l.LocationID)
	}
	if !slices.Equal(seeded, ids) {
		t.Errorf("first start registered %v, want every demo location %v", seeded, ids)
	}
	if f.Users[0].AccessToken != sim.DemoUserToken("first-key", 1) || !userTokenWorks(t, db, f.Users[0].AccessToken) {
		t.Errorf("demo user token %q is not the derived, working one", f.Users[0].AccessToken)
	}

	if changed := ensure(demo); changed != nil {
		t.Errorf("a restart with nothing changed registered %v", changed)
	}

	// Another port: the demo locations follow it.
	moved := sim.Demo{AdminKey: "first-key", POSURL: "http://127.0.0.1:2" + sim.DemoPOSPath}
	if changed := ensure(moved); !slices.Equal(changed, ids) {
		t.Errorf("after a move registered %v, want %v", changed, ids)
	}

	// A location on its own part of the demo POS (a demo-pos mode) keeps
	// it across a move.
	write(t, db, func(tx *store.Tx) error { return moved.WireLocation(tx, ids[0]) })
	third := sim.Demo{AdminKey: "first-key", POSURL: "http://127.0.0.1:3" + sim.DemoPOSPath}
	if changed := ensure(third); !slices.Equal(changed, ids) {
		t.Errorf("after a second move registered %v, want %v", changed, ids)
	}
	write(t, db, func(tx *store.Tx) error {
		l, err := tx.GetLocation(ids[0])
		if err == nil && (l.POSURL == nil || *l.POSURL != third.LocationPOSURL(ids[0])) {
			t.Errorf("the location's own demo POS URL = %v, want %s", l.POSURL, third.LocationPOSURL(ids[0]))
		}
		return err
	})
	moved = third

	// Another admin key: every credential is derived anew, the old stop
	// working, and the rows stay.
	rekeyed := sim.Demo{AdminKey: "second-key", POSURL: moved.POSURL}
	if changed := ensure(rekeyed); !slices.Equal(changed, ids) {
		t.Errorf("after a new admin key registered %v, want %v (a new demo POS token)", changed, ids)
	}
	write(t, db, func(tx *store.Tx) error {
		for _, id := range ids {
			l, err := tx.GetLocation(id)
			if err != nil {
				return err
			}
			// Sealed under the new key: it opens with it, to the new token.
			if token, err := store.NewPOSTokens("second-key").Open(id, l.POSTokenSealed); err != nil || token != sim.DemoPOSToken("second-key") {
				t.Errorf("location %d: the demo POS token opens to %q, %v", id, token, err)
			}
		}
		return nil
	})
	g := fixturesOf(t, db, rekeyed)
	if g.Users[0].UserID != f.Users[0].UserID || g.Users[0].AccessToken != sim.DemoUserToken("second-key", 1) {
		t.Errorf("after a new admin key: %+v", g.Users[0])
	}
	if userTokenWorks(t, db, f.Users[0].AccessToken) || !userTokenWorks(t, db, g.Users[0].AccessToken) {
		t.Error("the old demo token still works, or the new one does not")
	}
	err := db.Read(context.Background(), func(tx *store.Tx) error {
		_, _, err := tx.LookupAPIKey(store.HashSecret(sim.DemoAPIKey("second-key", 1)))
		return err
	})
	if err != nil {
		t.Errorf("the re-derived API key: %v", err)
	}
}

func TestWipeForgetsTheFixtureAndTheClock(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	demo := sim.Demo{AdminKey: "k", POSURL: "http://127.0.0.1:1" + sim.DemoPOSPath}
	write(t, db, func(tx *store.Tx) error {
		_, err := demo.Seed(tx)
		return err
	})
	write(t, db, func(tx *store.Tx) error {
		next, err := sim.AdvanceClock(tx, 90*time.Second)
		if next != 90*time.Second {
			t.Errorf("AdvanceClock = %v, want 1m30s", next)
		}
		return err
	})
	write(t, db, func(tx *store.Tx) error {
		next, err := sim.AdvanceClock(tx, 10*time.Second)
		if next != 100*time.Second {
			t.Errorf("AdvanceClock again = %v, want 1m40s", next)
		}
		return err
	})

	write(t, db, sim.Wipe)
	if f := fixturesOf(t, db, demo); len(f.Users)+len(f.Locations)+len(f.APIKeys) != 0 {
		t.Errorf("fixture after a wipe: %+v", f)
	}
	err := db.Read(context.Background(), func(tx *store.Tx) error {
		d, err := sim.ClockOffset(tx)
		if d != 0 {
			t.Errorf("clock offset after a wipe: %v", d)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if userTokenWorks(t, db, sim.DemoUserToken("k", 1)) {
		t.Error("a demo token works after a wipe")
	}
}
