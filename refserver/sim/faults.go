package sim

import (
	"strings"
	"sync"

	"github.com/hospo-dev/hospo-go/sandbox"
)

// Fault is an injected failure: the next Count requests whose method and
// path match wait LatencyMs and then fail with Status. With AfterCommit the
// request is carried out first and only its response is replaced, which
// simulates a response lost on the way back. Faults sets its ID and
// Remaining.
type Fault = sandbox.Fault

// Faults is the in-memory registry of active faults. It is safe for
// concurrent use.
type Faults struct {
	mu     sync.Mutex
	nextID int64
	list   []*Fault
}

// Add registers f and returns it with its id and Remaining set.
func (fs *Faults) Add(f Fault) Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.nextID++
	f.ID = fs.nextID
	f.Method = strings.ToUpper(f.Method)
	f.Remaining = f.Count
	fs.list = append(fs.list, &f)
	return f
}

// List returns the active faults in the order they were added.
func (fs *Faults) List() []Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]Fault, 0, len(fs.list))
	for _, f := range fs.list {
		out = append(out, *f)
	}
	return out
}

// Clear removes every fault and returns how many there were.
func (fs *Faults) Clear() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := len(fs.list)
	fs.list = nil
	return n
}

// Take finds the first fault matching the request, uses up one of its
// matches (removing it when none are left) and returns it.
func (fs *Faults) Take(method, path string) (Fault, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, f := range fs.list {
		if f.Method != "" && f.Method != "*" && f.Method != method {
			continue
		}
		if !strings.HasPrefix(path, f.PathPrefix) {
			continue
		}
		f.Remaining--
		got := *f
		if f.Remaining <= 0 {
			fs.list = append(fs.list[:i], fs.list[i+1:]...)
		}
		return got, true
	}
	return Fault{}, false
}
