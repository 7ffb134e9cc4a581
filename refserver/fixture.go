package refserver

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hospo-dev/hospo-go/refserver/sandbox"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Entries of sandbox_state owned by the core.
const (
	stateClockOffset = "clock_offset_seconds" // virtual clock offset, integer seconds
	stateDemoFixture = "demo_fixture"         // demoState as JSON
)

// demoState records which rows make up the demo fixture and which admin
// key its credentials were derived from (by fingerprint), so that a restart
// with another admin key re-derives them.
type demoState struct {
	UserIDs     []int64 `json:"userIds"`
	LocationIDs []int64 `json:"locationIds"`
	APIKeyIDs   []int64 `json:"apiKeyIds"`
	Fingerprint string  `json:"fingerprint"`
}

// newSecret returns a fresh random credential: prefix plus 192 random bits.
func newSecret(prefix string) string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// demoPOSURL is where the demo locations' universal POS is served.
func (s *Server) demoPOSURL() string { return s.cfg.BaseURL + sandbox.DemoPOSPath }

// ensureFixture creates the demo fixture on first start. On later starts it
// re-derives the demo credentials if the admin key changed and points the
// demo locations at this run's base URL (tests start on random ports). It
// returns the locations whose universal POS registration is new or changed.
func (s *Server) ensureFixture(ctx context.Context) ([]int64, error) {
	var changed []int64
	err := s.db.Write(ctx, func(tx *store.Tx) error {
		ds, found, err := loadDemoState(tx)
		if err != nil {
			return err
		}
		if !found {
			ds, err = s.seedFixture(tx)
			changed = ds.LocationIDs
			return err
		}
		if fp := sandbox.AdminKeyFingerprint(s.cfg.AdminKey); ds.Fingerprint != fp {
			if err := s.rederiveDemo(tx, ds); err != nil {
				return err
			}
			ds.Fingerprint = fp
			if err := saveDemoState(tx, ds); err != nil {
				return err
			}
		}
		url, token := s.demoPOSURL(), sandbox.DemoPOSToken(s.cfg.AdminKey)
		for _, id := range ds.LocationIDs {
			l, err := tx.GetLocation(id)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			// Only locations still wired to a demo POS follow the base URL.
			if l.POSURL == nil || !strings.HasSuffix(*l.POSURL, sandbox.DemoPOSPath) {
				continue
			}
			if *l.POSURL == url && l.POSToken != nil && *l.POSToken == token {
				continue
			}
			if err := tx.SetLocationPOS(id, &url, &token); err != nil {
				return err
			}
			changed = append(changed, id)
		}
		return nil
	})
	return changed, err
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

// seedFixture creates the demo fixture: users, locations wired to the demo
// universal POS, and API keys, all with credentials derived from the admin
// key so that only their hashes are stored.
func (s *Server) seedFixture(tx *store.Tx) (demoState, error) {
	key := s.cfg.AdminKey
	ds := demoState{Fingerprint: sandbox.AdminKeyFingerprint(key)}
	for n := 1; n <= sandbox.DemoUsers; n++ {
		id, err := tx.InsertUser()
		if err != nil {
			return ds, err
		}
		if err := tx.InsertUserToken(store.HashSecret(sandbox.DemoUserToken(key, n)), id, nil); err != nil {
			return ds, err
		}
		ds.UserIDs = append(ds.UserIDs, id)
	}
	url, token := s.demoPOSURL(), sandbox.DemoPOSToken(key)
	for i, dl := range sandbox.DemoLocations {
		id, err := tx.InsertLocation(dl.Name, dl.Gateway, &url, &token)
		if err != nil {
			return ds, err
		}
		if err := tx.InsertPOSToken(store.HashSecret(sandbox.DemoPOSAccessToken(key, i+1)), id); err != nil {
			return ds, err
		}
		ds.LocationIDs = append(ds.LocationIDs, id)
	}
	for i, scope := range sandbox.DemoAPIKeyScopes {
		locs := make([]int64, len(scope))
		for j, li := range scope {
			locs[j] = ds.LocationIDs[li]
		}
		id, err := tx.InsertAPIKey(store.HashSecret(sandbox.DemoAPIKey(key, i+1)), locs)
		if err != nil {
			return ds, err
		}
		ds.APIKeyIDs = append(ds.APIKeyIDs, id)
	}
	return ds, saveDemoState(tx, ds)
}

// rederiveDemo replaces the demo credentials' hashes with those derived
// from the current admin key; the old ones stop working.
func (s *Server) rederiveDemo(tx *store.Tx, ds demoState) error {
	key := s.cfg.AdminKey
	if err := tx.DeleteTokensOf(store.TokenKindUser, ds.UserIDs); err != nil {
		return err
	}
	for i, id := range ds.UserIDs {
		if err := tx.InsertUserToken(store.HashSecret(sandbox.DemoUserToken(key, i+1)), id, nil); err != nil {
			return err
		}
	}
	if err := tx.DeleteTokensOf(store.TokenKindPOS, ds.LocationIDs); err != nil {
		return err
	}
	for i, id := range ds.LocationIDs {
		if err := tx.InsertPOSToken(store.HashSecret(sandbox.DemoPOSAccessToken(key, i+1)), id); err != nil {
			return err
		}
	}
	for i, id := range ds.APIKeyIDs {
		if err := tx.SetAPIKeyHash(id, store.HashSecret(sandbox.DemoAPIKey(key, i+1))); err != nil {
			return err
		}
	}
	return nil
}

// fixtures returns the demo fixture with its credentials re-derived from
// the admin key.
func (s *Server) fixtures(tx *store.Tx) (sandbox.Fixtures, error) {
	f := sandbox.Fixtures{Users: []sandbox.FixtureUser{}, Locations: []sandbox.FixtureLocation{}, APIKeys: []sandbox.FixtureAPIKey{}}
	ds, found, err := loadDemoState(tx)
	if err != nil || !found {
		return f, err
	}
	key := s.cfg.AdminKey
	for i, id := range ds.UserIDs {
		f.Users = append(f.Users, sandbox.FixtureUser{UserID: id, AccessToken: sandbox.DemoUserToken(key, i+1)})
	}
	for i, id := range ds.LocationIDs {
		l, err := tx.GetLocation(id)
		if err != nil {
			return f, fmt.Errorf("demo location %d: %w", id, err)
		}
		f.Locations = append(f.Locations, sandbox.FixtureLocation{
			LocationID: id, Name: l.Name, Gateway: l.Gateway,
			POSAccessToken: sandbox.DemoPOSAccessToken(key, i+1),
		})
	}
	for i, id := range ds.APIKeyIDs {
		locs, err := tx.APIKeyLocations(id)
		if err != nil {
			return f, err
		}
		f.APIKeys = append(f.APIKeys, sandbox.FixtureAPIKey{APIKey: sandbox.DemoAPIKey(key, i+1), LocationIDs: locs})
	}
	return f, nil
}

// wipeSandbox empties every table and puts the clock back at real time.
// The fresh fixture is seeded in a second transaction, so that its rows are
// stamped with the reset clock (a transaction's time is fixed at its
// start); a crash in between is repaired by the next start, which seeds a
// missing fixture.
func (s *Server) wipeSandbox(tx *store.Tx) error {
	if err := tx.WipeData(); err != nil {
		return err
	}
	if err := tx.DeleteState(stateDemoFixture); err != nil {
		return err
	}
	if err := tx.SetState(stateClockOffset, strconv.Itoa(0)); err != nil {
		return err
	}
	tx.AfterCommit(func() {
		s.clock.SetOffset(0)
		s.lastPurge.Store(0)
	})
	return nil
}
