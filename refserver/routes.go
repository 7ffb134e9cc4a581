package refserver

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
)

// routes builds the handler: the middleware every request passes, in order,
// then each area's routes. The console (/console) is served in front of
// all of it.
//
//   - withState: request id (X-Request-Id on every response) and the
//     per-request state the rest shares
//   - journalRequests: the request journal (GET /sandbox/requests)
//   - accessLog: one line per request, never a URL or credential
//   - recoverer: a panic becomes 500001
//   - injectFaults: sandbox faults (before the rest, so a fault can stand
//     for any failure, and after-commit faults see the full chain)
//   - limitInFlight: at most Config.MaxInFlight API requests at once
//   - limitBody, requireJSON: 413001, 415001
//   - rateLimit: 429001 per credential
//   - resolveToken: the accessToken's status, looked up once for
//     requestInfo and the auth middleware
//   - validateRequests: the OpenAPI request check, when configured
//   - idempotency: Idempotency-Key replay and 409004 for every POST
func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	j := newJournal(s.cfg.JournalSize)
	r.Use(s.withState, s.journalRequests(j), s.accessLog, s.recoverer, s.injectFaults,
		s.limitBody, s.requireJSON, s.limitInFlight, s.rateLimit, s.resolveToken, s.validateRequests, s.idempotency)
	r.NotFound(s.notFound)
	r.MethodNotAllowed(s.methodNotAllowed)

	s.mountDocs(r)
	s.mountSandbox(r)
	s.mountJournal(r, j)
	s.mountWallet(r)
	s.mountPOS(r)
	s.mountBills(r)
	s.mountOrdering(r)
	s.mountUniversalPOS(r)
	if s.cfg.routeHook != nil {
		s.cfg.routeHook(s, r)
	}
	return s.withConsole(r, j)
}

// validateRequests applies the OpenAPI request validator to the API routes
// (the document's own advice: not the sandbox admin endpoints, not the
// console). Without Config.ValidateRequests it does nothing.
func (s *Server) validateRequests(next http.Handler) http.Handler {
	if s.validate == nil {
		return next
	}
	checked := s.validate(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/sandbox/") || strings.HasPrefix(r.URL.Path, "/console") {
			next.ServeHTTP(w, r)
			return
		}
		checked.ServeHTTP(w, r)
	})
}
