package console

import (
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/internal/testclock"
)

func TestSessionsExpire(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	cs := newSessions(clock.Now)

	id := cs.create()
	if _, ok := cs.lookup(id); !ok {
		t.Fatal("a new session is not live")
	}
	if _, ok := cs.lookup("not-" + id); ok {
		t.Fatal("an unknown id found a session")
	}

	// Used within the idle timeout, a session lives on, up to its lifetime.
	for elapsed := time.Duration(0); elapsed+idleTimeout/2 < maxLifetime; elapsed += idleTimeout / 2 {
		clock.Advance(idleTimeout / 2)
		if _, ok := cs.lookup(id); !ok {
			t.Fatalf("session ended after %v of regular use", elapsed+idleTimeout/2)
		}
	}
	clock.Advance(idleTimeout/2 + time.Second)
	if _, ok := cs.lookup(id); ok {
		t.Error("session outlived maxLifetime")
	}

	idle := cs.create()
	clock.Advance(idleTimeout + time.Second)
	if _, ok := cs.lookup(idle); ok {
		t.Error("session outlived the idle timeout")
	}

	ended := cs.create()
	cs.end(ended)
	if _, ok := cs.lookup(ended); ok {
		t.Error("an ended session is still live")
	}
}

func TestSessionsCSRF(t *testing.T) {
	t.Parallel()
	cs := newSessions(time.Now)
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

func TestSessionsAreBounded(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	cs := newSessions(clock.Now)
	first := cs.create()
	for range maxSessions {
		clock.Advance(time.Second)
		cs.create()
	}
	if _, ok := cs.lookup(first); ok {
		t.Error("the oldest session survived going over maxSessions")
	}
	if n := len(cs.byID); n > maxSessions {
		t.Errorf("%d sessions kept, want at most %d", n, maxSessions)
	}
}
