package refserver

import (
	"fmt"
	"net/http"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// sandboxAPI serves the sandbox's own endpoints: the admin API and the
// sandbox payment providers.
type sandboxAPI struct{ *Server }

// handleFixtures is GET /sandbox/fixtures: the demo fixture's credentials.
func (s sandboxAPI) handleFixtures(*http.Request) (api.Read, error) {
	return func(tx *store.Tx) (any, error) { return s.demo.Fixtures(tx) }, nil
}

// handleCreateUser is POST /sandbox/users (rules.CreateUser). No body is
// needed.
func (s sandboxAPI) handleCreateUser(*http.Request) (api.Write, error) {
	return func(tx *store.Tx) (any, error) { return rules.CreateUser(tx) }, nil
}

// handleCreateLocation is POST /sandbox/locations (rules.CreateLocation).
// A location with a universal POS is handed to the POS monitor once it is
// committed.
func (s sandboxAPI) handleCreateLocation(r *http.Request) (api.Write, error) {
	var req rules.LocationRequest
	if _, err := api.Decode(r, &req); err != nil {
		return nil, err
	}
	if err := rules.CheckLocation(api.RequestFrom(r.Context()).Body(), &req); err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		loc, err := rules.CreateLocation(tx, s.posTokens, req)
		if err != nil {
			return nil, err
		}
		if req.POSURL != nil {
			tx.AfterCommit(func() { s.monitor.Registered(loc.LocationID) })
		}
		return loc, nil
	}, nil
}

// handleCreateAPIKey is POST /sandbox/api-keys (rules.CreateAPIKey).
func (s sandboxAPI) handleCreateAPIKey(r *http.Request) (api.Write, error) {
	var req rules.APIKeyRequest
	if _, err := api.Decode(r, &req); err != nil {
		return nil, err
	}
	if err := rules.CheckAPIKey(api.RequestFrom(r.Context()).Body(), &req); err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) { return rules.CreateAPIKey(tx, req) }, nil
}

// handleGetClock is GET /sandbox/clock. The clock is in memory: the Read
// only answers.
func (s sandboxAPI) handleGetClock(*http.Request) (api.Read, error) {
	return func(*store.Tx) (any, error) {
		return sandbox.Clock{
			ServerTime:    client.UnixTime{Time: s.clock.Now()},
			OffsetSeconds: int64(s.clock.Offset() / time.Second),
		}, nil
	}, nil
}

type advanceClockRequest struct {
	AdvanceSeconds int64 `json:"advanceSeconds"`
}

// maxAdvance caps one step of the clock at ten years, far beyond any
// expiry the server knows, to keep Unix times sane.
const maxAdvance = 10 * 366 * 24 * 3600

// handleAdvanceClock is POST /sandbox/clock: moves the virtual clock
// forward by advanceSeconds (never backward: expiry and staleness rules
// assume time only moves on).
func (s sandboxAPI) handleAdvanceClock(r *http.Request) (api.Write, error) {
	var req advanceClockRequest
	bad, err := api.Decode(r, &req, "advanceSeconds")
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, api.Invalid(bad)
	}
	if req.AdvanceSeconds < 0 || req.AdvanceSeconds > maxAdvance {
		return nil, api.Invalid(map[string]string{"advanceSeconds": fmt.Sprintf("must be between 0 and %d", maxAdvance)})
	}
	return func(tx *store.Tx) (any, error) {
		step := time.Duration(req.AdvanceSeconds) * time.Second
		next, err := sim.AdvanceClock(tx, step)
		if err != nil {
			return nil, err
		}
		tx.AfterCommit(func() {
			// Before the answer: the work the new time made due runs and
			// commits first, so the caller reads its outcome at once.
			s.clock.SetOffset(next)
			s.catchUp(r.Context())
		})
		return sandbox.Clock{
			ServerTime:    client.UnixTime{Time: tx.Now().Add(step)},
			OffsetSeconds: int64(next / time.Second),
		}, nil
	}, nil
}

// handleReset is POST /sandbox/reset: every table emptied, a fresh demo
// fixture, the clock back at real time and all faults cleared. It answers
// with the new fixture (as GET /sandbox/fixtures). The wipe and the seed
// are one transaction, so no request sees the data in between (a demo
// user without its token, a demo location not there yet), and the
// fixture is ready, its menus included, when the answer is sent.
func (s sandboxAPI) handleReset(r *http.Request) (api.Write, error) {
	return func(tx *store.Tx) (any, error) {
		if err := sim.Wipe(tx); err != nil {
			return nil, err
		}
		// The fixture is stamped by the clock that the reset puts back.
		tx.SetNow(s.clock.Real())
		locations, err := s.demo.Seed(tx)
		if err != nil {
			return nil, err
		}
		fixtures, err := s.demo.Fixtures(tx)
		if err != nil {
			return nil, err
		}
		// Set here rather than after the commit: the writes batched after
		// this one are stamped by the clock as the reset left it.
		s.clock.SetOffset(0)
		tx.AfterCommit(func() {
			s.faults.Clear()
			s.clockMoved()
			for _, id := range locations {
				s.monitor.Registered(id)
			}
		})
		return fixtures, nil
	}, nil
}

// handleListFaults is GET /sandbox/faults: the active faults, which live
// in memory (the Read only answers).
func (s sandboxAPI) handleListFaults(*http.Request) (api.Read, error) {
	return func(*store.Tx) (any, error) { return sandbox.FaultList{Faults: s.faults.List()}, nil }, nil
}

// handleAddFault is POST /sandbox/faults (rules.NewFault).
func (s sandboxAPI) handleAddFault(r *http.Request) (api.Write, error) {
	var req rules.FaultRequest
	if _, err := api.Decode(r, &req); err != nil {
		return nil, err
	}
	isAdmin := func(path string) bool { return isAdminRoute(s.admin, path) }
	f, err := rules.NewFault(api.RequestFrom(r.Context()).Body(), &req, isAdmin)
	if err != nil {
		return nil, err
	}
	// The faults live in memory, not in the transaction: the Write only
	// gives the answer its idempotency record.
	return func(*store.Tx) (any, error) { return s.faults.Add(f), nil }, nil
}

// handleClearFaults is DELETE /sandbox/faults: removes every fault.
func (s sandboxAPI) handleClearFaults(w http.ResponseWriter, r *http.Request) {
	s.faults.Clear()
	w.WriteHeader(http.StatusNoContent)
}
