package refserver

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/journal"
	"github.com/hospo-dev/hospo-go/refserver/openapi"
	"github.com/hospo-dev/hospo-go/refserver/sim"
)

// routes builds the handler: the route table, in groups that carry their
// own middleware. The console (/console) is served in front of all of it.
//
// Every request first passes api.Tracing (the request id, X-Request-Id on
// every response; it wraps the router, whose routing context it carries:
// withConsole), the telemetry middleware (a server span and the request
// metrics, when Config has providers), journal.Record (the request journal), api.AccessLog
// (one line per request, never a URL or credential) and Recover (a panic
// becomes 500001). Then, by group:
//
//   - the API (and every unknown route): Faults (sandbox faults, first so
//     that a fault can stand for any failure, and after-commit faults see
//     the full chain), LimitBody and RequireJSON (413001, 415001), then the
//     route's credential guard, which takes the caller's token of the rate
//     limit (429001 per verified caller, or per client address for a
//     missing or failed credential), reads the body only of a request it
//     admits and passes it on to InFlight (at most Config.MaxInFlight
//     requests at once; the event feed takes its place only while it
//     reads, not while it waits) and the OpenAPI request check when
//     configured;
//   - the sandbox's public side (its home page, its certificate, the
//     payment providers, the demo universal POS): the same without the
//     OpenAPI check, which is for the API's own routes;
//   - the sandbox admin API: OnlyHosts (loopback host names and the
//     configured ones, against DNS rebinding), LimitBody, RequireJSON and
//     its guard, which limits wrong admin keys per client address, and
//     nothing else, so that a test can always clear the faults it set and
//     is never throttled by the limits under test. The console answers
//     under the same host names.
//
// Inside each group a credential guard makes the request record; every GET
// that reads state is registered through s.reads, and every POST that
// changes state through s.writes.
func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	j := journal.New(s.cfg.JournalSize)
	r.Use(s.tel.Middleware, journal.Record(j, s.clock.Now, s.clock.Real), api.AccessLog(s.log, s.clock.Real), s.api.Recover)

	n := s.cfg.MaxInFlight
	if n == 0 {
		n = DefaultMaxInFlight
	}
	sb := sandboxAPI{s}
	faults := s.api.Faults(s.faults, s.selfCalls)
	s.inFlight = s.api.NewInFlight(n, s.cfg.inFlightWait)
	inFlight := s.inFlight.Middleware
	guards := api.NewGuards(s.api, s.tokens, s.db, s.cfg.AdminKey).
		Limit(api.NewRateLimiter(s.cfg.RateLimit, s.cfg.RateBurst, s.clock.Real)).
		LimitAdminKeys(s.adminKeys)
	adminHosts := s.api.OnlyHosts(s.adminHosts())
	s.guards = guards.With(inFlight, s.validate)
	// The event feed holds a place under the bound only while it reads,
	// never while it waits for events (events.go).
	feedGuards := guards.With(s.validate)

	r.Group(func(r chi.Router) {
		r.Use(faults, s.api.LimitBody, s.api.RequireJSON)
		r.NotFound(guards.Unrouted(http.HandlerFunc(s.api.NoRoute)).ServeHTTP)
		r.MethodNotAllowed(guards.Unrouted(s.api.MethodNotAllowed(r)).ServeHTTP)

		// Public: the documents, a location's details and its menu.
		r.Group(func(r chi.Router) {
			r.Use(s.guards.Public)
			r.Get("/openapi.json", serveStatic("application/json", openapi.Spec()))
			r.Get("/universal-pos/openapi.json", serveStatic("application/json", openapi.UniversalPOSSpec()))
			s.reads.Get(r, "/v1/location/{locationId}", s.handleGetLocation)
			s.reads.Get(r, "/v2/location/{id}/menu", s.handleLocationMenu)
		})
		// Users: wallet, payments, orders.
		r.Group(func(r chi.Router) {
			r.Use(s.guards.User)
			s.reads.Get(r, "/v1/user/me", s.handleGetUser)
			s.writes.Post(r, "/v3/user/me/wallet/card/insert", http.StatusOK, s.handleCardInsert)
			r.Get("/v2/payment/providerD/keys", s.handleProviderDKeys)
			s.writes.Post(r, "/payments/v1/payment", http.StatusCreated, s.handleCreatePayment)
			s.reads.Get(r, "/payments/v1/payment/{paymentId}", s.handleGetPayment)
			s.writes.Post(r, "/ordering/v3/order", http.StatusCreated, s.handleCreateOrder)
			s.reads.Get(r, "/ordering/v3/order/{orderId}", s.handleGetOrder)
			s.writes.Post(r, "/ordering/v3/order/{orderId}/fulfillment-type/{method}", http.StatusAccepted, s.handleSetFulfillment)
		})
		// POSes: push-pull.
		r.Group(func(r chi.Router) {
			r.Use(s.guards.POS)
			s.writes.Post(r, "/v1/pos/push-pull/check", http.StatusOK, s.handleCheckPush)
			s.reads.Get(r, "/v1/pos/push-pull/payments/{locationId}", s.handlePaymentsPoll)
			s.writes.Post(r, "/v1/pos/push-pull/accept-payment", http.StatusOK, s.handleAcceptPayment)
			s.writes.Post(r, "/v1/pos/push-pull/heartbeat/{locationId}", http.StatusOK, s.handleHeartbeat)
		})
		// Vendors: bills, webhooks and the event feed.
		r.Group(func(r chi.Router) {
			r.Use(s.guards.APIKey)
			s.reads.Get(r, "/v3/location/{locationId}/bills/closed", s.handleListClosedBills)
			s.reads.Get(r, "/v3/bill/{billId}", s.handleGetBill)
			s.writes.Post(r, "/v1/webhooks", http.StatusCreated, s.handleCreateWebhook)
			s.reads.Get(r, "/v1/webhooks", s.handleListWebhooks)
			r.Delete("/v1/webhooks/{webhookId}", s.handleDeleteWebhook)
			s.writes.Post(r, "/v1/webhooks/{webhookId}/ping", http.StatusAccepted, s.handlePingWebhook)
			s.reads.Get(r, "/v1/webhooks/{webhookId}/deliveries", s.handleListDeliveries)
			s.writes.Post(r, "/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", http.StatusAccepted, s.handleRedeliver)
		})
		r.With(feedGuards.APIKey).Get("/v1/events", s.handleEventFeed)
		if s.cfg.routeHook != nil {
			s.cfg.routeHook(s, r)
		}
	})

	// The sandbox's public side: the home page is for a browser opening
	// the base URL; the payment providers are public like a real
	// provider's endpoints (providerD's tokenisation refuses plain HTTP
	// itself), and faults apply to the demo universal POS when a client
	// calls it, but not to the server's own calls (its demo-pos mode is
	// how a demo makes those fail); nor do the rate limit and the in-flight
	// bound, which the server's own calls would otherwise share with the
	// clients on its loopback address.
	r.Group(func(r chi.Router) {
		r.Use(faults, s.api.LimitBody, s.api.RequireJSON, guards.With(inFlight).ExemptSelf(s.selfCalls).Public)
		r.Get("/", handleHome)
		s.reads.Get(r, "/sandbox/health", sb.handleHealth)
		r.Get("/sandbox/ca.pem", serveStatic("application/x-pem-file", s.cert.CertPEM))
		r.Get("/sandbox/providerB/public-key", sb.handleProviderBPublicKey)
		r.Post(providerDTokenisePath, sb.handleProviderDTokenise)
		r.Handle(sim.DemoPOSPath+"/*", http.StripPrefix(sim.DemoPOSPath, s.demoPOS))
	})

	// The sandbox admin API (contract.md section 6). s.admin holds the same
	// routes alone, to tell a path of the admin API from the rest.
	admin := func(r chi.Router) {
		s.reads.Get(r, "/sandbox/fixtures", sb.handleFixtures)
		s.writes.Post(r, "/sandbox/users", http.StatusCreated, sb.handleCreateUser)
		s.writes.Post(r, "/sandbox/locations", http.StatusCreated, sb.handleCreateLocation)
		s.writes.Post(r, "/sandbox/api-keys", http.StatusCreated, sb.handleCreateAPIKey)
		s.writes.Post(r, "/sandbox/cards/{cardId}/status", http.StatusOK, sb.handleSetCardStatus)
		s.reads.Get(r, "/sandbox/clock", sb.handleGetClock)
		s.writes.Post(r, "/sandbox/clock", http.StatusOK, sb.handleAdvanceClock)
		s.writes.Post(r, "/sandbox/reset", http.StatusOK, sb.handleReset)
		s.reads.Get(r, "/sandbox/faults", sb.handleListFaults)
		s.writes.Post(r, "/sandbox/faults", http.StatusCreated, sb.handleAddFault)
		r.Delete("/sandbox/faults", sb.handleClearFaults)
		s.writes.Post(r, "/sandbox/snapshots", http.StatusCreated, sb.handleCreateSnapshot)
		s.reads.Get(r, "/sandbox/snapshots", sb.handleListSnapshots)
		s.writes.Post(r, "/sandbox/snapshots/{snapshotId}/restore", http.StatusOK, sb.handleRestoreSnapshot)
		r.Delete("/sandbox/snapshots/{snapshotId}", sb.handleDeleteSnapshot)
		// The sandbox plays the other side (contract.md section 9).
		s.writes.Post(r, "/sandbox/locations/{locationId}/checks/{checkNumber}/payments", http.StatusCreated, sb.handlePayCheck)
		r.Method(http.MethodPut, "/sandbox/locations/{locationId}/diners", s.writes.Handler(http.StatusOK, sb.handleSetDiners))
		s.reads.Get(r, "/sandbox/locations/{locationId}/diners", sb.handleGetDiners)
		r.Delete("/sandbox/locations/{locationId}/diners", sb.handleStopDiners)
		r.Method(http.MethodPut, "/sandbox/locations/{locationId}/demo-pos", s.writes.Handler(http.StatusOK, sb.handleSetDemoPOS))
		s.reads.Get(r, "/sandbox/locations/{locationId}/demo-pos", sb.handleGetDemoPOS)
		s.writes.Post(r, "/sandbox/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", http.StatusAccepted, sb.handleRedeliver)
		s.reads.Get(r, "/sandbox/public-urls", sb.handleGetPublicURLs)
		r.Method(http.MethodPut, "/sandbox/public-urls", s.writes.Handler(http.StatusOK, sb.handleSetPublicURLs))
		r.Get(journal.Path, journal.Handler(s.api, j))
	}
	r.Group(func(r chi.Router) {
		r.Use(adminHosts, s.api.LimitBody, s.api.RequireJSON, guards.Admin)
		admin(r)
	})
	adminOnly := chi.NewRouter()
	admin(adminOnly)
	s.admin = adminOnly

	return s.withConsole(r, j, adminHosts)
}

// Wrong admin keys: each client address may send adminKeyBurst of them,
// then one more every adminKeyEvery (api.KeyAttempts). A person who mistypes
// the key is never held up; guessing goes at one key a second.
const (
	adminKeyBurst = 20
	adminKeyEvery = time.Second
)

// adminHosts are the host names the admin API and the console answer
// under besides the loopback ones: Config.AdminHosts and the hosts of the
// server's own base URLs, as configured.
func (s *Server) adminHosts() []string {
	hosts := slices.Clone(s.cfg.AdminHosts)
	for _, base := range []string{s.cfg.BaseURL, s.cfg.TLSURL, s.cfg.PublicURL, s.cfg.PublicTLSURL} {
		if u, err := url.Parse(base); err == nil && u.Host != "" {
			hosts = append(hosts, u.Host)
		}
	}
	return hosts
}

// certHosts are the names the TLS certificate is for besides the loopback
// ones: every admin host, since any of them may be made a public URL's.
func (s *Server) certHosts() []string {
	var hosts []string
	for _, h := range s.adminHosts() {
		name := hostname(h)
		if ip := net.ParseIP(name); name == "" || name == "localhost" || ip != nil && ip.IsLoopback() {
			continue // in every certificate already
		}
		if !slices.Contains(hosts, name) {
			hosts = append(hosts, name)
		}
	}
	return hosts
}

// hostname is h (a host name or a URL's host) without port or brackets.
func hostname(h string) string { return (&url.URL{Host: h}).Hostname() }

// isAdminRoute reports whether path is the path of one of the admin
// routes, for any method.
func isAdminRoute(admin chi.Routes, path string) bool {
	return len(api.AllowedMethods(admin, path)) > 0
}
