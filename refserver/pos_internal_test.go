package refserver

import (
	"regexp"
	"strings"
	"testing"
	"time"
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
