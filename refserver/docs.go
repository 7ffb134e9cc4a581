package refserver

import (
	"net/http"
	"strconv"
)

// serveDocument serves one of the OpenAPI documents (package openapi): the
// server's own at /openapi.json and the universal POS contract at
// /universal-pos/openapi.json. Public, like any API description.
func serveDocument(doc []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
		_, _ = w.Write(doc)
	}
}
