package refserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// handleListClosedBills serves GET /v3/location/{locationId}/bills/closed:
// the location's closed bills with last_updated in [from, to].
//
// The key's scope is checked before the query, so a key that may not see
// the location learns nothing from the answers to different queries.
func (s *Server) handleListClosedBills(w http.ResponseWriter, r *http.Request) {
	locationID, err := strconv.ParseInt(chi.URLParam(r, "locationId"), 10, 64)
	if err != nil || locationID <= 0 {
		s.api.Error(w, r, apiErr(client.CodeNotFound))
		return
	}
	if !api.RequestFrom(r.Context()).Principal().CanSeeLocation(locationID) {
		s.api.Error(w, r, apiErrMsg(client.CodeForbidden, "The API key is not scoped to this location."))
		return
	}
	rng, qerr := parseClosedRange(r.URL.RawQuery)
	if qerr != nil {
		s.api.Error(w, r, qerr)
		return
	}
	var rows []store.BillSummary
	err = s.db.Read(r.Context(), func(tx *store.Tx) error {
		var err error
		rows, err = tx.ListClosedBills(locationID, rng.from, rng.to)
		return err
	})
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	out := bills.ClosedBillsResponse{Bills: make([]bills.Summary, len(rows)), RequestInfo: s.api.Info(r)}
	for i, b := range rows {
		out.Bills[i] = bills.Summary{
			BillID:      b.BillID,
			Status:      possync.CheckClosed,
			LastUpdated: client.BillTime{Time: time.Unix(b.LastUpdated, 0).UTC()},
		}
	}
	s.api.JSON(w, r, http.StatusOK, out)
}

// handleGetBill serves GET /v3/bill/{billId}?scope=: one bill record with
// the members its scopes select. Everything is read in one read
// transaction, so the record is a consistent snapshot; each query is a
// primary-key or indexed lookup.
func (s *Server) handleGetBill(w http.ResponseWriter, r *http.Request) {
	sc, qerr := parseBillScopes(r.URL.RawQuery)
	if qerr != nil {
		s.api.Error(w, r, qerr)
		return
	}
	// chi hands over the raw segment when the path has escapes in it.
	billID, err := url.PathUnescape(chi.URLParam(r, "billId"))
	if err != nil {
		s.api.Error(w, r, apiErr(client.CodeNotFound))
		return
	}
	p := api.RequestFrom(r.Context()).Principal()
	var out bills.BillResponse
	err = s.db.Read(r.Context(), func(tx *store.Tx) error {
		row, err := tx.GetBill(billID)
		if err != nil {
			return err
		}
		// A bill of a location outside the key's scope is answered exactly
		// like an unknown one, so ids of other vendors cannot be probed.
		if !p.CanSeeLocation(row.LocationID) {
			return store.ErrNotFound
		}
		out.Bill, err = buildBill(tx, row, sc)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		s.api.Error(w, r, apiErr(client.CodeNotFound))
		return
	}
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	out.RequestInfo = s.api.Info(r)
	s.api.JSON(w, r, http.StatusOK, out)
}

// storedCheck is the part of a stored check (bills.check_json) that the
// bill record shows beyond the bills columns. The items, the bulk of a
// check, are decoded only when the bill.items scope asks for them; the
// check is read in one pass either way.
type storedCheck struct {
	Discounts []possync.Discount `json:"discounts"`
}

// storedCheckItems is storedCheck with the items.
type storedCheckItems struct {
	Discounts []possync.Discount `json:"discounts"`
	MenuItems []possync.MenuItem `json:"menuItems"`
}

// buildBill turns a bills row into the bill record, reading what the scopes
// ask for in the same transaction. Each scope sets exactly its member;
// slices are non-nil when their scope is set, so they are sent as [] rather
// than left out.
func buildBill(tx *store.Tx, row store.Bill, sc billScopes) (bills.Bill, error) {
	var chk storedCheckItems
	var err error
	if sc.items {
		err = json.Unmarshal(row.CheckJSON, &chk)
	} else {
		var d storedCheck
		err = json.Unmarshal(row.CheckJSON, &d)
		chk.Discounts = d.Discounts
	}
	if err != nil {
		return bills.Bill{}, fmt.Errorf("bill %s: stored check: %w", row.BillID, err)
	}
	b := bills.Bill{
		BillID:              row.BillID,
		LocationID:          row.LocationID,
		CheckNumber:         row.CheckNumber,
		Status:              possync.CheckStatus(row.Status),
		LastUpdated:         client.BillTime{Time: time.Unix(row.LastUpdated, 0).UTC()},
		TotalAmount:         client.MoneyFromCents(row.TotalAmount),
		OutstandingAmount:   client.MoneyFromCents(row.OutstandingAmount),
		ServiceChargeAmount: client.MoneyFromCents(row.ServiceChargeAmount),
		TipsPaid:            client.MoneyFromCents(row.TipsPaid),
		Discounts:           nonNil(chk.Discounts),
	}
	if sc.items {
		b.Items = nonNil(chk.MenuItems)
	}
	if sc.payments || sc.users {
		pays, err := tx.BillPayments(row.BillID)
		if err != nil {
			return bills.Bill{}, err
		}
		if sc.payments {
			b.Payments = make([]bills.Payment, len(pays))
			for i, p := range pays {
				b.Payments[i] = bills.Payment{
					PaymentID: p.PaymentID,
					Amount:    client.MoneyFromCents(p.Amount),
					Tip:       client.MoneyFromCents(p.Tip),
					Status:    wallet.PaymentStatus(p.Status),
					CreatedAt: client.UnixTime{Time: time.Unix(p.CreatedAt, 0).UTC()},
					CardLast4: p.CardLast4,
				}
			}
		}
		if sc.users {
			// Every user with a payment, pending or accepted, in order of
			// their first payment.
			b.Users = []bills.User{}
			seen := make(map[int64]bool, len(pays))
			for _, p := range pays {
				if !seen[p.UserID] {
					seen[p.UserID] = true
					b.Users = append(b.Users, bills.User{UserID: p.UserID})
				}
			}
		}
	}
	if sc.table {
		b.Table = &bills.Table{TableNumber: int(row.TableNumber), Guests: int(row.Guests)}
		if sc.tableLocation {
			// The same builder as GET /v1/location/{id}, so the two never
			// drift apart.
			loc, err := locationDetails(tx, row.LocationID)
			if err != nil {
				return bills.Bill{}, err
			}
			b.Table.Location = &loc
		}
	}
	if sc.staff {
		b.Staff = &bills.Staff{StaffID: row.StaffID}
	}
	return b, nil
}

// nonNil returns s, or an empty slice when s is nil, so that it encodes as
// [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
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
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return closedRange{}, apiErrMsg(client.CodeInvalidQuery, "The query string is not valid URL encoding.")
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
		return closedRange{}, apiErrMsg(client.CodeInvalidQuery, "from must not be after to.")
	}
	if to.Sub(from) > bills.MaxRange {
		return closedRange{}, apiErrMsg(client.CodeInvalidQuery, "The range from..to must not span more than 31 days.")
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
		return time.Time{}, apiErrMsg(client.CodeInvalidQuery,
			name+" is required: an ISO 8601 date-time with offset, such as 2026-05-01T10:00:00Z.")
	case len(vals) > 1:
		return time.Time{}, apiErrMsg(client.CodeInvalidQuery, name+" must be given once.")
	}
	v := vals[0]
	t, err := client.ParseQueryTime(v)
	if err == nil {
		return t, nil
	}
	// "2026-05-01T10:00:00 01:00": the "+" arrived as a space.
	if i := strings.LastIndexByte(v, ' '); i >= 0 {
		if _, err := client.ParseQueryTime(v[:i] + "+" + v[i+1:]); err == nil {
			return time.Time{}, apiErrMsg(client.CodeInvalidQuery,
				name+": the + of the offset arrived as a space; URL-encode the + as %2B.")
		}
	}
	return time.Time{}, apiErrMsg(client.CodeInvalidQuery,
		name+" is not an ISO 8601 date-time with offset, such as 2026-05-01T10:00:00Z or 2026-05-01T10:00:00%2B01:00.")
}

// billScopes is the parsed scope parameter of the bill endpoint: one flag
// per scope.
type billScopes struct {
	items, payments, users, table, tableLocation, staff bool
}

// parseBillScopes validates the scope query parameter (comma-separated, and
// it may be repeated) from the raw query string. It is pure, so it can be
// fuzzed; every failure is a 400003. "scope=" asks for no scope; an empty
// element of a list ("bill.items,,bill.staff") is refused like any other
// unknown scope, since it is most likely a scope lost on the way.
func parseBillScopes(rawQuery string) (billScopes, *api.Error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return billScopes{}, apiErrMsg(client.CodeInvalidQuery, "The query string is not valid URL encoding.")
	}
	var sc billScopes
	for _, v := range q["scope"] {
		if v == "" {
			continue
		}
		for name := range strings.SplitSeq(v, ",") {
			switch bills.Scope(strings.TrimSpace(name)) {
			case "":
				return billScopes{}, apiErrMsg(client.CodeInvalidQuery, fmt.Sprintf(
					"Empty scope in %q; separate the scopes with single commas.", truncateRunes(v, 40)))
			case bills.ScopeItems:
				sc.items = true
			case bills.ScopePayments:
				sc.payments = true
			case bills.ScopeUsers:
				sc.users = true
			case bills.ScopeTable:
				sc.table = true
			case bills.ScopeTableLocation:
				sc.tableLocation = true
			case bills.ScopeStaff:
				sc.staff = true
			default:
				return billScopes{}, apiErrMsg(client.CodeInvalidQuery, fmt.Sprintf(
					"Unknown scope %q; the scopes are bill.items, bill.payments, bill.users, bill.table, table.location and bill.staff.",
					truncateRunes(name, 40)))
			}
		}
	}
	if sc.tableLocation && !sc.table {
		return billScopes{}, apiErrMsg(client.CodeInvalidQuery, "Scope table.location needs bill.table as well.")
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
