package refserver

import (
	"net/http"
	"strconv"
)

// serveStatic serves body as it is: the OpenAPI documents (package
// openapi) and the sandbox's CA certificate. All are public: an API
// description, a certificate a client must trust for the HTTPS listener.
func serveStatic(contentType string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}
}
