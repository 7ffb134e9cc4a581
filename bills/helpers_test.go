package bills_test

import (
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/hospo-dev/hospo-go/possync"
)

const testKey = "test-api-key"

// newTestService returns a Service of a mock service that answers every
// request with fn, without retries so that error tests see the first
// answer.
func newTestService(t testing.TB, fn httpmock.Responder, opts ...bills.Option) *bills.Service {
	t.Helper()
	m := sdktest.NewMock()
	m.Transport.RegisterNoResponder(fn)
	c, err := client.New(
		client.WithBaseURL(sdktest.BaseURL),
		client.WithAPIKey(testKey),
		client.WithHTTPClient(m.HTTPClient),
		client.WithMaxRetries(0),
	)
	if err != nil {
		t.Fatal(err)
	}
	return bills.NewService(c, opts...)
}

// fakeServer is an in-memory closed-bills service behind httpmock: it lists
// its bills by the from/to of each request (inclusive, whole seconds, at
// most 31 days) and answers Get with a record per bill. It records what it
// was asked, so tests can check windows, fetch counts and concurrency.
type fakeServer struct {
	t     testing.TB
	bills []bills.Summary // the dataset, in any order

	// hold, when set, is called at the start of every bill fetch; it may
	// block (it must return when the request's context ends).
	hold func(req *http.Request, id string)
	// failList and failGet make the named list window (by from) or bill
	// fail with the code.
	failList map[string]client.Code
	failGet  map[string]client.Code

	mu          sync.Mutex
	lists       [][2]time.Time // from, to of each list call
	gets        map[string]int // fetches per bill id
	inFlight    int
	maxInFlight int
}

func (f *fakeServer) respond(req *http.Request) (*http.Response, error) {
	if req.Header.Get(client.HeaderAPIKey) != testKey {
		return sdktest.ErrorResponse(client.CodeAPIKeyInvalid), nil
	}
	path, ok := strings.CutPrefix(req.URL.Path, "/prefix/")
	if !ok {
		f.t.Errorf("request outside the base URL: %s", req.URL.Path)
		return sdktest.ErrorResponse(client.CodeNotFound), nil
	}
	switch {
	case strings.HasPrefix(path, "v3/location/") && strings.HasSuffix(path, "/bills/closed"):
		return f.list(req)
	case strings.HasPrefix(path, "v3/bill/"):
		return f.get(req, strings.TrimPrefix(path, "v3/bill/"))
	}
	f.t.Errorf("unexpected request %s %s", req.Method, req.URL)
	return sdktest.ErrorResponse(client.CodeNotFound), nil
}

func (f *fakeServer) list(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	from, err1 := client.ParseQueryTime(q.Get("from"))
	to, err2 := client.ParseQueryTime(q.Get("to"))
	if err1 != nil || err2 != nil || from.After(to) || to.Sub(from) > bills.MaxRange {
		return sdktest.ErrorResponse(client.CodeInvalidQuery), nil
	}
	f.mu.Lock()
	f.lists = append(f.lists, [2]time.Time{from, to})
	code := f.failList[q.Get("from")]
	f.mu.Unlock()
	if code != 0 {
		return sdktest.ErrorResponse(code), nil
	}
	out := bills.ClosedBillsResponse{Bills: []bills.Summary{}, RequestInfo: client.RequestInfo{APIVersion: 3}}
	for _, b := range f.bills {
		if !b.LastUpdated.Before(from) && !b.LastUpdated.After(to) {
			out.Bills = append(out.Bills, b)
		}
	}
	return httpmock.NewJsonResponse(http.StatusOK, out)
}

func (f *fakeServer) get(req *http.Request, id string) (*http.Response, error) {
	f.mu.Lock()
	if f.gets == nil {
		f.gets = map[string]int{}
	}
	f.gets[id]++
	f.inFlight++
	f.maxInFlight = max(f.maxInFlight, f.inFlight)
	code := f.failGet[id]
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	if f.hold != nil {
		f.hold(req, id)
	}
	if code != 0 {
		return sdktest.ErrorResponse(code), nil
	}
	for _, b := range f.bills {
		if b.BillID == id {
			return httpmock.NewJsonResponse(http.StatusOK, bills.BillResponse{
				Bill:        bills.Bill{BillID: id, Status: b.Status, LastUpdated: b.LastUpdated, LocationID: 7},
				RequestInfo: client.RequestInfo{APIVersion: 3},
			})
		}
	}
	return sdktest.ErrorResponse(client.CodeNotFound), nil
}

func (f *fakeServer) service(opts ...bills.Option) *bills.Service {
	return newTestService(f.t, f.respond, opts...)
}

// fetches returns a copy of the fetch counts.
func (f *fakeServer) fetches() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int, len(f.gets))
	for k, v := range f.gets {
		out[k] = v
	}
	return out
}

// summaries builds closed bill summaries "b<n>" stamped at the given times.
func summaries(times ...time.Time) []bills.Summary {
	out := make([]bills.Summary, len(times))
	for i, tm := range times {
		out[i] = bills.Summary{BillID: "b" + strconv.Itoa(i), Status: possync.CheckClosed, LastUpdated: client.BillTime{Time: tm.UTC()}}
	}
	return out
}

// collect runs an iterator to its end and returns the bill ids and the
// error it ended with.
func collect(seq func(func(*bills.Bill, error) bool)) (ids []string, err error) {
	for b, e := range seq {
		if e != nil {
			return ids, e
		}
		ids = append(ids, b.BillID)
	}
	return ids, nil
}

// waitNoIteratorGoroutines waits until no goroutine runs code of package
// bills and the goroutine count is back to baseline, and fails the test
// otherwise, showing the goroutines that remain.
func waitNoIteratorGoroutines(t testing.TB, baseline int) {
	t.Helper()
	var stacks string
	var n int
	var leaked, done bool
	defer func() {
		if !done {
			t.Logf("goroutines not back to baseline %d (now %d, iterator code running: %v):\n%s", baseline, n, leaked, stacks)
		}
	}()
	sdktest.Eventually(t, "the iterator's goroutines to end", func() bool {
		buf := make([]byte, 1<<20)
		stacks = string(buf[:runtime.Stack(buf, true)])
		leaked = strings.Contains(stacks, "hospo-go/bills.(*Service)")
		n = runtime.NumGoroutine()
		return !leaked && n <= baseline
	})
	done = true
}
