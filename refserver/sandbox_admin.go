package refserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/sandbox"
	"github.com/hospo-dev/hospo-go/refserver/store"
	sandboxapi "github.com/hospo-dev/hospo-go/sandbox"
)

// gateways are the payment providers a location can use.
var gateways = []string{"providerA", "providerB", "providerC", "providerD", "providerE"}

// mountSandbox mounts the sandbox admin API (contract.md section 6) and the
// public CA certificate.
func (s *Server) mountSandbox(r chi.Router) {
	r.Get("/sandbox/ca.pem", s.handleCAPEM)
	r.Group(func(r chi.Router) {
		r.Use(s.requireAdmin)
		r.Get("/sandbox/fixtures", s.handleFixtures)
		r.Post("/sandbox/users", s.handleCreateUser)
		r.Post("/sandbox/locations", s.handleCreateLocation)
		r.Post("/sandbox/api-keys", s.handleCreateAPIKey)
		r.Get("/sandbox/clock", s.handleGetClock)
		r.Post("/sandbox/clock", s.handleAdvanceClock)
		r.Post("/sandbox/reset", s.handleReset)
		r.Get("/sandbox/faults", s.handleListFaults)
		r.Post("/sandbox/faults", s.handleAddFault)
		r.Delete("/sandbox/faults", s.handleClearFaults)
	})
}

// handleCAPEM serves the certificate a client must trust for the HTTPS
// listener. Public: it holds no secret.
func (s *Server) handleCAPEM(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/x-pem-file")
	w.Header().Set("Content-Length", strconv.Itoa(len(s.cert.CertPEM)))
	_, _ = w.Write(s.cert.CertPEM)
}

// handleFixtures is GET /sandbox/fixtures: the demo fixture's credentials.
func (s *Server) handleFixtures(w http.ResponseWriter, r *http.Request) {
	var f sandbox.Fixtures
	err := s.db.Read(r.Context(), func(tx *store.Tx) error {
		var err error
		f, err = s.demo.Fixtures(tx)
		return err
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, f)
}

type createUserResponse = sandboxapi.User

// handleCreateUser is POST /sandbox/users: a new user and its access
// token, shown this once. No body is needed.
func (s *Server) handleCreateUser(w http.ResponseWriter, r *http.Request) {
	s.mutate(w, r, http.StatusCreated, func(tx *store.Tx) (any, error) {
		id, err := tx.InsertUser()
		if err != nil {
			return nil, err
		}
		token := sandbox.NewCredential(sandbox.UserTokenPrefix)
		if err := tx.InsertUserToken(store.HashSecret(token), id, nil); err != nil {
			return nil, err
		}
		return createUserResponse{UserID: id, AccessToken: token}, nil
	})
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
func (s *Server) handleCreateLocation(w http.ResponseWriter, r *http.Request) {
	var req createLocationRequest
	if err := s.decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	// Name every failing field at once: missing ones and invalid ones.
	bad := s.missing(r, "name", "gateway")
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
		s.writeError(w, r, validationErr(bad))
		return
	}
	if req.POSURL != nil {
		trimmed := strings.TrimRight(*req.POSURL, "/")
		req.POSURL = &trimmed
	}
	s.mutate(w, r, http.StatusCreated, func(tx *store.Tx) (any, error) {
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
	})
}

type createAPIKeyRequest struct {
	LocationIDs []int64 `json:"locationIds"`
}

type createAPIKeyResponse = sandboxapi.APIKey

// handleCreateAPIKey is POST /sandbox/api-keys: a vendor API key scoped to
// the given locations, shown this once.
func (s *Server) handleCreateAPIKey(w http.ResponseWriter, r *http.Request) {
	var req createAPIKeyRequest
	if err := s.decodeBody(r, &req, "locationIds"); err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(req.LocationIDs) == 0 {
		s.writeError(w, r, validationErr(map[string]string{"locationIds": "must name at least one location"}))
		return
	}
	s.mutate(w, r, http.StatusCreated, func(tx *store.Tx) (any, error) {
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
	})
}

type clockResponse struct {
	ServerTime    int64 `json:"serverTime"`
	OffsetSeconds int64 `json:"offsetSeconds"`
}

// handleGetClock is GET /sandbox/clock.
func (s *Server) handleGetClock(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, r, http.StatusOK, clockResponse{
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
func (s *Server) handleAdvanceClock(w http.ResponseWriter, r *http.Request) {
	var req advanceClockRequest
	if err := s.decodeBody(r, &req, "advanceSeconds"); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.AdvanceSeconds < 0 || req.AdvanceSeconds > maxAdvance {
		s.writeError(w, r, validationErr(map[string]string{"advanceSeconds": fmt.Sprintf("must be between 0 and %d", maxAdvance)}))
		return
	}
	s.mutate(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
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
	})
}

// handleReset is POST /sandbox/reset: every table emptied, a fresh demo
// fixture, the clock back at real time and all faults cleared. It answers
// with the new fixture (as GET /sandbox/fixtures).
func (s *Server) handleReset(w http.ResponseWriter, r *http.Request) {
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
		s.writeError(w, r, err)
		return
	}
	s.faults.Clear()
	var (
		body      []byte
		locations []int64
	)
	err = s.db.Write(r.Context(), func(tx *store.Tx) error {
		var err error
		if locations, err = s.demo.Seed(tx); err != nil {
			return err
		}
		f, err := s.demo.Fixtures(tx)
		if err != nil {
			return err
		}
		if body, err = json.Marshal(f); err != nil {
			return err
		}
		return s.remember(tx, stateOf(r), http.StatusOK, body)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	for _, id := range locations {
		s.monitor.Registered(id)
	}
	writeRaw(w, http.StatusOK, body)
}

type faultsResponse struct {
	Faults []sandbox.Fault `json:"faults"`
}

// handleListFaults is GET /sandbox/faults: the active faults.
func (s *Server) handleListFaults(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, r, http.StatusOK, faultsResponse{Faults: s.faults.List()})
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
func (s *Server) handleAddFault(w http.ResponseWriter, r *http.Request) {
	var req addFaultRequest
	if err := s.decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	bad := s.missing(r, "pathPrefix")
	if !slices.Contains(faultMethods, strings.ToUpper(req.Method)) {
		bad["method"] = "must be an HTTP method, \"*\" or empty"
	}
	switch {
	case bad["pathPrefix"] != "":
	case !strings.HasPrefix(req.PathPrefix, "/"):
		bad["pathPrefix"] = "must start with /"
	case isAdminPath(req.PathPrefix):
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
		s.writeError(w, r, validationErr(bad))
		return
	}
	f := s.faults.Add(sandbox.Fault{
		Method:      req.Method,
		PathPrefix:  req.PathPrefix,
		Status:      req.Status,
		Count:       count,
		LatencyMs:   req.LatencyMs,
		AfterCommit: req.AfterCommit,
	})
	s.writeJSON(w, r, http.StatusCreated, f)
}

// handleClearFaults is DELETE /sandbox/faults: removes every fault.
func (s *Server) handleClearFaults(w http.ResponseWriter, r *http.Request) {
	s.faults.Clear()
	w.WriteHeader(http.StatusNoContent)
}
