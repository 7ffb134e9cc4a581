package sdktest

import (
	"testing"
	"time"
)

// eventuallyLimit only catches a hang: no test asserts how long a
// background condition takes.
const eventuallyLimit = 30 * time.Second

// Eventually calls cond until it returns true, and fails t naming what when
// that has not happened within a generous limit. The first polls come
// quickly and later ones less often, so that a cond that is costly (a
// goroutine dump) does not take over the machine.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventuallyLimit)
	wait := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(wait)
		wait = min(2*wait, 20*time.Millisecond)
	}
}
