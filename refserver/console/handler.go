package console

import (
	"crypto/sha256"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/journal"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Prefix is where the console lives: mount the Handler there.
const Prefix = "/console"

// livePrefix holds the fragments that pages poll to stay current.
const livePrefix = Prefix + "/live/"

// Config is what the console needs from the server.
type Config struct {
	// AdminKey logs in to the console; the controls send it to the admin
	// API. Required.
	AdminKey string
	// API is the server's API with its full middleware chain. The controls
	// send their admin requests to it in-process, so that the console
	// reuses the admin API's validation and logic instead of having its
	// own, and its actions appear in the request journal as the admin
	// requests they are. Required.
	API http.Handler
	// DB is the sandbox's store, which the pages read. Required.
	DB *store.DB
	// Clock is the sandbox's virtual clock, shown on every page. Sessions
	// follow its real time, so that advancing the virtual clock does not
	// log anyone out. Required.
	Clock *sim.Clock
	// Faults are the sandbox's injected faults, listed on the controls
	// page. Required.
	Faults *sim.Faults
	// Snapshots are the sandbox's snapshots, listed on the controls page;
	// nil lists none.
	Snapshots *sim.Snapshots
	// Journal is the request journal the requests page shows; nil shows
	// the journal as turned off.
	Journal *journal.Journal
	// Logger receives the console's errors and logins; nil discards.
	Logger *slog.Logger
	// Gateways are the payment providers, in the order the users page
	// shows a card's provider flags.
	Gateways []string
	// POSOnlineWindow is how old a POS's last heartbeat may be for its
	// location to show online: the window of GET /v1/location/{id}'s
	// posStatus.
	POSOnlineWindow time.Duration
	// KeyAttempts limits wrong admin keys at the login form, shared with
	// the admin API's guard; nil does not limit them.
	KeyAttempts KeyAttempts
}

// KeyAttempts limits wrong admin keys per client.
type KeyAttempts interface {
	// Wait returns how long r's client must wait before it may try a
	// key again; 0 when it may try now.
	Wait(r *http.Request) time.Duration
	// Failed counts a wrong key from r's client.
	Failed(r *http.Request)
}

// Handler serves the console. Mount it at Prefix on a chi router: its
// routes are relative to Prefix. It is safe for concurrent use.
type Handler struct {
	cfg      Config
	log      *slog.Logger
	journal  *journal.Journal
	sessions *sessions
	// origin rejects cross-origin state-changing requests (Sec-Fetch-Site
	// and Origin headers), a second line of defence behind the CSRF token
	// and the SameSite=Strict cookie.
	origin   *http.CrossOriginProtection
	adminKey [32]byte // SHA-256 of the admin key
	router   chi.Router
}

// New returns the console described by cfg.
func New(cfg Config) *Handler {
	h := &Handler{
		cfg:      cfg,
		log:      cfg.Logger,
		journal:  cfg.Journal,
		sessions: newSessions(cfg.Clock.Real),
		origin:   http.NewCrossOriginProtection(),
		adminKey: sha256.Sum256([]byte(cfg.AdminKey)),
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.journal == nil {
		h.journal = journal.New(-1)
	}
	h.router = h.routes()
	return h
}

// ServeHTTP serves a console page, fragment, control or static file.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.router.ServeHTTP(w, r)
}

// routes are the console's routes, relative to Prefix.
func (h *Handler) routes() chi.Router {
	r := chi.NewRouter()
	// A panic becomes a 500 page; the details go to the log.
	r.Use(h.securityHeaders, api.Recoverer(h.log, "panic in console handler", func(w http.ResponseWriter, r *http.Request) {
		h.renderError(w, r, http.StatusInternalServerError, "Internal error; see the server log.")
	}))
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		h.renderError(w, r, http.StatusNotFound, "No such console page.")
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		h.renderError(w, r, http.StatusMethodNotAllowed, "Method not allowed.")
	})

	static, _ := fs.Sub(files, "static")
	r.Handle("/static/*", http.StripPrefix(Prefix+"/static/", http.FileServerFS(static)))
	r.Get("/login", h.handleLoginPage)
	r.With(h.checkOrigin).Post("/login", h.handleLogin)

	r.Group(func(r chi.Router) {
		r.Use(h.requireSession)
		r.Get("/", h.redirectHome)
		for _, p := range pages {
			r.Get(p.path, h.page(p))
			r.Get("/live"+p.path, h.live(p))
		}
		r.Get("/live/status", h.handleStatus)

		r.Group(func(r chi.Router) {
			r.Use(h.checkOrigin, h.requireCSRF)
			r.Post("/logout", h.handleLogout)
			r.Post("/controls/clock", h.handleAdvanceClock)
			r.Post("/controls/faults", h.handleAddFault)
			r.Post("/controls/faults/clear", h.handleClearFaults)
			r.Post("/controls/reset", h.handleReset)
			r.Post("/controls/snapshots", h.handleSaveSnapshot)
			r.Post("/controls/snapshots/restore", h.handleRestoreSnapshot)
			r.Post("/controls/snapshots/delete", h.handleDeleteSnapshot)
			r.Post("/controls/locations/{locationId}/pay", h.handlePayCheck)
			r.Post("/controls/locations/{locationId}/diners", h.handleSetDiners)
			r.Post("/controls/locations/{locationId}/diners/stop", h.handleStopDiners)
			r.Post("/controls/locations/{locationId}/demo-pos", h.handleSetDemoPOS)
			r.Post("/controls/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", h.handleRedeliver)
		})
	})
	return r
}
