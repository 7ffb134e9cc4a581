package refserver

import (
	"regexp"
	"testing"
)

func TestNewBillID(t *testing.T) {
	t.Parallel()
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		id := newBillID()
		if !v4.MatchString(id) || seen[id] {
			t.Fatalf("newBillID() = %q: not a fresh version 4 UUID", id)
		}
		seen[id] = true
	}
}
