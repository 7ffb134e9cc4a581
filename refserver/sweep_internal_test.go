package refserver

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Rows past their retention go with the background sweep once the virtual
// clock passes it, and not before.
func TestSweepFollowsTheVirtualClock(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(c *Config) { c.SweepInterval = 5 * time.Millisecond })
	admin := map[string]string{"X-Sandbox-Admin-Key": testAdminKey}
	keyed := map[string]string{"X-Sandbox-Admin-Key": testAdminKey, "Idempotency-Key": "sweep-1"}
	if resp := do(t, http.MethodPost, ts.url+"/sandbox/users", keyed, `{}`); resp.status != http.StatusCreated {
		t.Fatalf("create user: %d %s", resp.status, resp.raw)
	}
	records := func() int64 {
		var n int64
		err := ts.db.Read(t.Context(), func(tx *store.Tx) error {
			var err error
			n, err = tx.CountRows("idempotency_keys")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	advance := `{"advanceSeconds":` + strconv.Itoa(int(store.IdempotencyRetention/time.Second)) + `}`
	if resp := do(t, http.MethodPost, ts.url+"/sandbox/clock", admin, advance); resp.status != http.StatusOK {
		t.Fatalf("advance clock: %d %s", resp.status, resp.raw)
	}
	keyed["Idempotency-Key"] = "sweep-2"
	if resp := do(t, http.MethodPost, ts.url+"/sandbox/users", keyed, `{}`); resp.status != http.StatusCreated {
		t.Fatalf("create user: %d %s", resp.status, resp.raw)
	}
	// The first record expired with the jump; the second is new and kept.
	sdktest.Eventually(t, "the expired idempotency record is swept", func() bool { return records() == 1 })
	if resp := do(t, http.MethodPost, ts.url+"/sandbox/users", keyed, `{}`); resp.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the kept record does not replay: %d %s", resp.status, resp.raw)
	}
}
