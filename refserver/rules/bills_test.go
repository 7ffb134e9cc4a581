package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestListClosedBills(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	push := func(id string, number int64, status string) {
		write(t, s.db, func(tx *store.Tx) error {
			_, _, _, err := tx.UpsertCheck(withBillID(id, checkRow(s.loc, number, status, 0)))
			return err
		})
	}
	push("closed-b", 20, "closed")
	push("closed-a", 21, "closed") // same second: ordered by id
	push("open-1", 22, "open")
	s.clock.Advance(time.Hour)
	push("closed-later", 23, "closed")

	from, to := testNow.Unix(), testNow.Add(time.Hour-time.Second).Unix()
	var got bills.ClosedBillsResponse
	if err := json.Unmarshal(listClosed(t, s.db, s.loc, from, to, client.RequestInfo{}), &got); err != nil {
		t.Fatal(err)
	}
	closedAt := client.BillTime{Time: testNow}
	want := []bills.Summary{
		{BillID: "closed-a", Status: possync.CheckClosed, LastUpdated: closedAt},
		{BillID: "closed-b", Status: possync.CheckClosed, LastUpdated: closedAt},
	}
	if diff := cmp.Diff(want, got.Bills); diff != "" {
		t.Errorf("bills (-want +got):\n%s", diff)
	}
	// Nothing in range is [] on the wire.
	if body := listClosed(t, s.db, s.loc, 0, 1, client.RequestInfo{}); !bytes.HasPrefix(body, []byte(`{"bills":[],`)) {
		t.Errorf("empty range: %s", body)
	}
}

// listClosed returns the body ListClosedBills writes for the location's
// bills in [from, to], with requestInfo ri.
func listClosed(t testing.TB, db *store.DB, loc, from, to int64, ri client.RequestInfo) []byte {
	t.Helper()
	var body bytes.Buffer
	err := db.Read(context.Background(), func(tx *store.Tx) error {
		stream, err := ListClosedBills(tx, loc, from, to, func() client.RequestInfo { return ri })
		if err != nil {
			return err
		}
		return stream(&body)
	})
	if err != nil {
		t.Fatal(err)
	}
	return body.Bytes()
}

func TestGetBill(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	p := s.pay(t, "4.00", "0.40")
	key := api.Principal{Kind: api.KindAPIKey, LocationIDs: []int64{s.loc}}
	get := func(p api.Principal, id string, sc BillScopes) (bills.Bill, error) {
		return run(t, s.db, func(tx *store.Tx) (bills.Bill, error) { return GetBill(tx, p, id, sc) })
	}

	b, err := get(key, s.bill, BillScopes{})
	if err != nil {
		t.Fatal(err)
	}
	want := bills.Bill{BillID: s.bill, LocationID: s.loc, CheckNumber: s.check, Status: possync.CheckOpen,
		LastUpdated: client.BillTime{Time: testNow}, TotalAmount: client.MustParseMoney("10.00"),
		OutstandingAmount: client.MustParseMoney("10.00"), ServiceChargeAmount: client.MustParseMoney("0"),
		TipsPaid: client.MustParseMoney("0"), Discounts: []possync.Discount{{Name: "Staff", Value: client.MustParseMoney("1.00")}}}
	if diff := cmp.Diff(want, b, exactMoney); diff != "" {
		t.Errorf("no scope (-want +got):\n%s", diff)
	}

	b, err = get(key, s.bill, BillScopes{Items: true, Payments: true, Users: true, Table: true, TableLocation: true, Staff: true})
	if err != nil {
		t.Fatal(err)
	}
	loc, err := run(t, s.db, func(tx *store.Tx) (wallet.Location, error) { return GetLocation(tx, s.loc) })
	if err != nil {
		t.Fatal(err)
	}
	want.Items = []possync.MenuItem{{ID: 1, Name: "Stew", Quantity: 1, Price: client.MustParseMoney("10.00"),
		PriceSold: client.MustParseMoney("10.00"), Category: possync.Category{Name: "Mains"}}}
	want.Payments = []bills.Payment{{PaymentID: p.PaymentID, Amount: p.Amount, Tip: p.Tip, Status: wallet.PaymentPending,
		CreatedAt: p.CreatedAt, CardLast4: "1111"}}
	want.Users = []bills.User{{UserID: s.user}}
	want.Table = &bills.Table{TableNumber: 4, Guests: 2, Location: &loc}
	want.Staff = &bills.Staff{StaffID: "staff-1"}
	if diff := cmp.Diff(want, b, exactMoney); diff != "" {
		t.Errorf("every scope (-want +got):\n%s", diff)
	}

	// A bill the key may not see is exactly an unknown one.
	other := api.Principal{Kind: api.KindAPIKey, LocationIDs: []int64{s.loc + 1}}
	for name, err := range map[string]error{
		"outside the key's scope": second(get(other, s.bill, BillScopes{})),
		"unknown":                 second(get(key, "no-such-bill", BillScopes{})),
	} {
		if !notFoundAs(err, "Bill not found.") {
			t.Errorf("%s: err = %v, want 404001 Bill not found.", name, err)
		}
	}
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }
