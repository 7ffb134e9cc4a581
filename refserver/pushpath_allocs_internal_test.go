package refserver

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// maxPushPathAllocs bounds the allocations of a check push's way through
// the server's middleware (tracing, journal, access log, recovery, faults,
// body limit, content type, the POS guard with its token lookup and body
// read, the in-flight bound), the write endpoint and the JSON answer,
// without the decoding, the rules and the store's own transaction, which
// a push needs besides. It was 40 before the plumbing was made to
// allocate less (13 then); a change that puts back a query map, a hex hash, a
// context per layer or a header slice per value fails here.
const maxPushPathAllocs = 15

// The way of a check push through the server, but for the work of the
// push itself, allocates at most maxPushPathAllocs times, counted through
// the server's own handler.
func TestCheckPushPathAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts do not hold under the race detector")
	}
	ts, push := pushPath(t)
	// The store's own transaction, which is not the plumbing's.
	ctx := t.Context()
	tx := testing.AllocsPerRun(200, func() {
		if err := ts.db.Write(ctx, func(*store.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	})
	n := testing.AllocsPerRun(200, push) - tx
	t.Logf("%v allocations per push besides the transaction's %v", n, tx)
	if n > maxPushPathAllocs {
		t.Errorf("a push's way through the server allocates %v times besides its transaction, want at most %d", n, maxPushPathAllocs)
	}
}

// BenchmarkCheckPushPath measures the way of a check push through the
// server but for the push's own work (decoding, rules, store), as
// TestCheckPushPathAllocations counts it: the server's handler called in
// process, without the HTTP connection.
//
//	go test -run='^$' -bench=CheckPushPath -benchmem ./refserver/
func BenchmarkCheckPushPath(b *testing.B) {
	_, push := pushPath(b)
	b.ReportAllocs()
	for b.Loop() {
		push()
	}
}

// pushPath starts a server with a stand-in for the check push (a POS
// write answering a PushResult, located like a check) and returns the
// function that sends it one push through the server's handler, in
// process, with a ResponseWriter and a request that are reused.
func pushPath(tb testing.TB) (*testServer, func()) {
	ts := newTestServer(tb, func(c *Config) {
		c.routeHook = func(s *Server, r chi.Router) {
			s.writes.Post(r.With(s.guards.POS), "/v1/test/pos-push", http.StatusOK, func(r *http.Request) (api.Write, error) {
				loc := api.RequestFrom(r.Context()).Principal().LocationID
				return func(*store.Tx) (any, error) {
					return api.Located{
						Response: possync.PushResult{BillID: "b", Version: 1, RequestInfo: s.api.Info(r)},
						Location: &loc,
					}, nil
				}, nil
			})
		}
	})
	f, err := ts.Fixtures(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	token := f.Locations[0].POSAccessToken
	body := []byte(`{"checkNumber":1}`)
	h := ts.Handler()
	u, err := url.Parse("http://127.0.0.1/v1/test/pos-push?accessToken=" + token)
	if err != nil {
		tb.Fatal(err)
	}
	rd := bytes.NewReader(body)
	req := &http.Request{
		Method: http.MethodPost, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          http.NoBody,
		ContentLength: int64(len(body)),
		Host:          "127.0.0.1", RemoteAddr: "127.0.0.1:40000", RequestURI: u.RequestURI(),
	}
	req = req.WithContext(tb.Context())
	w := &reusedWriter{header: http.Header{}}
	push := func() {
		rd.Reset(body)
		req.Body = nopCloser{rd}
		w.reset()
		h.ServeHTTP(w, req)
	}
	push() // the token is looked up once, then cached
	if w.status != http.StatusOK || !strings.Contains(w.body.String(), `"billId":"b"`) {
		tb.Fatalf("status %d, body %s", w.status, w.body.String())
	}
	return ts, push
}

// reusedWriter is a ResponseWriter that keeps its header map and body
// buffer between requests, so that only the server's allocations count.
type reusedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *reusedWriter) reset() {
	clear(w.header)
	w.status = 0
	w.body.Reset()
}

func (w *reusedWriter) Header() http.Header { return w.header }
func (w *reusedWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *reusedWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }
