package refserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
)

// TestFeedRechecksTheKeyAfterAReset: the event feed checks its API key
// again, like every read, when the sandbox was reset between the guard and
// the read. The request is admitted (its key known, and in the token
// cache) and held before its read, waiting for the one place under
// MaxInFlight; the reset removes the key; the read then answers the key's
// 401004, not the empty page the wiped feed holds. A request made after
// the reset is refused by its guard.
func TestFeedRechecksTheKeyAfterAReset(t *testing.T) {
	t.Parallel()
	ts, entered, release, waiting := blockingServer(t, 1)
	admin := map[string]string{"X-Sandbox-Admin-Key": testAdminKey}
	created := do(t, http.MethodPost, ts.url+"/sandbox/api-keys", admin, `{"locationIds":[1]}`)
	key, _ := created.body["apiKey"].(string)
	if created.status != http.StatusCreated || key == "" {
		t.Fatalf("create API key: %d %s", created.status, created.raw)
	}
	feed := map[string]string{"X-Vendor-API-Key": key}
	if r := do(t, http.MethodGet, ts.url+"/v1/events", feed, ""); r.status != http.StatusOK {
		t.Fatalf("feed before the reset: %d %s", r.status, r.raw)
	}

	blocked := make(chan int, 1)
	go func() {
		code, _ := getStatus(t.Context(), ts.url+"/v1/test/block", nil)
		blocked <- code
	}()
	<-entered // the only place is taken
	type answer struct {
		resp response
		err  error
	}
	held := make(chan answer, 1)
	go func() {
		resp, err := sendRequest(http.MethodGet, ts.url+"/v1/events", feed, "")
		held <- answer{resp, err}
	}()
	<-waiting // admitted, and waiting for the place to read in
	if r := do(t, http.MethodPost, ts.url+"/sandbox/reset", admin, ""); r.status != http.StatusOK {
		t.Fatalf("reset: %d %s", r.status, r.raw)
	}
	close(release)
	if code := <-blocked; code != http.StatusOK {
		t.Errorf("blocking request: %d", code)
	}
	a := <-held
	if a.err != nil {
		t.Fatal(a.err)
	}
	if msg, _ := a.resp.body["message"].(string); a.resp.code() != int(client.CodeAPIKeyInvalid) || !strings.Contains(msg, "reset") {
		t.Errorf("feed admitted before the reset, read after it: %d %s; want 401004 saying the sandbox was reset", a.resp.status, a.resp.raw)
	}
	after := do(t, http.MethodGet, ts.url+"/v1/events", feed, "")
	wantError(t, after, client.CodeAPIKeyInvalid)
}
