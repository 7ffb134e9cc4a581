package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// stateDemoFixture is the sandbox_state entry that holds demoState as JSON.
const stateDemoFixture = "demo_fixture"

// demoState records which rows make up the demo fixture and which admin
// key its credentials were derived from (by fingerprint), so that a restart
// with another admin key re-derives them.
type demoState struct {
	UserIDs     []int64 `json:"userIds"`
	LocationIDs []int64 `json:"locationIds"`
	APIKeyIDs   []int64 `json:"apiKeyIds"`
	Fingerprint string  `json:"fingerprint"`
}

// Demo is the demo fixture as one run of the server sees it: the rows are
// in the database, their credentials are derived from the admin key, and
// its locations' universal POS is served by the server itself.
type Demo struct {
	// AdminKey is the key every demo credential is derived from.
	AdminKey string
	// POSURL is where the demo universal POS is served: the server's base
	// URL followed by DemoPOSPath.
	POSURL string
}

// Ensure creates the demo fixture on first start. On later starts it
// re-derives the demo credentials if the admin key changed and points the
// demo locations at this run's POS URL (tests start on random ports). It
// returns the locations whose universal POS registration is new or
// changed, for the POS monitor to check.
func (d Demo) Ensure(tx *store.Tx) (changed []int64, err error) {
	ds, found, err := loadDemoState(tx)
	if err != nil {
		return nil, err
	}
	if !found {
		return d.Seed(tx)
	}
	if fp := AdminKeyFingerprint(d.AdminKey); ds.Fingerprint != fp {
		if err := d.rederive(tx, ds); err != nil {
			return nil, err
		}
		ds.Fingerprint = fp
		if err := saveDemoState(tx, ds); err != nil {
			return nil, err
		}
	}
	tokens, token := d.posTokens(), DemoPOSToken(d.AdminKey)
	for _, id := range ds.LocationIDs {
		l, err := tx.GetLocation(id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		// Only locations still wired to a demo POS follow the base URL,
		// to the whole POS or to the location's own part of it.
		if l.POSURL == nil {
			continue
		}
		var url string
		switch {
		case strings.HasSuffix(*l.POSURL, DemoPOSPath):
			url = d.POSURL
		case strings.HasSuffix(*l.POSURL, demoPOSLocationPath(id)):
			url = d.LocationPOSURL(id)
		default:
			continue
		}
		// A token that does not open (sealed under another admin key) is
		// sealed again, as a changed one is.
		if kept, err := tokens.Open(id, l.POSTokenSealed); *l.POSURL == url && err == nil && kept == token {
			continue
		}
		if err := tx.SetLocationPOS(tokens, id, &url, &token); err != nil {
			return nil, err
		}
		changed = append(changed, id)
	}
	return changed, nil
}

// WireLocation points a location at the demo POS's part that serves it
// (LocationPOSURL), with the demo POS's bearer token, in place of any POS
// it had.
func (d Demo) WireLocation(tx *store.Tx, locationID int64) error {
	url, token := d.LocationPOSURL(locationID), DemoPOSToken(d.AdminKey)
	return tx.SetLocationPOS(d.posTokens(), locationID, &url, &token)
}

// posTokens seals the demo POS's bearer token as the server does every
// POS token: under the admin key, which the Demo holds.
func (d Demo) posTokens() store.POSTokens { return store.NewPOSTokens(d.AdminKey) }

// LocationPOSURL is the URL of the demo POS's part that serves one
// location, whose mode (PUT /sandbox/locations/{id}/demo-pos) its health
// answer follows too.
func (d Demo) LocationPOSURL(locationID int64) string {
	return d.POSURL + demoPOSLocationsDir + strconv.FormatInt(locationID, 10)
}

// demoPOSLocationPath is the path of LocationPOSURL.
func demoPOSLocationPath(locationID int64) string {
	return DemoPOSPath + demoPOSLocationsDir + strconv.FormatInt(locationID, 10)
}

// Seed creates the demo fixture: users, locations wired to the demo
// universal POS, and API keys, all with credentials derived from the admin
// key so that only their hashes are stored. It returns the new locations.
func (d Demo) Seed(tx *store.Tx) (locationIDs []int64, err error) {
	key := d.AdminKey
	ds := demoState{Fingerprint: AdminKeyFingerprint(key)}
	for n := 1; n <= DemoUsers; n++ {
		id, err := tx.InsertUser()
		if err != nil {
			return nil, err
		}
		if err := tx.InsertUserToken(store.HashSecret(DemoUserToken(key, n)), id, nil); err != nil {
			return nil, err
		}
		ds.UserIDs = append(ds.UserIDs, id)
	}
	url, token, tokens := d.POSURL, DemoPOSToken(key), d.posTokens()
	// The demo POS's menus are known here, so the locations have them
	// from the start: an order sent as soon as the fixture exists (right
	// after a reset answers) need not wait for the first menu sync.
	menus, err := json.Marshal(DemoMenus())
	if err != nil {
		return nil, err
	}
	for i, dl := range DemoLocations {
		id, err := tx.InsertLocation(dl.Name, dl.Gateway)
		if err != nil {
			return nil, err
		}
		if err := tx.SetLocationPOS(tokens, id, &url, &token); err != nil {
			return nil, err
		}
		if _, err := tx.SetLocationMenu(id, url, string(menus)); err != nil {
			return nil, err
		}
		if err := tx.InsertPOSToken(store.HashSecret(DemoPOSAccessToken(key, i+1)), id); err != nil {
			return nil, err
		}
		ds.LocationIDs = append(ds.LocationIDs, id)
	}
	for i, scope := range DemoAPIKeyScopes {
		locs := make([]int64, len(scope))
		for j, li := range scope {
			locs[j] = ds.LocationIDs[li]
		}
		id, err := tx.InsertAPIKey(store.HashSecret(DemoAPIKey(key, i+1)), locs)
		if err != nil {
			return nil, err
		}
		ds.APIKeyIDs = append(ds.APIKeyIDs, id)
	}
	return ds.LocationIDs, saveDemoState(tx, ds)
}

// rederive replaces the demo credentials' hashes with those derived from
// the current admin key; the old ones stop working.
func (d Demo) rederive(tx *store.Tx, ds demoState) error {
	key := d.AdminKey
	if err := tx.DeleteTokensOf(store.TokenKindUser, ds.UserIDs); err != nil {
		return err
	}
	for i, id := range ds.UserIDs {
		if err := tx.InsertUserToken(store.HashSecret(DemoUserToken(key, i+1)), id, nil); err != nil {
			return err
		}
	}
	if err := tx.DeleteTokensOf(store.TokenKindPOS, ds.LocationIDs); err != nil {
		return err
	}
	for i, id := range ds.LocationIDs {
		if err := tx.InsertPOSToken(store.HashSecret(DemoPOSAccessToken(key, i+1)), id); err != nil {
			return err
		}
	}
	for i, id := range ds.APIKeyIDs {
		if err := tx.SetAPIKeyHash(id, store.HashSecret(DemoAPIKey(key, i+1))); err != nil {
			return err
		}
	}
	return nil
}

// Fixtures returns the demo fixture with its credentials re-derived from
// the admin key (what GET /sandbox/fixtures shows). It is empty while no
// fixture is seeded.
func (d Demo) Fixtures(tx *store.Tx) (Fixtures, error) {
	f := Fixtures{Users: []FixtureUser{}, Locations: []FixtureLocation{}, APIKeys: []FixtureAPIKey{}}
	ds, found, err := loadDemoState(tx)
	if err != nil || !found {
		return f, err
	}
	key := d.AdminKey
	for i, id := range ds.UserIDs {
		f.Users = append(f.Users, FixtureUser{UserID: id, AccessToken: DemoUserToken(key, i+1)})
	}
	for i, id := range ds.LocationIDs {
		l, err := tx.GetLocation(id)
		if err != nil {
			return f, fmt.Errorf("demo location %d: %w", id, err)
		}
		f.Locations = append(f.Locations, FixtureLocation{
			LocationID: id, Name: l.Name, Gateway: wallet.Gateway(l.Gateway),
			POSAccessToken: DemoPOSAccessToken(key, i+1),
		})
	}
	for i, id := range ds.APIKeyIDs {
		locs, err := tx.APIKeyLocations(id)
		if err != nil {
			return f, err
		}
		f.APIKeys = append(f.APIKeys, FixtureAPIKey{APIKey: DemoAPIKey(key, i+1), LocationIDs: locs})
	}
	return f, nil
}

// Wipe empties every table, forgets the demo fixture and puts the kept
// clock offset back at zero; the caller resets its in-memory clock after
// the commit. The fresh fixture is seeded in a second transaction, so that
// its rows are stamped with the reset clock (a transaction's time is fixed
// at its start); a crash in between is repaired by the next start, which
// seeds a missing fixture.
func Wipe(tx *store.Tx) error {
	if err := tx.WipeData(); err != nil {
		return err
	}
	if err := tx.DeleteState(stateDemoFixture); err != nil {
		return err
	}
	return setClockOffset(tx, 0)
}

func loadDemoState(tx *store.Tx) (demoState, bool, error) {
	var ds demoState
	v, err := tx.State(stateDemoFixture)
	if errors.Is(err, store.ErrNotFound) {
		return ds, false, nil
	}
	if err != nil {
		return ds, false, err
	}
	if err := json.Unmarshal([]byte(v), &ds); err != nil {
		return ds, false, fmt.Errorf("bad %s: %w", stateDemoFixture, err)
	}
	return ds, true, nil
}

func saveDemoState(tx *store.Tx, ds demoState) error {
	b, err := json.Marshal(ds)
	if err != nil {
		return err
	}
	return tx.SetState(stateDemoFixture, string(b))
}
