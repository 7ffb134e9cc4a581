package rules

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// The sandbox admin API's rules (contract.md section 6). Its request types
// are the server's own: the SDK's (package sandbox) leave out what is
// empty, and the server tells a posUrl or count sent empty or zero, which
// it refuses, from one left out.

// Gateways are the payment providers a location can use.
var Gateways = []string{"providerA", "providerB", "providerC", "providerD", "providerE"}

// CreateUser makes a user and its access token, shown this once (POST
// /sandbox/users).
func CreateUser(tx *store.Tx) (sandbox.User, error) {
	id, err := tx.InsertUser()
	if err != nil {
		return sandbox.User{}, err
	}
	token := sim.NewCredential(sim.UserTokenPrefix)
	if err := tx.InsertUserToken(store.HashSecret(token), id, nil); err != nil {
		return sandbox.User{}, err
	}
	return sandbox.User{UserID: id, AccessToken: token}, nil
}

// LocationRequest is the body of POST /sandbox/locations.
type LocationRequest struct {
	Name     string  `json:"name"`
	Gateway  string  `json:"gateway"`
	POSURL   *string `json:"posUrl"`
	POSToken *string `json:"posToken"`
}

// CreatedLocation is the answer to POST /sandbox/locations.
type CreatedLocation struct {
	LocationID     int64  `json:"locationId"`
	POSAccessToken string `json:"posAccessToken"`
}

// CheckLocation checks a location body raw, decoded into req, and returns
// a 400002 naming every failing field, missing ones and invalid ones alike
// (nil when none fails).
func CheckLocation(raw []byte, req *LocationRequest) error {
	bad := missing(raw, "name", "gateway")
	switch name := strings.TrimSpace(req.Name); {
	case bad["name"] != "":
	case name == "":
		bad["name"] = "must not be empty"
	case utf8.RuneCountInString(req.Name) > 200:
		bad["name"] = "must be at most 200 characters"
	}
	if bad["gateway"] == "" && !slices.Contains(Gateways, req.Gateway) {
		bad["gateway"] = "must be one of " + strings.Join(Gateways, ", ")
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
		return api.Invalid(bad)
	}
	return nil
}

// CreateLocation makes a location with its POS access token, shown this
// once (POST /sandbox/locations), optionally wired to a universal POS at
// posUrl that accepts the bearer token posToken, which is kept only
// sealed with tokens. req has passed CheckLocation.
func CreateLocation(tx *store.Tx, tokens store.POSTokens, req LocationRequest) (CreatedLocation, error) {
	id, err := tx.InsertLocation(strings.TrimSpace(req.Name), req.Gateway)
	if err != nil {
		return CreatedLocation{}, err
	}
	if req.POSURL != nil {
		posURL := strings.TrimRight(*req.POSURL, "/")
		if err := tx.SetLocationPOS(tokens, id, &posURL, req.POSToken); err != nil {
			return CreatedLocation{}, err
		}
	}
	token := sim.NewCredential(sim.POSTokenPrefix)
	if err := tx.InsertPOSToken(store.HashSecret(token), id); err != nil {
		return CreatedLocation{}, err
	}
	return CreatedLocation{LocationID: id, POSAccessToken: token}, nil
}

// APIKeyRequest is the body of POST /sandbox/api-keys.
type APIKeyRequest struct {
	LocationIDs []int64 `json:"locationIds"`
}

// CheckAPIKey checks an API key body raw, decoded into req: a 400002 when
// it names no location.
func CheckAPIKey(raw []byte, req *APIKeyRequest) error {
	if bad := missing(raw, "locationIds"); len(bad) > 0 {
		return api.Invalid(bad)
	}
	if len(req.LocationIDs) == 0 {
		return api.Invalid(map[string]string{"locationIds": "must name at least one location"})
	}
	return nil
}

// CreateAPIKey makes a vendor API key scoped to the locations of req,
// shown this once (POST /sandbox/api-keys); each unknown location is named
// in a 400002. req has passed CheckAPIKey.
func CreateAPIKey(tx *store.Tx, req APIKeyRequest) (sandbox.APIKey, error) {
	unknown, err := tx.MissingLocations(req.LocationIDs)
	if err != nil {
		return sandbox.APIKey{}, err
	}
	if len(unknown) > 0 {
		bad := map[string]string{}
		for i, id := range req.LocationIDs {
			if slices.Contains(unknown, id) {
				bad["locationIds["+strconv.Itoa(i)+"]"] = "unknown location"
			}
		}
		return sandbox.APIKey{}, api.Invalid(bad)
	}
	locs := slices.Clone(req.LocationIDs)
	slices.Sort(locs)
	locs = slices.Compact(locs)
	key := sim.NewCredential(sim.APIKeyPrefix)
	id, err := tx.InsertAPIKey(store.HashSecret(key), locs)
	if err != nil {
		return sandbox.APIKey{}, err
	}
	return sandbox.APIKey{APIKey: key, KeyID: id, LocationIDs: locs}, nil
}

// FaultRequest is the body of POST /sandbox/faults. Method "" or "*"
// matches any method; status 0 injects latency only; count defaults to 1.
type FaultRequest struct {
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

// NewFault checks a fault body raw, decoded into req, and returns the
// fault to add, or a 400002 naming every failing field. isAdminPath
// reports whether a path is one of the admin endpoints, which are never
// faulted.
func NewFault(raw []byte, req *FaultRequest, isAdminPath func(string) bool) (sim.Fault, error) {
	bad := missing(raw, "pathPrefix")
	if !slices.Contains(faultMethods, strings.ToUpper(req.Method)) {
		bad["method"] = "must be an HTTP method, \"*\" or empty"
	}
	switch {
	case bad["pathPrefix"] != "":
	case !strings.HasPrefix(req.PathPrefix, "/"):
		bad["pathPrefix"] = "must start with /"
	case isAdminPath(req.PathPrefix):
		// Such a fault could never fire: surely a mistake, say so.
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
		return sim.Fault{}, api.Invalid(bad)
	}
	return sim.Fault{
		Method:      req.Method,
		PathPrefix:  req.PathPrefix,
		Status:      req.Status,
		Count:       count,
		LatencyMs:   req.LatencyMs,
		AfterCommit: req.AfterCommit,
	}, nil
}

// missing returns path -> "required" for each of paths missing or null in
// the JSON object raw: an empty map, never nil, to add further findings to.
func missing(raw []byte, paths ...string) map[string]string {
	m := fielderr.Missing(raw, paths...)
	if m == nil {
		m = map[string]string{}
	}
	return m
}
