package refserver

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sandbox"
	"github.com/hospo-dev/hospo-go/refserver/store"
	sandboxapi "github.com/hospo-dev/hospo-go/sandbox"
)

// sandboxAPI serves the sandbox's own endpoints: the admin API and the
// sandbox payment providers.
type sandboxAPI struct{ *Server }

// gateways are the payment providers a location can use.
var gateways = []string{"providerA", "providerB", "providerC", "providerD", "providerE"}

// handleFixtures is GET /sandbox/fixtures: the demo fixture's credentials.
func (s sandboxAPI) handleFixtures(w http.ResponseWriter, r *http.Request) {
	var f sandbox.Fixtures
	err := s.db.Read(r.Context(), func(tx *store.Tx) error {
		var err error
		f, err = s.demo.Fixtures(tx)
		return err
	})
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	s.api.JSON(w, r, http.StatusOK, f)
}

type createUserResponse = sandboxapi.User

// handleCreateUser is POST /sandbox/users: a new user and its access
// token, shown this once. No body is needed.
func (s sandboxAPI) handleCreateUser(http.ResponseWriter, *http.Request) (api.Write, error) {
	return func(tx *store.Tx) (any, error) {
		id, err := tx.InsertUser()
		if err != nil {
			return nil, err
		}
		token := sandbox.NewCredential(sandbox.UserTokenPrefix)
		if err := tx.InsertUserToken(store.HashSecret(token), id, nil); err != nil {
			return nil, err
		}
		return createUserResponse{UserID: id, AccessToken: token}, nil
	}, nil
}

type createLocationRequest struct {
	Name     string  `json:"name"`
	Gateway  string  `json:"gateway"`
	POSURL   *string `json:"posUrl"`
	POSToken *string `json:"posToken"`
}

type createLocationResponse struct {
	LocationID     int64  `json:"locationId"`
	POSAccessToken string `json:"posAccessToken"`
}

// handleCreateLocation is POST /sandbox/locations: a location with its POS
// access token (shown this once), optionally wired to a universal POS at
// posUrl that accepts the bearer token posToken.
func (s sandboxAPI) handleCreateLocation(_ http.ResponseWriter, r *http.Request) (api.Write, error) {
	var req createLocationRequest
	// Name every failing field at once: missing ones and invalid ones.
	bad, err := api.Decode(r, &req, "name", "gateway")
	if err != nil {
		return nil, err
	}
	switch name := strings.TrimSpace(req.Name); {
	case bad["name"] != "":
	case name == "":
		bad["name"] = "must not be empty"
	case utf8.RuneCountInString(req.Name) > 200:
		bad["name"] = "must be at most 200 characters"
	}
	if bad["gateway"] == "" && !slices.Contains(gateways, req.Gateway) {
		bad["gateway"] = "must be one of " + strings.Join(gateways, ", ")
	}
	if req.POSURL != nil {
		u, err := url.Parse(*req.POSURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			bad["posUrl"] = "must be an absolute http or https URL"
		}
	}
	if req.POSToken != nil {
		switch {
		case req.POSURL == nil:
			bad["posToken"] = "needs posUrl"
		case *req.POSToken == "" || len(*req.POSToken) > 4096:
			bad["posToken"] = "must be 1 to 4096 characters"
		}
	}
	if len(bad) > 0 {
		return nil, validationErr(bad)
	}
	if req.POSURL != nil {
		trimmed := strings.TrimRight(*req.POSURL, "/")
		req.POSURL = &trimmed
	}
	return func(tx *store.Tx) (any, error) {
		id, err := tx.InsertLocation(strings.TrimSpace(req.Name), req.Gateway, req.POSURL, req.POSToken)
		if err != nil {
			return nil, err
		}
		token := sandbox.NewCredential(sandbox.POSTokenPrefix)
		if err := tx.InsertPOSToken(store.HashSecret(token), id); err != nil {
			return nil, err
		}
		if req.POSURL != nil {
			tx.AfterCommit(func() { s.monitor.Registered(id) })
		}
		return createLocationResponse{LocationID: id, POSAccessToken: token}, nil
	}, nil
}

type createAPIKeyRequest struct {
	LocationIDs []int64 `json:"locationIds"`
}

type createAPIKeyResponse = sandboxapi.APIKey

// handleCreateAPIKey is POST /sandbox/api-keys: a vendor API key scoped to
// the given locations, shown this once.
func (s sandboxAPI) handleCreateAPIKey(_ http.ResponseWriter, r *http.Request) (api.Write, error) {
	var req createAPIKeyRequest
	bad, err := api.Decode(r, &req, "locationIds")
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, validationErr(bad)
	}
	if len(req.LocationIDs) == 0 {
		return nil, validationErr(map[string]string{"locationIds": "must name at least one location"})
	}
	return func(tx *store.Tx) (any, error) {
		missing, err := tx.MissingLocations(req.LocationIDs)
		if err != nil {
			return nil, err
		}
		if len(missing) > 0 {
			bad := map[string]string{}
			for i, id := range req.LocationIDs {
				if slices.Contains(missing, id) {
					bad["locationIds["+strconv.Itoa(i)+"]"] = "unknown location"
				}
			}
			return nil, validationErr(bad)
		}
		locs := slices.Clone(req.LocationIDs)
		slices.Sort(locs)
		locs = slices.Compact(locs)
		key := sandbox.NewCredential(sandbox.APIKeyPrefix)
		id, err := tx.InsertAPIKey(store.HashSecret(key), locs)
		if err != nil {
			return nil, err
		}
		return createAPIKeyResponse{APIKey: key, KeyID: id, LocationIDs: locs}, nil
	}, nil
}

type clockResponse struct {
	ServerTime    int64 `json:"serverTime"`
	OffsetSeconds int64 `json:"offsetSeconds"`
}

// handleGetClock is GET /sandbox/clock.
func (s sandboxAPI) handleGetClock(w http.ResponseWriter, r *http.Request) {
	s.api.JSON(w, r, http.StatusOK, clockResponse{
		ServerTime:    s.clock.Now().Unix(),
		OffsetSeconds: int64(s.clock.Offset() / time.Second),
	})
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
func (s sandboxAPI) handleAdvanceClock(_ http.ResponseWriter, r *http.Request) (api.Write, error) {
	var req advanceClockRequest
	bad, err := api.Decode(r, &req, "advanceSeconds")
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, validationErr(bad)
	}
	if req.AdvanceSeconds < 0 || req.AdvanceSeconds > maxAdvance {
		return nil, validationErr(map[string]string{"advanceSeconds": fmt.Sprintf("must be between 0 and %d", maxAdvance)})
	}
	return func(tx *store.Tx) (any, error) {
		step := time.Duration(req.AdvanceSeconds) * time.Second
		next, err := sandbox.AdvanceClock(tx, step)
		if err != nil {
			return nil, err
		}
		tx.AfterCommit(func() { s.clock.SetOffset(next) })
		return clockResponse{
			ServerTime:    tx.Now().Add(step).Unix(),
			OffsetSeconds: int64(next / time.Second),
		}, nil
	}, nil
}

// handleReset is POST /sandbox/reset: every table emptied, a fresh demo
// fixture, the clock back at real time and all faults cleared. It answers
// with the new fixture (as GET /sandbox/fixtures). The wipe is a
// transaction of its own, before the write that seeds the fixture.
func (s sandboxAPI) handleReset(_ http.ResponseWriter, r *http.Request) (api.Write, error) {
	err := s.db.Write(r.Context(), func(tx *store.Tx) error {
		if err := sandbox.Wipe(tx); err != nil {
			return err
		}
		tx.AfterCommit(func() {
			s.clock.SetOffset(0)
			s.lastPurge.Store(0)
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.faults.Clear()
	return func(tx *store.Tx) (any, error) {
		locations, err := s.demo.Seed(tx)
		if err != nil {
			return nil, err
		}
		tx.AfterCommit(func() {
			for _, id := range locations {
				s.monitor.Registered(id)
			}
		})
		return s.demo.Fixtures(tx)
	}, nil
}

type faultsResponse struct {
	Faults []sandbox.Fault `json:"faults"`
}

// handleListFaults is GET /sandbox/faults: the active faults.
func (s sandboxAPI) handleListFaults(w http.ResponseWriter, r *http.Request) {
	s.api.JSON(w, r, http.StatusOK, faultsResponse{Faults: s.faults.List()})
}

type addFaultRequest struct {
	Method      string `json:"method"`
	PathPrefix  string `json:"pathPrefix"`
	Status      int    `json:"status"`
	Count       *int   `json:"count"`
	LatencyMs   int    `json:"latencyMs"`
	AfterCommit bool   `json:"afterCommit"`
}

var faultMethods = []string{"", "*", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// maxFaultLatency caps injected latency at one minute.
const maxFaultLatency = 60_000

// handleAddFault is POST /sandbox/faults. method "" or "*" matches any
// method; status 0 injects latency only; count defaults to 1.
func (s sandboxAPI) handleAddFault(_ http.ResponseWriter, r *http.Request) (api.Write, error) {
	var req addFaultRequest
	bad, err := api.Decode(r, &req, "pathPrefix")
	if err != nil {
		return nil, err
	}
	if !slices.Contains(faultMethods, strings.ToUpper(req.Method)) {
		bad["method"] = "must be an HTTP method, \"*\" or empty"
	}
	switch {
	case bad["pathPrefix"] != "":
	case !strings.HasPrefix(req.PathPrefix, "/"):
		bad["pathPrefix"] = "must start with /"
	case isAdminRoute(s.admin, req.PathPrefix):
		// Admin endpoints are never faulted, so such a fault could never
		// fire: surely a mistake, say so.
		bad["pathPrefix"] = "must not name the sandbox admin endpoints"
	}
	if req.Status != 0 && (req.Status < 400 || req.Status > 599) {
		bad["status"] = "must be 0 (latency only) or 400-599"
	}
	count := 1
	if req.Count != nil {
		count = *req.Count
	}
	if count < 1 || count > 1000 {
		bad["count"] = "must be between 1 and 1000"
	}
	if req.LatencyMs < 0 || req.LatencyMs > maxFaultLatency {
		bad["latencyMs"] = fmt.Sprintf("must be between 0 and %d", maxFaultLatency)
	}
	if req.Status == 0 && req.LatencyMs == 0 {
		bad["status"] = "a fault needs a status or a latency"
	}
	if len(bad) > 0 {
		return nil, validationErr(bad)
	}
	// The faults live in memory, not in the transaction: the Write only
	// gives the answer its idempotency record.
	return func(*store.Tx) (any, error) {
		return s.faults.Add(sandbox.Fault{
			Method:      req.Method,
			PathPrefix:  req.PathPrefix,
			Status:      req.Status,
			Count:       count,
			LatencyMs:   req.LatencyMs,
			AfterCommit: req.AfterCommit,
		}), nil
	}, nil
}

// handleClearFaults is DELETE /sandbox/faults: removes every fault.
func (s sandboxAPI) handleClearFaults(w http.ResponseWriter, r *http.Request) {
	s.faults.Clear()
	w.WriteHeader(http.StatusNoContent)
}
