package refserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// answer is a raw answer: status and, for an error, its code and message.
type answer struct {
	Status  int
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// send makes one request (with the admin key when admin) and reads the
// error body, if any. It is safe to call from any goroutine.
func send(env *refservertest.Env, method, path string, admin bool, body any) (answer, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, env.URL+path, rd)
	if err != nil {
		return answer{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if admin {
		req.Header.Set("X-Sandbox-Admin-Key", env.AdminKey)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer res.Body.Close()
	a := answer{Status: res.StatusCode}
	if res.StatusCode >= 400 {
		var e struct {
			Error answer `json:"error"`
		}
		b, _ := io.ReadAll(res.Body)
		if err := json.Unmarshal(b, &e); err != nil {
			_ = json.Unmarshal(b, &a)
		} else {
			a.Code, a.Message = e.Error.Code, e.Error.Message
		}
	}
	return a, nil
}

// startOrdered starts a server whose requests' writes can be queued in a
// known order with queueBehind.
func startOrdered(t *testing.T, opts ...refservertest.Option) (*refservertest.Env, <-chan struct{}) {
	queued := make(chan struct{}, 64)
	opts = append(opts, refservertest.WithConfig(refserver.WithWriteQueued(func(ctx context.Context) {
		// A request's write, not a background worker's.
		if ctx.Value(http.ServerContextKey) != nil {
			queued <- struct{}{}
		}
	})))
	return refservertest.Start(t, opts...), queued
}

// waitQueued waits for the next write of a request to be queued; done
// fails the test when the request answers first.
func waitQueued(t *testing.T, queued <-chan struct{}, done <-chan result) {
	t.Helper()
	select {
	case <-queued:
	case r := <-done:
		t.Fatalf("request %d answered without queueing a write: %+v, %v", r.i, r.a, r.err)
	}
}

// drain forgets the writes queued so far.
func drain(queued <-chan struct{}) {
	for {
		select {
		case <-queued:
		default:
			return
		}
	}
}

// result is the answer to the i-th request of queueBehind.
type result struct {
	i   int
	a   answer
	err error
}

// queueBehind sends each request in order, each once the one before has
// queued its write for the database's writer, which is held until all
// have; it returns their answers.
func queueBehind(t *testing.T, env *refservertest.Env, queued <-chan struct{}, reqs ...func() (answer, error)) []answer {
	t.Helper()
	drain(queued)
	held, release := env.Server.HoldWriter()
	<-held
	results := make(chan result, len(reqs))
	for i, req := range reqs {
		go func() {
			a, err := req()
			results <- result{i, a, err}
		}()
		waitQueued(t, queued, results)
	}
	release()
	out := make([]answer, len(reqs))
	for range reqs {
		r := <-results
		if r.err != nil {
			t.Fatalf("request %d: %v", r.i, r.err)
		}
		out[r.i] = r.a
	}
	return out
}

// order is a one-line order from the demo menu of location 1.
var order = map[string]any{"locationId": 1, "items": []map[string]any{{"plu": "SD-FRIES", "quantity": 2}}}

// TestWritesQueuedBehindAReset: writes whose credential was checked before
// a reset and that run after it. A demo user's order goes through (its
// token is made again by the reset); the order of a user the reset
// removed, and a push of a location it removed, get their credential's
// 401 saying why, not a 500; the reset itself answers 200.
func TestWritesQueuedBehindAReset(t *testing.T) {
	t.Parallel()
	env, queued := startOrdered(t)
	demo := env.Fixtures(t).Users[0].AccessToken
	_, gone := env.NewUser(t)
	venue := env.NewVenue(t, refservertest.VenueConfig{Name: "Gone"})
	gonePOS, push := venue.POSToken, venue.OpenCheck(1, "9.00")

	got := queueBehind(t, env, queued,
		func() (answer, error) { return send(env, "POST", "/sandbox/reset", true, nil) },
		func() (answer, error) { return send(env, "POST", "/ordering/v3/order?accessToken="+gone, false, order) },
		func() (answer, error) {
			return send(env, "POST", "/v1/pos/push-pull/check?accessToken="+gonePOS, false, push)
		},
		func() (answer, error) { return send(env, "POST", "/ordering/v3/order?accessToken="+demo, false, order) },
	)
	if got[0].Status != http.StatusOK {
		t.Errorf("reset: %+v", got[0])
	}
	for i, what := range map[int]string{1: "the removed user's order", 2: "the removed location's push"} {
		if got[i].Code != int(client.CodeAccessTokenInvalid) || !strings.Contains(got[i].Message, "reset") {
			t.Errorf("%s: %+v, want 401002 saying the sandbox was reset", what, got[i])
		}
	}
	if got[3].Status != http.StatusCreated {
		t.Errorf("the demo user's order: %+v, want 201", got[3])
	}
}

// TestWritesQueuedBehindARestore is TestWritesQueuedBehindAReset with a
// snapshot restore: the credential of a user made after the snapshot
// does not exist in the restored state.
func TestWritesQueuedBehindARestore(t *testing.T) {
	t.Parallel()
	env, queued := startOrdered(t)
	demo := env.Fixtures(t).Users[0].AccessToken
	var snap struct {
		SnapshotID string `json:"snapshotId"`
	}
	if st := env.AdminDo(t, "POST", "/sandbox/snapshots", map[string]string{"name": "before"}, &snap); st != http.StatusCreated {
		t.Fatalf("snapshot: %d", st)
	}
	_, gone := env.NewUser(t)

	got := queueBehind(t, env, queued,
		func() (answer, error) {
			return send(env, "POST", "/sandbox/snapshots/"+snap.SnapshotID+"/restore", true, nil)
		},
		func() (answer, error) { return send(env, "POST", "/ordering/v3/order?accessToken="+gone, false, order) },
		func() (answer, error) { return send(env, "POST", "/ordering/v3/order?accessToken="+demo, false, order) },
	)
	if got[0].Status != http.StatusOK {
		t.Errorf("restore: %+v", got[0])
	}
	if got[1].Code != int(client.CodeAccessTokenInvalid) || !strings.Contains(got[1].Message, "restored") {
		t.Errorf("the removed user's order: %+v, want 401002 saying a snapshot was restored", got[1])
	}
	if got[2].Status != http.StatusCreated {
		t.Errorf("the demo user's order: %+v, want 201", got[2])
	}
}

// TestResetAnswersWithTheFixtureReady: the first order after a reset's
// answer finds the demo menu, even when the demo POS cannot be reached
// (so no menu sync can have brought it).
func TestResetAnswersWithTheFixtureReady(t *testing.T) {
	t.Parallel()
	unreachable := &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
		return nil, errors.New("the POS is unreachable in this test")
	})}
	env := refservertest.Start(t, func(c *refservertest.Options) { c.HTTPClient = unreachable })
	orders := fulfillment.NewService(env.Client(t, client.WithAccessToken(env.Fixtures(t).Users[0].AccessToken)))
	for i := range 3 {
		if st := env.AdminDo(t, "POST", "/sandbox/reset", nil, nil); st != http.StatusOK {
			t.Fatalf("reset %d: %d", i, st)
		}
		_, err := orders.CreateOrder(t.Context(), fulfillment.OrderRequest{LocationID: 1,
			Items: []fulfillment.OrderLine{{PLU: "SD-FRIES", Quantity: 2}}}, client.WithMaxRetries(0))
		if err != nil {
			t.Fatalf("order after reset %d: %v", i, err)
		}
	}
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestResetIsOneStep: nothing runs between a reset's wipe and its fresh
// fixture. A write queued right behind the reset holds the writer; while
// it does, the demo user and location are there (they were missing in
// between when the reset seeded in a write of its own).
func TestResetIsOneStep(t *testing.T) {
	t.Parallel()
	env, queued := startOrdered(t)
	demo := env.Fixtures(t).Users[0].AccessToken
	drain(queued)
	held, release := env.Server.HoldWriter()
	<-held
	reset := make(chan result, 1)
	go func() {
		a, err := send(env, "POST", "/sandbox/reset", true, nil)
		reset <- result{0, a, err}
	}()
	waitQueued(t, queued, reset)
	behind, releaseBehind := env.Server.HoldWriter()
	release()
	<-behind // what the reset queued first has run
	for _, path := range []string{"/v1/location/2", "/v1/user/me?accessToken=" + demo} {
		if a, err := send(env, "GET", path, false, nil); err != nil || a.Status != http.StatusOK {
			t.Errorf("GET %s while the reset's first write is done: %+v, %v", path, a, err)
		}
	}
	releaseBehind()
	if r := <-reset; r.err != nil || r.a.Status != http.StatusOK {
		t.Errorf("reset: %+v, %v", r.a, r.err)
	}
}
