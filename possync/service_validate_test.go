package possync

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
)

// PushCheck refuses what Check.Validate refuses, with Validate's error,
// before sending anything.
func TestPushCheckValidatesFirst(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(c *Check)
		path   string // a failing field the error must name
	}{
		{"negative quantity", func(c *Check) { c.MenuItems[0].Quantity = -1 }, "menuItems[0].quantity"},
		{"no location", func(c *Check) { c.LocationID = 0 }, "locationId"},
		{"no check number", func(c *Check) { c.CheckNumber = 0 }, "checkNumber"},
		{"unknown status", func(c *Check) { c.Status = "parked" }, "status"},
		{"negative total", func(c *Check) { c.TotalAmount = client.MoneyFromCents(-1) }, "totalAmount"},
		{"modifiers too deep", func(c *Check) {
			var m *Modifier
			for range MaxNesting + 1 {
				next := Modifier{ID: 1, Name: "m"}
				if m != nil {
					next.Modifiers = []Modifier{*m}
				}
				m = &next
			}
			c.MenuItems[0].Modifiers = []Modifier{*m}
		}, "modifiers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, m := newMockService(t)
			check := checkN(1, 1)
			tt.mutate(check)
			_, err := s.PushCheck(context.Background(), check)
			if !errors.Is(err, client.ErrValidation) {
				t.Fatalf("PushCheck: %v, want a validation error", err)
			}
			if want := check.Validate(); err.Error() != want.Error() || errors.As(err, new(*client.APIError)) {
				t.Errorf("PushCheck: %T %q, want Validate's %T %q", err, err, want, want)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("PushCheck: %q, want it to name %s", err, tt.path)
			}
			if n := m.Calls(); n != 0 {
				t.Errorf("%d requests sent for an invalid check", n)
			}
		})
	}
}

// An agent drops a check that PushCheck refuses before sending (one an
// older version left in the Store, say) instead of retrying it forever,
// and Flush names it.
func TestAgentDropsCheckPushCheckRefuses(t *testing.T) {
	t.Parallel()
	store := newMemStore()
	bad := checkN(2, 1)
	bad.MenuItems[0].Quantity = -1
	store.checks[1], store.order[1] = checkN(1, 1), 1
	store.checks[2], store.order[2] = bad, 2
	cfg := testConfig()
	cfg.Store = store
	pm := &pushMock{}
	a := newMockAgent(t, pm, cfg)
	var pushes []int64
	pm.answer = func(_ *http.Request, c *Check) (*http.Response, error) {
		pushes = append(pushes, c.CheckNumber) // one send at a time: the only push is check 1
		return delivered(), nil
	}
	done := goFlush(t, context.Background(), a)
	startAgent(t, a)
	err := <-done
	if !errors.Is(err, client.ErrValidation) || !strings.Contains(err.Error(), "check 2: ") {
		t.Fatalf("Flush: %v, want check 2's validation error", err)
	}
	if s := a.Stats(); s.Sent != 1 || s.Failed != 1 || s.Retried != 0 || s.Queued != 0 {
		t.Errorf("stats: %v, want check 2 dropped without retries", s)
	}
	if len(pushes) != 1 || pushes[0] != 1 {
		t.Errorf("pushes reaching the service: %v, want check 1 only", pushes)
	}
}
