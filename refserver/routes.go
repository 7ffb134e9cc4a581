package refserver

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/openapi"
	"github.com/hospo-dev/hospo-go/refserver/sandbox"
)

// routes builds the handler: the middleware every request passes, in order,
// then the route table. The console (/console) is served in front of all
// of it.
//
//   - api.Tracing: request id (X-Request-Id on every response) and the
//     trace the next two read
//   - journalRequests: the request journal (GET /sandbox/requests)
//   - api.AccessLog: one line per request, never a URL or credential
//   - Recover: a panic becomes 500001
//   - Faults: sandbox faults (before the rest, so a fault can stand for any
//     failure, and after-commit faults see the full chain)
//   - LimitBody, RequireJSON: 413001, 415001
//   - InFlight: at most Config.MaxInFlight API requests at once
//   - RateLimit: 429001 per credential
//   - validateRequests: the OpenAPI request check, when configured
//
// Each route then has its credential guard, which makes the request
// record, and every POST runs through s.writes: Idempotency-Key replay and
// 409004, and the write transaction.
func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	j := newJournal(s.cfg.JournalSize)
	inFlight := s.cfg.MaxInFlight
	if inFlight == 0 {
		inFlight = DefaultMaxInFlight
	}
	r.Use(api.Tracing, journalRequests(j, s.clock.Now, s.clock.Real), api.AccessLog(s.log, s.clock.Real), s.api.Recover,
		exceptAdmin(s.api.Faults(s.faults)), s.api.LimitBody, s.api.RequireJSON,
		exceptAdmin(s.api.InFlight(inFlight, s.cfg.inFlightWait)),
		exceptAdmin(s.api.RateLimit(api.NewRateLimiter(s.cfg.RateLimit, s.cfg.RateBurst, s.clock.Real))),
		s.validateRequests)
	r.NotFound(s.api.NotFound)
	r.MethodNotAllowed(s.api.NotFound)

	// Public: the documents, a location's details and its menu.
	r.Group(func(r chi.Router) {
		r.Use(s.guards.Public)
		r.Get("/openapi.json", serveDocument(openapi.Spec()))
		r.Get("/universal-pos/openapi.json", serveDocument(openapi.UniversalPOSSpec()))
		r.Get("/v1/location/{locationId}", s.handleGetLocation)
		r.Get("/v2/location/{id}/menu", s.handleLocationMenu)
	})
	// Users: wallet, payments, orders.
	r.Group(func(r chi.Router) {
		r.Use(s.guards.User)
		r.Get("/v1/user/me", s.handleGetUser)
		s.writes.Post(r, "/v3/user/me/wallet/card/insert", http.StatusOK, s.handleCardInsert)
		r.Get("/v2/payment/providerD/keys", s.handleProviderDKeys)
		s.writes.Post(r, "/payments/v1/payment", http.StatusCreated, s.handleCreatePayment)
		r.Get("/payments/v1/payment/{paymentId}", s.handleGetPayment)
		s.writes.Post(r, "/ordering/v3/order", http.StatusCreated, s.handleCreateOrder)
		r.Get("/ordering/v3/order/{orderId}", s.handleGetOrder)
		s.writes.Post(r, "/ordering/v3/order/{orderId}/fulfillment-type/{method}", http.StatusAccepted, s.handleSetFulfillment)
	})
	// POSes: push-pull.
	r.Group(func(r chi.Router) {
		r.Use(s.guards.POS)
		s.writes.Post(r, "/v1/pos/push-pull/check", http.StatusOK, s.handleCheckPush)
		r.Get("/v1/pos/push-pull/payments/{locationId}", s.handlePaymentsPoll)
		s.writes.Post(r, "/v1/pos/push-pull/accept-payment", http.StatusOK, s.handleAcceptPayment)
		s.writes.Post(r, "/v1/pos/push-pull/heartbeat/{locationId}", http.StatusOK, s.handleHeartbeat)
	})
	// Vendors: bills.
	r.Group(func(r chi.Router) {
		r.Use(s.guards.APIKey)
		r.Get("/v3/location/{locationId}/bills/closed", s.handleListClosedBills)
		r.Get("/v3/bill/{billId}", s.handleGetBill)
	})
	// The sandbox's public side: its CA certificate, the payment providers
	// (public like a real provider's endpoints; providerD's tokenisation
	// refuses plain HTTP itself) and the demo universal POS, whose requests
	// faults apply to (that is how a demo makes it fail).
	r.Group(func(r chi.Router) {
		r.Use(s.guards.Public)
		r.Get("/sandbox/ca.pem", s.handleCAPEM)
		r.Get("/sandbox/providerB/public-key", s.handleProviderBPublicKey)
		r.Post(providerDTokenisePath, s.handleProviderDTokenise)
		r.Handle(sandbox.DemoPOSPath+"/*", http.StripPrefix(sandbox.DemoPOSPath, s.pos.demo))
	})
	// The sandbox admin API (contract.md section 6).
	r.Group(func(r chi.Router) {
		r.Use(s.guards.Admin)
		r.Get("/sandbox/fixtures", s.handleFixtures)
		s.writes.Post(r, "/sandbox/users", http.StatusCreated, s.handleCreateUser)
		s.writes.Post(r, "/sandbox/locations", http.StatusCreated, s.handleCreateLocation)
		s.writes.Post(r, "/sandbox/api-keys", http.StatusCreated, s.handleCreateAPIKey)
		s.writes.Post(r, "/sandbox/cards/{cardId}/status", http.StatusOK, s.handleSetCardStatus)
		r.Get("/sandbox/clock", s.handleGetClock)
		s.writes.Post(r, "/sandbox/clock", http.StatusOK, s.handleAdvanceClock)
		s.writes.Post(r, "/sandbox/reset", http.StatusOK, s.handleReset)
		r.Get("/sandbox/faults", s.handleListFaults)
		s.writes.Post(r, "/sandbox/faults", http.StatusCreated, s.handleAddFault)
		r.Delete("/sandbox/faults", s.handleClearFaults)
		r.Get(journalPath, journalHandler(s.api, j))
	})
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
