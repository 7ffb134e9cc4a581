package store

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
)

func TestNewBillID(t *testing.T) {
	t.Parallel()
	v7 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	now := time.UnixMilli(0x0123456789ab)
	seen := map[string]bool{}
	prev := ""
	for i := range 100 {
		id := newBillID(now.Add(time.Duration(i) * time.Millisecond))
		if !v7.MatchString(id) || seen[id] {
			t.Fatalf("newBillID() = %q: not a fresh version 7 UUID", id)
		}
		if i == 0 && !strings.HasPrefix(id, "01234567-89ab-") {
			t.Errorf("newBillID() = %q: does not start with the time", id)
		}
		if id <= prev {
			t.Errorf("%q comes after %q: ids of later bills must sort later", prev, id)
		}
		seen[id], prev = true, id
	}
}

func TestNewCheckRow(t *testing.T) {
	t.Parallel()
	c := &possync.Check{
		TableNumber: 4, CheckNumber: 17, LocationID: 2, StaffID: "s-1", Guests: 3, Status: possync.CheckClosed,
		TotalAmount: client.MustParseMoney("12.5"), OutstandingAmount: client.MustParseMoney("2"),
		ServiceChargeAmount: client.MustParseMoney("1.25"), TipsPaid: client.MustParseMoney("0.75"),
	}
	row, err := NewCheckRow(c)
	if err != nil {
		t.Fatal(err)
	}
	canonical, _ := c.MarshalJSON()
	sum := sha256.Sum256(canonical)
	want := CheckRow{
		NewBillID: row.NewBillID, LocationID: 2, CheckNumber: 17, Status: "closed",
		ContentHash: hex.EncodeToString(sum[:]), CheckJSON: string(canonical),
		CheckSummary: CheckSummary{
			TableNumber: 4, StaffID: "s-1", Guests: 3,
			TotalAmount: 1250, OutstandingAmount: 200, ServiceChargeAmount: 125, TipsPaid: 75,
		},
	}
	if d := cmp.Diff(want, row); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if again, _ := NewCheckRow(c); again.NewBillID == row.NewBillID {
		t.Error("two rows got the same new bill id")
	}
}

// A check this process has not seen is inserted without a lookup first;
// one stored before the process saw it (here: the set of seen checks
// forgotten, as after a restart) is still updated in place, version and
// closing as usual, and pushed again unchanged it changes nothing.
func TestPushCheckInsertsNewChecksWithoutALookup(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "push.db"), nil)
	var loc int64
	push := func(row CheckRow) (p CheckPush, looked bool) {
		t.Helper()
		err := db.Write(t.Context(), func(tx *Tx) (err error) {
			if loc == 0 {
				if loc, err = tx.InsertLocation("Push", "providerB"); err != nil {
					return err
				}
			}
			row.LocationID = loc
			p, err = tx.PushCheck(row)
			tx.stmts.mu.Lock()
			_, looked = tx.stmts.m[lookupBillSQL]
			tx.stmts.mu.Unlock()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return p, looked
	}
	row := func(id, status, hash string) CheckRow {
		return CheckRow{NewBillID: id, CheckNumber: 7, Status: status, ContentHash: hash, CheckJSON: "{}"}
	}
	p, looked := push(row("bill-1", "open", "a"))
	if want := (CheckPush{BillID: "bill-1", Version: 1, Changed: true}); p != want || looked {
		t.Fatalf("first push = %+v, looked up %v; want %+v, no lookup", p, looked, want)
	}
	db.bills = billKeys{}
	p, looked = push(row("bill-2", "closed", "b"))
	if want := (CheckPush{BillID: "bill-1", Version: 2, Changed: true, Closed: true}); p != want || !looked {
		t.Errorf("push of a stored check not seen = %+v, looked up %v; want %+v after a lookup", p, looked, want)
	}
	db.bills = billKeys{}
	if p, _ = push(row("bill-3", "closed", "b")); p != (CheckPush{BillID: "bill-1", Version: 2}) {
		t.Errorf("unchanged push of a stored check not seen = %+v, want version 2 unchanged", p)
	}
	mustRead(t, db, func(tx *Tx) error {
		var n int
		if err := tx.queryRow(`SELECT count(*) FROM bills`).Scan(&n); err != nil || n != 1 {
			t.Errorf("%d bills, %v; want 1", n, err)
		}
		return nil
	})
}
