package sim_test

import (
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/sim"
)

func TestFaultsTake(t *testing.T) {
	t.Parallel()
	var fs sim.Faults
	a := fs.Add(sim.Fault{Method: "post", PathPrefix: "/v1/pos", Status: 503, Count: 2})
	b := fs.Add(sim.Fault{Method: "*", PathPrefix: "/v3/", Status: 500, Count: 1})
	if a.ID == b.ID || a.Method != "POST" || a.Remaining != 2 {
		t.Fatalf("Add = %+v, %+v", a, b)
	}
	steps := []struct {
		method, path string
		wantID       int64 // 0: no match
	}{
		{"GET", "/v1/pos/x", 0},
		{"POST", "/v1/posx", a.ID}, // a prefix, not a path segment
		{"POST", "/v1/pos/check", a.ID},
		{"POST", "/v1/pos/check", 0}, // used up
		{"DELETE", "/v3/bill/1", b.ID},
		{"DELETE", "/v3/bill/1", 0},
	}
	for i, s := range steps {
		f, ok := fs.Take(s.method, s.path)
		if (s.wantID == 0) == ok || (ok && f.ID != s.wantID) {
			t.Errorf("step %d: Take(%s %s) = %+v, %v; want id %d", i, s.method, s.path, f, ok, s.wantID)
		}
	}
	if n := len(fs.List()); n != 0 {
		t.Errorf("%d faults left", n)
	}
	fs.Add(sim.Fault{PathPrefix: "/", Status: 500, Count: 3})
	if n := fs.Clear(); n != 1 || len(fs.List()) != 0 {
		t.Errorf("Clear = %d", n)
	}
}
