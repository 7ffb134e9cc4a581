package refserver

import (
	"net/http"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// adminPaths are the sandbox admin endpoints. Faults never apply to them
// (a test must be able to clear the faults it set) and neither does the
// rate limit.
var adminPaths = []string{
	"/sandbox/fixtures", "/sandbox/users", "/sandbox/locations", "/sandbox/api-keys",
	"/sandbox/clock", "/sandbox/reset", "/sandbox/faults", "/sandbox/cards/",
	"/sandbox/requests",
}

func isAdminPath(p string) bool {
	for _, a := range adminPaths {
		if p == a || strings.HasPrefix(p, a+"/") || (strings.HasSuffix(a, "/") && strings.HasPrefix(p, a)) {
			return true
		}
	}
	return false
}

// injectFaults applies the faults registered with POST /sandbox/faults.
// A matching request waits LatencyMs (or until the client gives up) and
// then fails with the fault's status and code status*1000+1. With
// AfterCommit the request is carried out first (the handler runs, its
// transaction and idempotency record commit) and only the response is
// replaced, as if it had been lost on the way back.
func (s *Server) injectFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isAdminPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		f, ok := s.faults.Take(r.Method, r.URL.Path)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if f.LatencyMs > 0 {
			t := time.NewTimer(time.Duration(f.LatencyMs) * time.Millisecond)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		if f.Status == 0 { // latency only
			next.ServeHTTP(w, r)
			return
		}
		if f.AfterCommit {
			next.ServeHTTP(&discardWriter{header: http.Header{}}, r)
		}
		s.writeError(w, r, &APIError{
			Code:    client.Code(f.Status*1000 + 1),
			Message: "Injected fault.",
		})
	})
}

// discardWriter swallows the response of a request whose response an
// after-commit fault replaces.
type discardWriter struct {
	header http.Header
}

func (d *discardWriter) Header() http.Header         { return d.header }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}
