package refserver

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/console"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/journal"
	"github.com/hospo-dev/hospo-go/refserver/rules"
)

// withConsole returns the server's handler: api (the API router with its
// middleware chain), traced (api.Tracing), with the console answering under
// /console in front of it, behind hosts (the host names it answers under).
// j is the journal the console shows.
func (s *Server) withConsole(routes *chi.Mux, j *journal.Journal, hosts func(http.Handler) http.Handler) http.Handler {
	traced := api.Tracing(routes)
	mux := chi.NewRouter()
	mux.Use(hosts)
	mux.Mount(console.Prefix, console.New(console.Config{
		AdminKey:        s.cfg.AdminKey,
		API:             traced,
		DB:              s.db,
		Clock:           s.clock,
		Faults:          s.faults,
		Snapshots:       s.snapshots,
		Journal:         j,
		Logger:          s.log,
		Gateways:        rules.Gateways,
		POSOnlineWindow: rules.POSOnlineWindow,
		KeyAttempts:     s.adminKeys,
	}))
	return &consoleFront{Mux: routes, api: traced, console: mux}
}

// consoleFront sends /console and everything under it to the console and
// the rest to the API router, traced. It embeds that router so that the
// server's handler still is a chi.Routes: chi.Walk lists the API's routes
// (the console's pages are not API routes).
type consoleFront struct {
	*chi.Mux
	api     http.Handler // the router, traced
	console http.Handler
}

// ServeHTTP routes the request to the console or the API.
func (f *consoleFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == console.Prefix || strings.HasPrefix(r.URL.Path, console.Prefix+"/") {
		f.console.ServeHTTP(w, r)
		return
	}
	f.api.ServeHTTP(w, r)
}
