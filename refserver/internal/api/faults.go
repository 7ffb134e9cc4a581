package api

import (
	"net/http"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/sim"
)

// Faults returns middleware that applies the faults registered in f (POST
// /sandbox/faults). A matching request waits LatencyMs (or until the
// client gives up) and then fails with the fault's status and code
// status*1000+1. With AfterCommit the request is carried out first (the
// handler runs, its transaction and idempotency record commit) and only
// the response is replaced, as if it had been lost on the way back. Only
// route groups that may fail get it: never the sandbox admin API, so that
// a test can always clear the faults it set. The server's own calls to
// itself (self) pass untouched: they neither use a fault up nor fail by it.
func (rd *Responder) Faults(f *sim.Faults, self *SelfCalls) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if self.Is(r) {
				next.ServeHTTP(w, r)
				return
			}
			fault, ok := f.Take(r.Method, r.URL.Path)
			if !ok {
				next.ServeHTTP(w, r)
				return
			}
			if fault.LatencyMs > 0 {
				t := time.NewTimer(time.Duration(fault.LatencyMs) * time.Millisecond)
				select {
				case <-t.C:
				case <-r.Context().Done():
					// The client gave up during the latency: drop the
					// connection rather than let an empty 200 stand for
					// an answer in the journal and the access log.
					t.Stop()
					panic(http.ErrAbortHandler)
				}
			}
			if fault.Status == 0 { // latency only
				next.ServeHTTP(w, r)
				return
			}
			if fault.AfterCommit {
				next.ServeHTTP(&discardWriter{header: http.Header{}, trace: TraceOf(w)}, r)
			}
			rd.Error(w, r, &Error{
				Code:    client.Code(fault.Status*1000 + 1),
				Message: "Injected fault.",
			})
		})
	}
}

// discardWriter swallows the response of a request whose response an
// after-commit fault replaces. What the handler reports to the trace
// still reaches it.
type discardWriter struct {
	header http.Header
	trace  *Trace
}

func (d *discardWriter) Header() http.Header         { return d.header }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}
