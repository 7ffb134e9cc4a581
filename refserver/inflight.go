package refserver

import (
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
)

// DefaultMaxInFlight is how many API requests are handled at once when
// Config.MaxInFlight is 0.
const DefaultMaxInFlight = 256

// limitInFlight bounds the API requests being handled at once. Past the
// bound a request waits for one to finish. Its body is read before it
// waits (bounded by limitBody), so a client that sends its body slowly
// holds no place that others need. On two cores a few hundred handlers
// already keep the single writer busy; without the bound an overloaded
// server held thousands of decoded requests waiting for it, and its memory
// grew with the offered load instead of staying flat. A request whose
// client gives up while waiting is answered 429001 (for the journal; the
// client is gone). Sandbox admin requests are not counted, so the sandbox
// stays controllable under load, and neither is a request's injected
// latency (the middleware sits after injectFaults).
func (s *Server) limitInFlight(next http.Handler) http.Handler {
	n := s.cfg.MaxInFlight
	if n == 0 {
		n = DefaultMaxInFlight
	}
	if n < 0 {
		return next
	}
	slots := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isAdminPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			if _, err := s.readBody(r); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		select {
		case slots <- struct{}{}:
		default: // full: wait
			if s.cfg.inFlightWait != nil {
				s.cfg.inFlightWait()
			}
			select {
			case slots <- struct{}{}:
			case <-r.Context().Done():
				w.Header().Set("Retry-After", "1")
				s.writeError(w, r, apiErr(client.CodeTooManyRequests))
				return
			}
		}
		defer func() { <-slots }()
		next.ServeHTTP(w, r)
	})
}
