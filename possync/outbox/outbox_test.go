package outbox_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/possync/outbox"
)

func check(n, outstanding int64) *possync.Check {
	return &possync.Check{
		CheckNumber: n, LocationID: 1, StaffID: "s", Status: possync.CheckOpen,
		OutstandingAmount: client.MoneyFromCents(outstanding),
		MenuItems: []possync.MenuItem{{ID: 1, Name: "Soup", Quantity: 1, Price: client.MoneyFromCents(450),
			PriceSold: client.MoneyFromCents(450), Category: possync.Category{Name: "Starters", Category: &possync.Category{Name: "Food"}}}},
	}
}

func open(t *testing.T, path string, loc int64) *outbox.SQLite {
	t.Helper()
	o, err := outbox.Open(path, loc)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return o
}

// summary is what Load returned, in a comparable form.
func summary(t *testing.T, o *outbox.SQLite) ([]string, []int64) {
	t.Helper()
	checks, saved, err := o.Load(context.Background())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var out []string
	for _, c := range checks {
		out = append(out, fmt.Sprintf("%d:%s", c.CheckNumber, c.OutstandingAmount))
	}
	return out, saved
}

func TestChecksSurviveReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "outbox.db")
	o := open(t, path, 1)
	if err := o.SaveChecks(ctx, []*possync.Check{check(3, 300), check(1, 100), check(2, 200)}, nil); err != nil {
		t.Fatal(err)
	}
	// A newer state of check 3, check 1 delivered.
	if err := o.SaveChecks(ctx, []*possync.Check{check(3, 301)}, []int64{1}); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}

	o = open(t, path, 1)
	defer o.Close()
	checks, saved := summary(t, o)
	// Oldest first by first push (3 and 2 were queued together: by number),
	// each in its newest state.
	if diff := cmp.Diff([]string{"2:2.00", "3:3.01"}, checks); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
	if len(saved) != 0 {
		t.Errorf("saved %v", saved)
	}
	// The full check survives, nested parts included.
	all, _, _ := o.Load(ctx)
	// (nil Discounts travel as [], which is the same check.)
	if diff := cmp.Diff(check(2, 200), all[0], cmp.Comparer(func(a, b client.Money) bool { return a == b }), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("stored check (-want +got):\n%s", diff)
	}
}

func TestSavedPayments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "outbox.db")
	o := open(t, path, 1)
	for _, id := range []int64{7, 5, 7} { // a repeat is harmless
		if err := o.PutSavedPayment(ctx, id, 10); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.PutSavedPayment(ctx, 9, 11); err != nil {
		t.Fatal(err)
	}
	if err := o.DeleteSavedPayment(ctx, 9); err != nil {
		t.Fatal(err)
	}
	o.Close()

	o = open(t, path, 1)
	defer o.Close()
	if _, saved := summary(t, o); !cmp.Equal(saved, []int64{5, 7}) {
		t.Errorf("saved = %v, want [5 7]", saved)
	}
}

func TestRowsAreScopedByLocation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "outbox.db")
	o := open(t, path, 1)
	_ = o.SaveChecks(ctx, []*possync.Check{check(1, 100)}, nil)
	_ = o.PutSavedPayment(ctx, 5, 1)
	o.Close()

	other := open(t, path, 2)
	defer other.Close()
	if checks, saved := summary(t, other); len(checks) != 0 || len(saved) != 0 {
		t.Errorf("location 2 sees %v %v", checks, saved)
	}
}

func TestOpenIsExclusive(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "outbox.db")
	o := open(t, path, 1)
	if second, err := outbox.Open(path, 1); err == nil {
		second.Close()
		t.Fatal("a second Open of a file in use succeeded")
	}
	o.Close()
	again := open(t, path, 1) // free once closed
	again.Close()
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"", filepath.Join(t.TempDir(), "missing", "outbox.db")} {
		if o, err := outbox.Open(path, 1); err == nil {
			o.Close()
			t.Errorf("Open(%q) succeeded", path)
		}
	}
}

func TestLoadCorruptRow(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "outbox.db")
	open(t, path, 1).Close()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO outbox VALUES (1, 1, '{"checkNumber":', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	o := open(t, path, 1)
	defer o.Close()
	if _, _, err := o.Load(context.Background()); err == nil {
		t.Error("Load of a corrupt row succeeded")
	}
}

// ExampleOpen keeps an agent's undelivered checks in a file: a second agent
// on the same file picks them up.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "outbox-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "hospo-outbox.db")
	c, _ := client.New(client.WithBaseURL("http://127.0.0.1:1"), client.WithAccessToken("POS-TOKEN")) // service unreachable
	newAgent := func() *possync.Agent {
		store, err := outbox.Open(path, 1)
		if err != nil {
			log.Fatal(err)
		}
		agent, err := possync.NewAgent(possync.NewService(c), possync.AgentConfig{
			LocationID:  1,
			SavePayment: func(context.Context, int64, possync.PaymentNotification) error { return nil },
			Store:       store,
		})
		if err != nil {
			log.Fatal(err)
		}
		return agent
	}

	first := newAgent()
	_ = first.Push(check(42, 1250))
	first.Close() // never ran: the check is written to the file

	second := newAgent()
	defer second.Close()
	fmt.Println("queued after restart:", second.Stats().Queued)
	// Output:
	// queued after restart: 1
}
