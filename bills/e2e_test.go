package bills_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

var moneyCmp = cmp.AllowUnexported(client.Money{})

// TestE2EBillRecordScopes builds a bill through the real POS flow (check
// pushed open, two users pay with wallet cards, the POS accepts, the check
// is pushed closed) and fetches it with every combination of scopes.
func TestE2EBillRecordScopes(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	ctx := context.Background()
	v := newVenue(t, env, "Harbour", wallet.ProviderB)
	alice := newPayer(t, env, wallet.ProviderB, "4111111111111111")
	bob := newPayer(t, env, wallet.ProviderB, "5555555555554444")

	v.Heartbeat(t)
	const n = 101
	billID := v.PushCheck(t, v.check(n, possync.CheckOpen, "40.00", "40.00", "0")).BillID
	p1 := alice.Pay(t, v.Venue, n, "20.00", "2.00")
	p2 := bob.Pay(t, v.Venue, n, "10.00", "0.50")
	p3 := alice.Pay(t, v.Venue, n, "5.00", "0")
	v.AcceptAll(t, p3.PaymentID) // p3 stays pending
	closed := v.check(n, possync.CheckClosed, "40.00", "5.00", "2.50")
	closed.MenuItems = closed.MenuItems[:1] // the content changes on closing, not only the status
	if got := v.PushCheck(t, closed).BillID; got != billID {
		t.Fatalf("bill id changed from %s to %s", billID, got)
	}

	from, to := wide(v, t)
	list, err := v.bills.ListClosed(ctx, v.ID, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].BillID != billID || list[0].Status != possync.CheckClosed {
		t.Fatalf("ListClosed = %+v, want the one closed bill %s", list, billID)
	}

	// The location object is the one GET /v1/location/{id} returns.
	loc, err := alice.Wallet.GetLocation(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if loc.POSStatus != wallet.POSStatusOnline || loc.LocationPaymentDetails.Gateway != wallet.ProviderB {
		t.Fatalf("location = %+v", loc)
	}
	accepted := func(p wallet.Payment) wallet.PaymentStatus {
		if p.PaymentID == p3.PaymentID {
			return wallet.PaymentPending
		}
		return wallet.PaymentAccepted
	}
	var payments []bills.Payment
	for _, p := range []struct {
		p     wallet.Payment
		last4 string
	}{{p1, "1111"}, {p2, "4444"}, {p3, "1111"}} {
		payments = append(payments, bills.Payment{PaymentID: p.p.PaymentID, Amount: p.p.Amount, Tip: p.p.Tip,
			Status: accepted(p.p), CreatedAt: p.p.CreatedAt, CardLast4: p.last4})
	}
	full := bills.Bill{
		BillID: billID, LocationID: v.ID, CheckNumber: n, Status: possync.CheckClosed,
		LastUpdated:         list[0].LastUpdated,
		TotalAmount:         closed.TotalAmount,
		OutstandingAmount:   closed.OutstandingAmount,
		ServiceChargeAmount: closed.ServiceChargeAmount,
		TipsPaid:            closed.TipsPaid,
		Discounts:           closed.Discounts,
		Items:               closed.MenuItems,
		Payments:            payments,
		Users:               []bills.User{{UserID: alice.UserID}, {UserID: bob.UserID}},
		Table:               &bills.Table{TableNumber: closed.TableNumber, Guests: closed.Guests, Location: &loc},
		Staff:               &bills.Staff{StaffID: closed.StaffID},
	}

	// Every subset of the six scopes. The SDK adds bill.table to
	// table.location, so a subset with table.location gets the table too.
	all := bills.AllScopes()
	for mask := range 1 << len(all) {
		var scopes []bills.Scope
		for i, s := range all {
			if mask&(1<<i) != 0 {
				scopes = append(scopes, s)
			}
		}
		t.Run(fmt.Sprint(scopes), func(t *testing.T) {
			t.Parallel()
			got, err := v.bills.Get(ctx, billID, scopes)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(project(full, scopes), *got, moneyCmp); d != "" {
				t.Errorf("bill with %v (-want +got):\n%s", scopes, d)
			}
		})
	}

	// The server's own rules, without the SDK's normalisation.
	t.Run("server refuses table.location alone", func(t *testing.T) {
		t.Parallel()
		r := rawGet(t, v.env, "/v3/bill/"+url.PathEscape(billID)+"?scope=table.location", v.apiKey)
		if r.status != 400 || r.body.Code != client.CodeInvalidQuery || !strings.Contains(r.body.Message, "bill.table") {
			t.Errorf("table.location alone: %d %s", r.status, r.raw)
		}
	})
	t.Run("empty members are [] not absent", func(t *testing.T) {
		t.Parallel()
		// A bill without payments asked for payments and users.
		other := v.PushCheck(t, v.check(202, possync.CheckClosed, "5.00", "0", "0")).BillID
		r := rawGet(t, v.env, "/v3/bill/"+url.PathEscape(other)+"?scope=bill.payments,bill.users", v.apiKey)
		if r.status != 200 || !strings.Contains(string(r.raw), `"payments":[]`) || !strings.Contains(string(r.raw), `"users":[]`) {
			t.Errorf("bill without payments: %d %s", r.status, r.raw)
		}
		if r.body.RequestInfo.APIVersion != 3 {
			t.Errorf("apiVersion = %d, want 3", r.body.RequestInfo.APIVersion)
		}
		for _, absent := range []string{`"items"`, `"table"`, `"staff"`} {
			if strings.Contains(string(r.raw), absent) {
				t.Errorf("%s present without its scope: %s", absent, r.raw)
			}
		}
	})
}

// project returns the members of full that scopes select, as Get returns
// them (table.location implies bill.table).
func project(full bills.Bill, scopes []bills.Scope) bills.Bill {
	b := full
	b.Items, b.Payments, b.Users, b.Table, b.Staff = nil, nil, nil, nil, nil
	has := func(s bills.Scope) bool { return slices.Contains(scopes, s) }
	if has(bills.ScopeItems) {
		b.Items = full.Items
	}
	if has(bills.ScopePayments) {
		b.Payments = full.Payments
	}
	if has(bills.ScopeUsers) {
		b.Users = full.Users
	}
	if has(bills.ScopeTable) || has(bills.ScopeTableLocation) {
		tbl := *full.Table
		if !has(bills.ScopeTableLocation) {
			tbl.Location = nil
		}
		b.Table = &tbl
	}
	if has(bills.ScopeStaff) {
		b.Staff = full.Staff
	}
	return b
}

// TestE2EListRulesAndBoundaries checks which bills the list shows and the
// edges of [from, to], in UTC and other offsets.
func TestE2EListRulesAndBoundaries(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	ctx := context.Background()
	v := newVenue(t, env, "Quay", wallet.ProviderB)
	elsewhere := newVenue(t, env, "Elsewhere", wallet.ProviderB)

	closedID := v.PushCheck(t, v.check(1, possync.CheckClosed, "10.00", "0", "0")).BillID
	openID := v.PushCheck(t, v.check(2, possync.CheckOpen, "10.00", "10.00", "0")).BillID
	voidID := v.PushCheck(t, v.check(3, possync.CheckVoid, "10.00", "0", "0")).BillID
	v.PushCheck(t, v.check(4, possync.CheckClosed, "10.00", "0", "0"))
	v.PushCheck(t, v.check(4, possync.CheckOpen, "12.00", "2.00", "0")) // re-opened
	elsewhere.PushCheck(t, elsewhere.check(1, possync.CheckClosed, "10.00", "0", "0"))

	from, to := wide(v, t)
	list, err := v.bills.ListClosed(ctx, v.ID, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].BillID != closedID {
		t.Fatalf("ListClosed = %+v, want only the closed bill %s (open, void, re-opened and other locations' bills are not listed)", list, closedID)
	}
	at := list[0].LastUpdated.Time
	// Get shows bills in any status.
	for id, want := range map[string]possync.CheckStatus{openID: possync.CheckOpen, voidID: possync.CheckVoid} {
		if got, err := v.bills.Get(ctx, id, nil); err != nil || got.Status != want {
			t.Errorf("Get(%s) = %+v, %v; want status %s", id, got, err, want)
		}
	}
	if got, err := v.bills.Get(ctx, closedID, nil); err != nil || !got.LastUpdated.Equal(at) {
		t.Fatalf("Get lastUpdated = %v, %v; want the list's %v", got, err, at)
	}

	ist := time.FixedZone("+05:30", 5*3600+1800)
	pst := time.FixedZone("-08:00", -8*3600)
	tests := []struct {
		name     string
		from, to time.Time
		want     int
	}{
		{"from == to == lastUpdated", at, at, 1},
		{"from == to in +05:30", at.In(ist), at.In(ist), 1},
		{"from == to in -08:00", at.In(pst), at.In(pst), 1},
		{"mixed offsets", at.In(ist), at.In(pst), 1},
		{"ends on lastUpdated", at.Add(-time.Hour).In(ist), at.In(ist), 1},
		{"starts on lastUpdated", at.In(pst), at.Add(time.Hour).In(pst), 1},
		{"starts a second after", at.Add(time.Second).In(ist), at.Add(time.Hour), 0},
		{"ends a second before", at.Add(-time.Hour), at.Add(-time.Second).In(pst), 0},
		{"a 31-day range ending on it", at.Add(-bills.MaxRange).In(ist), at.In(ist), 1},
		{"sub-second ends round inwards", at.Add(-time.Second + time.Millisecond), at.Add(time.Second - time.Millisecond), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := v.bills.ListClosed(ctx, v.ID, tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.want {
				t.Errorf("ListClosed(%s, %s) = %d bills, want %d", client.FormatQueryTime(tt.from), client.FormatQueryTime(tt.to), len(got), tt.want)
			}
		})
	}
}

// TestE2ELastUpdatedMoves checks that a re-closed bill moves to the time of
// the push that closed it again.
func TestE2ELastUpdatedMoves(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	ctx := context.Background()
	v := newVenue(t, env, "Dock", wallet.ProviderB)
	id := v.PushCheck(t, v.check(7, possync.CheckClosed, "10.00", "0", "0")).BillID
	from, to := wide(v, t)
	first, err := v.bills.ListClosed(ctx, v.ID, from, to)
	if err != nil || len(first) != 1 {
		t.Fatalf("ListClosed = %v, %v", first, err)
	}
	env.AdvanceClock(t, 40*24*time.Hour)
	v.PushCheck(t, v.check(7, possync.CheckClosed, "11.00", "0", "0"))
	if got, err := v.bills.ListClosed(ctx, v.ID, from, to); err != nil || len(got) != 0 {
		t.Errorf("old range after re-close = %v, %v; want empty", got, err)
	}
	at := first[0].LastUpdated.Add(40 * 24 * time.Hour)
	got, err := v.bills.ListClosed(ctx, v.ID, at.Add(-time.Hour), at.Add(time.Hour))
	if err != nil || len(got) != 1 || got[0].BillID != id || got[0].LastUpdated.Before(at) {
		t.Errorf("new range = %+v, %v; want %s at or after %v", got, err, id, at)
	}
}

// TestE2EErrors checks every error of the two endpoints on the wire (raw
// HTTP, so the SDK's own checks do not hide the server's) and through the
// SDK.
func TestE2EErrors(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	// The codes of the credential, range and scope errors are the
	// contract's checks; below, what the reference server says of them.
	env.CheckContract(t, "auth/api-key-missing", "auth/api-key-invalid", "auth/api-key-other-location",
		"bills/range-errors", "bills/scope-errors", "bills/get-unknown", "bills/get-outside-scope")
	ctx := context.Background()
	v := newVenue(t, env, "North", wallet.ProviderB)
	other := newVenue(t, env, "South", wallet.ProviderB)
	mine := v.PushCheck(t, v.check(1, possync.CheckClosed, "10.00", "0", "0")).BillID
	theirs := other.PushCheck(t, other.check(1, possync.CheckClosed, "10.00", "0", "0")).BillID
	bothKey := env.NewAPIKey(t, v.ID, other.ID)

	now := serverNow(t, v).UTC()
	q := func(from, to time.Time) string {
		return url.Values{"from": {client.FormatQueryTime(from)}, "to": {client.FormatQueryTime(to)}}.Encode()
	}
	good := q(now.Add(-time.Hour), now.Add(time.Hour))
	list := func(loc int64) string { return "/v3/location/" + strconv.FormatInt(loc, 10) + "/bills/closed?" }
	plus := now.In(time.FixedZone("+01:00", 3600)).Format(time.RFC3339) // has a raw "+"

	tests := []struct {
		name     string
		path     string
		key      string
		want     client.Code
		wantText string
	}{
		{"list of an unknown location", list(999999) + good, v.apiKey, client.CodeForbidden, ""},
		{"list of a non-numeric location", "/v3/location/abc/bills/closed?" + good, v.apiKey, client.CodeNotFound, ""},
		{"from missing", list(v.ID) + "to=" + url.QueryEscape(client.FormatQueryTime(now)), v.apiKey, client.CodeInvalidQuery, "from is required"},
		{"to missing", list(v.ID) + "from=" + url.QueryEscape(client.FormatQueryTime(now)), v.apiKey, client.CodeInvalidQuery, "to is required"},
		{"both missing", list(v.ID), v.apiKey, client.CodeInvalidQuery, "required"},
		{"from unparsable", list(v.ID) + "from=yesterday&to=" + url.QueryEscape(client.FormatQueryTime(now)), v.apiKey, client.CodeInvalidQuery, "ISO 8601"},
		{"to without offset", list(v.ID) + "from=" + url.QueryEscape(client.FormatQueryTime(now)) + "&to=2026-05-01T10:00:00", v.apiKey, client.CodeInvalidQuery, "ISO 8601"},
		{"from after to", list(v.ID) + q(now, now.Add(-time.Second)), v.apiKey, client.CodeInvalidQuery, "after"},
		{"over 31 days", list(v.ID) + q(now.Add(-bills.MaxRange-time.Second), now), v.apiKey, client.CodeInvalidQuery, "31 days"},
		{"+ sent unencoded", list(v.ID) + "from=" + plus + "&to=" + url.QueryEscape(client.FormatQueryTime(now.Add(time.Hour))), v.apiKey, client.CodeInvalidQuery, "URL-encode the +"},
		{"bill without key", "/v3/bill/" + url.PathEscape(mine), "", client.CodeAPIKeyMissing, ""},
		{"bill with unknown key", "/v3/bill/" + url.PathEscape(mine), "not-a-key", client.CodeAPIKeyInvalid, ""},
		{"unknown bill", "/v3/bill/no-such-bill", v.apiKey, client.CodeNotFound, ""},
		{"bill of a location outside the key", "/v3/bill/" + url.PathEscape(theirs), v.apiKey, client.CodeNotFound, ""},
		{"unknown scope", "/v3/bill/" + url.PathEscape(mine) + "?scope=bill.items,bill.everything", v.apiKey, client.CodeInvalidQuery, "bill.everything"},
		{"table.location without bill.table", "/v3/bill/" + url.PathEscape(mine) + "?scope=table.location", v.apiKey, client.CodeInvalidQuery, "bill.table"},
	}
	var notFoundBodies []string
	for _, tt := range tests {
		r := rawGet(t, v.env, tt.path, tt.key)
		if r.status != tt.want.HTTPStatus() || !r.body.Error || r.body.Code != tt.want || r.body.RequestInfo.APIVersion != 0 {
			t.Errorf("%s: %d %s; want %d with code %d and apiVersion 0", tt.name, r.status, r.raw, tt.want.HTTPStatus(), tt.want)
			continue
		}
		if !strings.Contains(r.body.Message, tt.wantText) {
			t.Errorf("%s: message %q does not mention %q", tt.name, r.body.Message, tt.wantText)
		}
		if strings.Contains(string(r.raw), v.apiKey) {
			t.Errorf("%s: the API key is echoed: %s", tt.name, r.raw)
		}
		if strings.HasPrefix(tt.path, "/v3/bill/") && tt.want == client.CodeNotFound {
			notFoundBodies = append(notFoundBodies, r.body.Message)
		}
	}
	// An unknown bill and another vendor's bill are indistinguishable.
	if len(notFoundBodies) == 2 && notFoundBodies[0] != notFoundBodies[1] {
		t.Errorf("404 messages differ: %q vs %q", notFoundBodies[0], notFoundBodies[1])
	}
	// A key scoped to both locations sees both.
	if r := rawGet(t, v.env, "/v3/bill/"+url.PathEscape(theirs), bothKey); r.status != 200 {
		t.Errorf("key of both locations: %d %s", r.status, r.raw)
	}
	if r := rawGet(t, v.env, list(other.ID)+good, bothKey); r.status != 200 || r.body.RequestInfo.APIVersion != 3 {
		t.Errorf("key of both locations, list: %d %s", r.status, r.raw)
	}

	// The same through the SDK, matched with the client sentinels.
	sdk := []struct {
		name string
		err  error
		want error
	}{
		{"ListClosed outside the key", second(v.bills.ListClosed(ctx, other.ID, now, now)), client.ErrForbidden},
		{"ListClosed over 31 days", second(v.bills.ListClosed(ctx, v.ID, now.Add(-32*24*time.Hour), now)), client.ErrInvalidQuery},
		{"ListClosed from after to", second(v.bills.ListClosed(ctx, v.ID, now, now.Add(-time.Hour))), client.ErrInvalidQuery},
		{"Get outside the key", second(v.bills.Get(ctx, theirs, nil)), client.ErrNotFound},
		{"Get unknown", second(v.bills.Get(ctx, "nope", nil)), client.ErrNotFound},
		{"Get unknown scope", second(v.bills.Get(ctx, mine, []bills.Scope{"bill.everything"})), client.ErrInvalidQuery},
		{"All outside the key", allErr(v.bills.All(ctx, other.ID, now.Add(-90*24*time.Hour), now, nil)), client.ErrForbidden},
		{"All from after to", allErr(v.bills.All(ctx, v.ID, now, now.Add(-time.Hour), nil)), client.ErrInvalidQuery},
	}
	for _, tt := range sdk {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.want)
		}
	}
	wrongKey := bills.NewService(env.Client(t, client.WithAPIKey("wrong")))
	if _, err := wrongKey.ListClosed(ctx, v.ID, now, now); !errors.Is(err, client.ErrAPIKeyInvalid) {
		t.Errorf("wrong key: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

// allErr runs an iterator and returns the error it ended with.
func allErr(seq func(func(*bills.Bill, error) bool)) error {
	_, err := collect(seq)
	return err
}
