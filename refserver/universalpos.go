package refserver

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/sandbox"
)

// mountUniversalPOS mounts the built-in demo universal POS at
// sandbox.DemoPOSPath. It runs inside the server's middleware chain, so
// sandbox faults apply to it (that is how a demo makes it fail).
func (s *Server) mountUniversalPOS(r chi.Router) {
	h := http.StripPrefix(sandbox.DemoPOSPath, s.demoPOS)
	r.Handle(sandbox.DemoPOSPath+"/*", h)
}
