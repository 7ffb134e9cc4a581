package refserver

import (
	"sync"
	"testing"
	"time"
)

func TestMaskCard(t *testing.T) {
	t.Parallel()
	tests := []struct{ first6, last4, want string }{
		{"411111", "1111", "411111******1111"},
		{"", "4242", "•••• 4242"},
		{"4111", "1111", "•••• 1111"},   // not six digits: only the last four
		{"41111a", "1111", "•••• 1111"}, // not digits
		{"411111", "111", "••••"},
		{"411111", "<b>1", "••••"},
	}
	for _, tt := range tests {
		if got := maskCard(tt.first6, tt.last4); got != tt.want {
			t.Errorf("maskCard(%q, %q) = %q, want %q", tt.first6, tt.last4, got, tt.want)
		}
	}
}

func TestConsoleAgo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t, now int64
		want   string
	}{
		{100, 100, "0s ago"},
		{100, 142, "42s ago"},
		{0, 303, "5m 3s ago"},
		{0, 2*3600 + 5*60 + 9, "2h 5m ago"},
		{0, 3*86400 + 4*3600, "3d 4h ago"},
		{110, 100, "in 10s"},
	}
	for _, tt := range tests {
		if got := consoleAgo(tt.t, tt.now); got != tt.want {
			t.Errorf("consoleAgo(%d, %d) = %q, want %q", tt.t, tt.now, got, tt.want)
		}
	}
}

// fakeClock is a real-time source that tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestConsoleSessionsExpire(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	cs := newConsoleSessions(clock.Now)

	id := cs.create()
	if _, ok := cs.lookup(id); !ok {
		t.Fatal("a new session is not live")
	}
	if _, ok := cs.lookup("not-" + id); ok {
		t.Fatal("an unknown id found a session")
	}

	// Used within the idle timeout, a session lives on, up to its lifetime.
	for elapsed := time.Duration(0); elapsed+consoleIdleTimeout/2 < consoleMaxLifetime; elapsed += consoleIdleTimeout / 2 {
		clock.Add(consoleIdleTimeout / 2)
		if _, ok := cs.lookup(id); !ok {
			t.Fatalf("session ended after %v of regular use", elapsed+consoleIdleTimeout/2)
		}
	}
	clock.Add(consoleIdleTimeout/2 + time.Second)
	if _, ok := cs.lookup(id); ok {
		t.Error("session outlived consoleMaxLifetime")
	}

	idle := cs.create()
	clock.Add(consoleIdleTimeout + time.Second)
	if _, ok := cs.lookup(idle); ok {
		t.Error("session outlived the idle timeout")
	}

	ended := cs.create()
	cs.end(ended)
	if _, ok := cs.lookup(ended); ok {
		t.Error("an ended session is still live")
	}
}

func TestConsoleSessionsCSRF(t *testing.T) {
	t.Parallel()
	cs := newConsoleSessions(time.Now)
	a, _ := cs.lookup(cs.create())
	b, _ := cs.lookup(cs.create())
	if !cs.checkCSRF(a, cs.csrfToken(a)) {
		t.Error("a session's own token is refused")
	}
	for name, token := range map[string]string{"empty": "", "other session's": cs.csrfToken(b), "truncated": cs.csrfToken(a)[:10]} {
		if cs.checkCSRF(a, token) {
			t.Errorf("%s token accepted", name)
		}
	}
}

func TestConsoleSessionsAreBounded(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	cs := newConsoleSessions(clock.Now)
	first := cs.create()
	for range consoleMaxSessions {
		clock.Add(time.Second)
		cs.create()
	}
	if _, ok := cs.lookup(first); ok {
		t.Error("the oldest session survived going over consoleMaxSessions")
	}
	if n := len(cs.byID); n > consoleMaxSessions {
		t.Errorf("%d sessions kept, want at most %d", n, consoleMaxSessions)
	}
}

// Every page's templates parse and define what the console executes.
func TestConsoleTemplatesDefineEveryPart(t *testing.T) {
	t.Parallel()
	for _, name := range consolePageFiles {
		for _, part := range []string{"layout", "content", "live", "status"} {
			if consoleTemplates[name].Lookup(part) == nil {
				t.Errorf("page %s has no template %q", name, part)
			}
		}
	}
}
