package store

import (
	"strings"
	"testing"
)

// TestClosedBillsUnpack reads bills back from a page as SQLite packs them
// (closedBillsPageSQL), ids with the packing's own commas and digits in
// them, and refuses a page that is cut short or out of the list's order.
func TestClosedBillsUnpack(t *testing.T) {
	t.Parallel()
	type bill struct {
		at int64
		id string
	}
	read := func(page string) ([]bill, error) {
		c := &ClosedBills{page: page}
		var got []bill
		for c.Next() {
			got = append(got, bill{c.LastUpdated(), c.BillID()})
		}
		return got, c.Err()
	}
	got, err := read("-5,3,a,b-5,4,a,b,7,0,1700000000,5,\x00,9\t,")
	want := []bill{{-5, "a,b"}, {-5, "a,b,"}, {7, ""}, {1700000000, "\x00,9\t,"}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %#v, %v; want %#v", got, err, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("bill %d: got %#v, want %#v", i, got[i], want[i])
		}
	}
	for _, page := range []string{
		"5,2,b5,2,a", // same second, ids out of order
		"5,1,a5,1,a", // the same bill twice
		"6,1,a5,1,b", // seconds out of order
		"5,9,abc",    // an id cut short
		"5,x,a",      // no length
		"5",          // no comma
		"5,1,a,1,a",  // a bill without its time
	} {
		if got, err := read(page); err == nil || !strings.Contains(err.Error(), "list closed bills") {
			t.Errorf("page %q: read %#v with %v, want an error", page, got, err)
		}
	}
}
