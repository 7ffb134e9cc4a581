package refserver

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// handleListClosedBills serves GET /v3/location/{locationId}/bills/closed
// (rules.ListClosedBills), streamed. The key's scope is checked before the
// query, so a key that may not see the location learns nothing from the
// answers to different queries.
func (s *Server) handleListClosedBills(r *http.Request) (api.Read, error) {
	locationID, ok := idParam(r, "locationId")
	if !ok {
		return nil, api.NotFound("Location")
	}
	if !api.RequestFrom(r.Context()).Principal().CanSeeLocation(locationID) {
		return nil, api.ErrMsg(client.CodeForbidden, "The API key is not scoped to this location.")
	}
	rng, qerr := parseClosedRange(r.URL.RawQuery)
	if qerr != nil {
		return nil, qerr
	}
	return func(tx *store.Tx) (any, error) {
		info := func() client.RequestInfo { return s.api.Info(r) }
		return rules.ListClosedBills(tx, locationID, rng.from, rng.to, info)
	}, nil
}

// handleGetBill serves GET /v3/bill/{billId}?scope= (rules.GetBill).
func (s *Server) handleGetBill(r *http.Request) (api.Read, error) {
	sc, qerr := parseBillScopes(r.URL.RawQuery)
	if qerr != nil {
		return nil, qerr
	}
	// chi hands over the raw segment when the path has escapes in it.
	billID, err := url.PathUnescape(chi.URLParam(r, "billId"))
	if err != nil {
		return nil, api.NotFound("Bill")
	}
	return func(tx *store.Tx) (any, error) {
		b, err := rules.GetBill(tx, api.RequestFrom(r.Context()).Principal(), billID, sc)
		return bills.BillResponse{Bill: b, RequestInfo: s.api.Info(r)}, err
	}, nil
}

// closedRange is a validated from/to of the closed-bills list in Unix
// seconds, both ends included.
type closedRange struct{ from, to int64 }

// parseClosedRange validates the from and to query parameters of the
// closed-bills list from the raw query string. It is pure, so it can be
// fuzzed, and every failure is a 400003 whose message says what to fix.
//
// The raw query is needed to recognise the most common mistake: an offset
// such as +01:00 sent with an unencoded "+", which form decoding turns into
// a space.
//
// lastUpdated is whole seconds, so a fractional from is rounded up and a
// fractional to down: the result holds exactly the seconds in [from, to].
func parseClosedRange(rawQuery string) (closedRange, *api.Error) {
	q, err := parseQuery(rawQuery)
	if err != nil {
		return closedRange{}, err
	}
	from, aerr := queryTime(q, "from")
	if aerr != nil {
		return closedRange{}, aerr
	}
	to, aerr := queryTime(q, "to")
	if aerr != nil {
		return closedRange{}, aerr
	}
	if from.After(to) {
		return closedRange{}, api.ErrMsg(client.CodeInvalidQuery, "from must not be after to.")
	}
	if to.Sub(from) > bills.MaxRange {
		return closedRange{}, api.ErrMsg(client.CodeInvalidQuery, "The range from..to must not span more than 31 days.")
	}
	rng := closedRange{from: from.Unix(), to: to.Unix()}
	if from.Nanosecond() != 0 {
		rng.from++
	}
	return rng, nil
}

// queryTime reads one ISO 8601 date-time with offset from q.
func queryTime(q url.Values, name string) (time.Time, *api.Error) {
	vals := q[name]
	switch {
	case len(vals) == 0 || vals[0] == "":
		return time.Time{}, api.ErrMsg(client.CodeInvalidQuery,
			name+" is required: an ISO 8601 date-time with offset, such as 2026-05-01T10:00:00Z.")
	case len(vals) > 1:
		return time.Time{}, api.ErrMsg(client.CodeInvalidQuery, name+" must be given once.")
	}
	v := vals[0]
	t, err := client.ParseQueryTime(v)
	if err == nil {
		return t, nil
	}
	// "2026-05-01T10:00:00 01:00": the "+" arrived as a space.
	if i := strings.LastIndexByte(v, ' '); i >= 0 {
		if _, err := client.ParseQueryTime(v[:i] + "+" + v[i+1:]); err == nil {
			return time.Time{}, api.ErrMsg(client.CodeInvalidQuery,
				name+": the + of the offset arrived as a space; URL-encode the + as %2B.")
		}
	}
	return time.Time{}, api.ErrMsg(client.CodeInvalidQuery,
		name+" is not an ISO 8601 date-time with offset, such as 2026-05-01T10:00:00Z or 2026-05-01T10:00:00%2B01:00.")
}

// parseBillScopes validates the scope query parameter (comma-separated, and
// it may be repeated) from the raw query string. It is pure, so it can be
// fuzzed; every failure is a 400003. "scope=" asks for no scope; an empty
// element of a list ("bill.items,,bill.staff") is refused like any other
// unknown scope, since it is most likely a scope lost on the way.
func parseBillScopes(rawQuery string) (rules.BillScopes, *api.Error) {
	q, err := parseQuery(rawQuery)
	if err != nil {
		return rules.BillScopes{}, err
	}
	var sc rules.BillScopes
	for _, v := range q["scope"] {
		if v == "" {
			continue
		}
		for name := range strings.SplitSeq(v, ",") {
			switch bills.Scope(strings.TrimSpace(name)) {
			case "":
				return rules.BillScopes{}, api.ErrMsg(client.CodeInvalidQuery, fmt.Sprintf(
					"Empty scope in %q; separate the scopes with single commas.", truncateRunes(v, 40)))
			case bills.ScopeItems:
				sc.Items = true
			case bills.ScopePayments:
				sc.Payments = true
			case bills.ScopeUsers:
				sc.Users = true
			case bills.ScopeTable:
				sc.Table = true
			case bills.ScopeTableLocation:
				sc.TableLocation = true
			case bills.ScopeStaff:
				sc.Staff = true
			default:
				return rules.BillScopes{}, api.ErrMsg(client.CodeInvalidQuery, fmt.Sprintf(
					"Unknown scope %q; the scopes are bill.items, bill.payments, bill.users, bill.table, table.location and bill.staff.",
					truncateRunes(name, 40)))
			}
		}
	}
	if sc.TableLocation && !sc.Table {
		return rules.BillScopes{}, api.ErrMsg(client.CodeInvalidQuery, "Scope table.location needs bill.table as well.")
	}
	return sc, nil
}

// truncateRunes shortens s to at most n runes, so an error message never
// echoes an arbitrarily long input.
func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "..."
		}
		n--
	}
	return s
}
