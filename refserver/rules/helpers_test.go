package rules

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/internal/storetest"
	"github.com/hospo-dev/hospo-go/refserver/internal/testclock"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// fieldErrors returns the path -> reason of a 400002, nil for a nil err;
// any other error fails the test.
func fieldErrors(t testing.TB, err error) map[string]string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != client.CodeValidation {
		t.Fatalf("err = %v, want a 400002", err)
	}
	fields, _ := ae.ContextData.(map[string]string)
	return fields
}

// wantCode fails the test unless err is the catalogue error code (nil for
// code 0).
func wantCode(t testing.TB, err error, code client.Code) {
	t.Helper()
	if code == 0 {
		if err != nil {
			t.Fatalf("err = %v, want none", err)
		}
		return
	}
	if !errors.Is(err, code) {
		t.Fatalf("err = %v, want %d", err, code)
	}
}

// notFoundAs reports whether err is a 404001 with message msg, which
// names the kind of thing not found.
func notFoundAs(err error, msg string) bool {
	var ae *api.Error
	return errors.As(err, &ae) && ae.Code == client.CodeNotFound && ae.Message == msg
}

// testNow is the time every test transaction is stamped with.
var testNow = time.Date(2030, time.June, 10, 12, 0, 0, 0, time.UTC)

// openStore returns an empty in-memory store whose clock starts at
// testNow.
func openStore(t testing.TB) (*store.DB, *testclock.Clock) {
	t.Helper()
	clock := testclock.New(testNow)
	return storetest.Open(t, store.MemoryPath, clock.Now), clock
}

// testPOSTokens seals the universal POS tokens of the tests' locations.
var testPOSTokens = store.NewPOSTokens("rules-test-admin-key")

// insertPOSLocation creates a location wired to a universal POS at posURL
// that accepts posToken.
func insertPOSLocation(tx *store.Tx, name, gateway, posURL, posToken string) (int64, error) {
	id, err := tx.InsertLocation(name, gateway)
	if err != nil {
		return 0, err
	}
	return id, tx.SetLocationPOS(testPOSTokens, id, &posURL, &posToken)
}

// write runs fn in a write transaction of db and fails the test on error.
func write(t testing.TB, db *store.DB, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := db.Write(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// run runs rule in a write transaction of db, which commits when rule
// succeeds, and returns what it returned.
func run[T any](t testing.TB, db *store.DB, rule func(tx *store.Tx) (T, error)) (T, error) {
	t.Helper()
	var v T
	err := db.Write(context.Background(), func(tx *store.Tx) (err error) {
		v, err = rule(tx)
		return err
	})
	return v, err
}

// scene is a small venue in a store: a providerB location whose POS is
// online, with an open check, and a diner whose Live card holds a
// providerB token.
type scene struct {
	db    *store.DB
	clock *testclock.Clock
	user  int64 // the diner
	other int64 // another user, with no card
	loc   int64 // the location, providerB
	card  int64 // the diner's card, 4111 1111 1111 1111
	check int64 // check number of an open check of loc, outstanding 10.00
	bill  string
}

// newScene builds a scene in a fresh store at testNow.
func newScene(t testing.TB) scene {
	t.Helper()
	s := scene{check: 7, bill: "bill-7"}
	s.db, s.clock = openStore(t)
	write(t, s.db, func(tx *store.Tx) (err error) {
		if s.user, err = tx.InsertUser(); err != nil {
			return err
		}
		if s.other, err = tx.InsertUser(); err != nil {
			return err
		}
		if s.loc, err = tx.InsertLocation("Trattoria", "providerB"); err != nil {
			return err
		}
		if err := tx.TouchHeartbeat(s.loc); err != nil {
			return err
		}
		s.card, err = addCard(tx, s.user, "providerB", false)
		if err != nil {
			return err
		}
		_, _, _, err = tx.UpsertCheck(withBillID(s.bill, checkRow(s.loc, s.check, "open", 1000)))
		return err
	})
	return s
}

// addCard adds a Live card to userID's wallet with a token of provider,
// one whose payments the provider declines when decline is set.
func addCard(tx *store.Tx, userID int64, provider string, decline bool) (int64, error) {
	id, err := tx.InsertCard(store.Card{UserID: userID, First6: "411111", Last4: "1111", CardTypeID: 1,
		CardStatusID: int(1), ExpiryMonth: "07", ExpiryYear: "33"})
	if err != nil {
		return 0, err
	}
	token := provider + "-token-" + strconv.FormatInt(id, 10)
	if err := tx.InsertProviderToken(store.ProviderToken{Token: token, Provider: provider,
		First6: "411111", Last4: "1111", ExpiryMonth: 7, ExpiryYear: 33, Decline: decline}); err != nil {
		return 0, err
	}
	return id, tx.InsertCardToken(id, provider, token)
}

// checkRow is a pushed check of loc with outstanding hundredths left to
// pay.
func checkRow(loc, number int64, status string, outstanding int64) store.CheckRow {
	return store.CheckRow{
		LocationID: loc, CheckNumber: number, Status: status,
		ContentHash: status + strconv.FormatInt(outstanding, 10),
		CheckJSON:   `{"discounts":[{"name":"Staff","value":1.00}],"menuItems":[{"id":1,"name":"Stew","quantity":1,"price":10.00,"priceSold":10.00,"modifiers":null,"discount":null,"category":{"name":"Mains","category":null}}]}`,
		CheckSummary: store.CheckSummary{
			TableNumber: 4, StaffID: "staff-1", Guests: 2,
			TotalAmount: outstanding, OutstandingAmount: outstanding,
		},
	}
}

// withBillID is row with the id its bill gets if the push creates it.
func withBillID(id string, row store.CheckRow) store.CheckRow {
	row.NewBillID = id
	return row
}

// exactMoney compares client.Money values, whose fields are unexported.
var exactMoney = cmp.Comparer(func(a, b client.Money) bool { return a == b })

// pay makes a payment of amount and tip (decimals) by the scene's diner
// with its card towards its check, failing the test if it is refused.
func (s scene) pay(t testing.TB, amount, tip string) wallet.Payment {
	t.Helper()
	p, err := run(t, s.db, func(tx *store.Tx) (wallet.Payment, error) {
		return CreatePayment(tx, s.user, wallet.CreatePaymentRequest{LocationID: s.loc, CheckNumber: s.check, CardID: s.card,
			Amount: client.MustParseMoney(amount), Tip: client.MustParseMoney(tip)})
	})
	if err != nil {
		t.Fatalf("pay %s: %v", amount, err)
	}
	return p
}
