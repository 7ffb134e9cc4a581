package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
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

// TestExport runs the program against a reference server holding two
// closed bills (one paid through the service), an open one and a closed one
// outside the range, and checks both CSV layouts.
func TestExport(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	ctx := context.Background()
	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Export Bistro"})
	locID, apiKey := v.ID, v.NewAPIKey(t)
	diner := env.NewDiner(t)
	userID := diner.UserID

	push := func(c possync.Check) string {
		t.Helper()
		return v.PushCheck(t, c).BillID
	}
	check := func(n int64, st possync.CheckStatus, outstanding string) possync.Check {
		return possync.Check{
			TableNumber: int(n), CheckNumber: n, StaffID: "S" + strconv.FormatInt(n, 10), Guests: 2, Status: st,
			TotalAmount: client.MustParseMoney("21.50"), OutstandingAmount: client.MustParseMoney(outstanding),
			ServiceChargeAmount: client.MustParseMoney("1.50"), TipsPaid: client.MustParseMoney("0"),
			Discounts: []possync.Discount{{Name: "Early bird", Value: client.MustParseMoney("-2.00")}, {Name: "Staff", Value: client.MustParseMoney("-0.50")}},
			MenuItems: []possync.MenuItem{
				{ID: 1, Name: "Burger, \"classic\"", Quantity: 1, Price: client.MustParseMoney("12.00"), PriceSold: client.MustParseMoney("10.00"),
					Discount: &possync.Discount{Name: "Promo", Value: client.MustParseMoney("-2.00")},
					Modifiers: []possync.Modifier{{ID: 7, Name: "Cheese", Price: client.MustParseMoney("1.00"),
						Modifiers: []possync.Modifier{{ID: 8, Name: "Extra", Price: client.MustParseMoney("0.50")}}}},
					Category: possync.Category{Name: "Burgers", Category: &possync.Category{Name: "Food"}}},
				{ID: 2, Name: "Cola", Quantity: 2, Price: client.MustParseMoney("2.50"), PriceSold: client.MustParseMoney("2.50"),
					Category: possync.Category{Name: "Drinks"}},
			},
		}
	}

	// Outside the range: closed, then the clock moves on two days.
	push(check(1, possync.CheckClosed, "0"))
	env.AdvanceClock(t, 48*time.Hour)

	// Paid through the service, then closed.
	v.Heartbeat(t)
	paidID := push(check(2, possync.CheckOpen, "21.50"))
	diner.AddCard(t, "4111111111111111", wallet.ProviderB)
	diner.Pay(t, v, 2, "21.50", "3.00")
	v.AcceptAll(t)
	paid := check(2, possync.CheckClosed, "0")
	paid.TipsPaid = client.MustParseMoney("3.00")
	push(paid)
	env.AdvanceClock(t, time.Hour)
	plainID := push(check(3, possync.CheckClosed, "0"))
	push(check(4, possync.CheckOpen, "21.50")) // open: not exported

	now := v.Heartbeat(t).RequestInfo.Time()
	from := now.Add(-2 * time.Hour).In(time.FixedZone("+02:00", 7200)).Format(time.RFC3339)
	to := now.UTC().Format(time.DateOnly) // a date: up to the last second of that UTC day
	base := []string{"-base-url", env.URL, "-api-key", apiKey, "-location", strconv.FormatInt(locID, 10), "-from", from, "-to", to}

	t.Run("bill rows", func(t *testing.T) {
		t.Parallel()
		rows := runCSV(t, append(base, "-concurrency", "2")...)
		if d := cmp.Diff(billHeader, rows[0]); d != "" {
			t.Fatalf("header (-want +got):\n%s", d)
		}
		if len(rows) != 3 {
			t.Fatalf("%d rows, want header + 2 bills:\n%v", len(rows), rows)
		}
		got := map[string][]string{}
		for _, r := range rows[1:] {
			got[r[0]] = r
		}
		if rows[1][0] != paidID || rows[2][0] != plainID {
			t.Errorf("order = %s, %s; want %s then %s (lastUpdated order)", rows[1][0], rows[2][0], paidID, plainID)
		}
		want := map[string]string{ // column -> value for the paid bill
			"checkNumber": "2", "status": "closed", "tableNumber": "2", "guests": "2", "staffId": "S2",
			"totalAmount": "21.50", "serviceChargeAmount": "1.50", "discountsTotal": "-2.50", "tipsPaid": "3.00",
			"outstandingAmount": "0.00", "paymentsCount": "1", "paymentsAmount": "21.50", "paymentsTip": "3.00",
			"userIds": strconv.FormatInt(userID, 10), "locationId": strconv.FormatInt(locID, 10),
		}
		for i, col := range billHeader {
			if v, ok := want[col]; ok && got[paidID][i] != v {
				t.Errorf("paid bill %s = %q, want %q", col, got[paidID][i], v)
			}
		}
		if r := got[plainID]; r[13] != "0" || r[16] != "" {
			t.Errorf("unpaid bill payments columns = %q, %q", r[13], r[16])
		}
		if _, err := time.Parse(client.BillTimeLayout, got[paidID][4]); err != nil {
			t.Errorf("lastUpdated %q: %v", got[paidID][4], err)
		}
	})

	t.Run("item rows to a file", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "items.csv")
		if err := run(ctx, append(base, "-rows", "item", "-out", out), io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(itemHeader, rows[0]); d != "" {
			t.Fatalf("header (-want +got):\n%s", d)
		}
		if len(rows) != 5 {
			t.Fatalf("%d rows, want header + 2 bills x 2 items:\n%v", len(rows), rows)
		}
		wantFirst := []string{paidID, "2", rows[1][2], "2", "S2", "1", `Burger, "classic"`, "Food > Burgers",
			"1", "12.00", "10.00", "Promo", "-2.00", "Cheese 1.00; Cheese > Extra 0.50"}
		if d := cmp.Diff(wantFirst, rows[1]); d != "" {
			t.Errorf("first item row (-want +got):\n%s", d)
		}
		wantSecond := []string{paidID, "2", rows[1][2], "2", "S2", "2", "Cola", "Drinks", "2", "2.50", "2.50", "", "", ""}
		if d := cmp.Diff(wantSecond, rows[2]); d != "" {
			t.Errorf("second item row (-want +got):\n%s", d)
		}
	})

	t.Run("service errors fail the run", func(t *testing.T) {
		t.Parallel()
		args := slicesReplace(base, "-api-key", "wrong-key")
		err := run(ctx, args, io.Discard, io.Discard)
		if !errors.Is(err, client.ErrAPIKeyInvalid) {
			t.Errorf("run with a wrong key = %v, want 401004", err)
		}
	})
}

func runCSV(t *testing.T, args ...string) [][]string {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), args, &out, io.Discard); err != nil {
		t.Fatalf("run: %v", err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatalf("output is not CSV: %v\n%s", err, out.String())
	}
	return rows
}

// slicesReplace returns args with the value after flag replaced.
func slicesReplace(args []string, flag, value string) []string {
	out := append([]string(nil), args...)
	for i := range out[:len(out)-1] {
		if out[i] == flag {
			out[i+1] = value
		}
	}
	return out
}

func TestFlags(t *testing.T) {
	t.Setenv("HOSPO_API_KEY", "")
	ok := []string{"-api-key", "k", "-location", "1", "-from", "2026-05-01", "-to", "2026-05-31"}
	tests := []struct {
		name string
		args []string
		want string // "" means the flags are accepted
	}{
		{"ok", ok, ""},
		{"no key", []string{"-location", "1", "-from", "2026-05-01", "-to", "2026-05-02"}, "-api-key"},
		{"no location", []string{"-api-key", "k", "-from", "2026-05-01", "-to", "2026-05-02"}, "-location"},
		{"bad rows", append(ok, "-rows", "line"), "-rows"},
		{"bad from", []string{"-api-key", "k", "-location", "1", "-from", "May", "-to", "2026-05-02"}, "-from"},
		{"no to", []string{"-api-key", "k", "-location", "1", "-from", "2026-05-01"}, "-to"},
		{"reversed", []string{"-api-key", "k", "-location", "1", "-from", "2026-05-02", "-to", "2026-05-01"}, "after"},
		{"zero concurrency", append(ok, "-concurrency", "0"), "-concurrency"},
		{"stray argument", append(ok, "extra"), "unexpected"},
	}
	for _, tt := range tests {
		cfg, err := parseFlags(tt.args, io.Discard)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v (%+v), want a usage error about %s", tt.name, err, cfg, tt.want)
		}
	}
	// A date covers its whole UTC day.
	cfg, err := parseFlags(ok, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 5, 31, 23, 59, 59, 0, time.UTC); !cfg.to.Equal(want) {
		t.Errorf("-to 2026-05-31 = %v, want %v", cfg.to, want)
	}
	// The key may come from the environment.
	t.Setenv("HOSPO_API_KEY", "from-env")
	cfg, err = parseFlags(ok[2:], io.Discard)
	if err != nil || cfg.apiKey != "from-env" {
		t.Errorf("key from $HOSPO_API_KEY: %q, %v", cfg.apiKey, err)
	}
}

func TestRowsGuardTextAgainstFormulas(t *testing.T) {
	t.Parallel()
	b := &bills.Bill{
		BillID: "b1", CheckNumber: 1,
		Staff: &bills.Staff{StaffID: "@staff"},
		Items: []possync.MenuItem{{
			ID: 1, Name: "=HYPERLINK(\"http://x\")", Quantity: 1,
			Price: client.MustParseMoney("1.00"), PriceSold: client.MustParseMoney("1.00"),
			Discount:  &possync.Discount{Name: "+promo", Value: client.MustParseMoney("-0.50")},
			Modifiers: []possync.Modifier{{ID: 2, Name: "-cmd", Price: client.MustParseMoney("0")}},
			Category:  possync.Category{Name: "Safe"},
		}},
	}
	row := itemRows(b)[0]
	col := func(name string) string {
		t.Helper()
		i := slices.Index(itemHeader, name)
		if i < 0 {
			t.Fatalf("no column %s", name)
		}
		return row[i]
	}
	for name, want := range map[string]string{
		"itemName": "'=HYPERLINK(\"http://x\")", "staffId": "'@staff", "discountName": "'+promo",
		"modifiers": "'-cmd 0.00", "category": "Safe", "discountValue": "-0.50",
	} {
		if got := col(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if got := billRows(b)[0][slices.Index(billHeader, "staffId")]; got != "'@staff" {
		t.Errorf("bill row staffId = %q", got)
	}
}
