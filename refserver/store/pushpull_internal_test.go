package store

import (
	"crypto/sha256"
	"encoding/hex"
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
