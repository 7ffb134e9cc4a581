package refserver

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/openapi"
)

// mountDocs serves the OpenAPI documents (package openapi): the server's
// own at /openapi.json and the universal POS contract at
// /universal-pos/openapi.json. Public, like any API description.
func (s *Server) mountDocs(r chi.Router) {
	r.Get("/openapi.json", serveDocument(openapi.Spec()))
	r.Get("/universal-pos/openapi.json", serveDocument(openapi.UniversalPOSSpec()))
}

func serveDocument(doc []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
		_, _ = w.Write(doc)
	}
}
