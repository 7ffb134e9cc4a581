package api

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
)

// maxRouteEcho bounds the route a 404001 echoes back in its contextData:
// enough for any path of the API and a wrong prefix in front of it, while
// a path of megabytes is not sent back whole.
const maxRouteEcho = 256

// routeMethods are the methods MethodNotAllowed offers in Allow, in the
// order it lists them.
var routeMethods = []string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace,
}

// RouteNotFound returns the 404001 of a request whose path is no route of
// the API: message "No such route." and contextData {"route": "GET /v9/x"},
// the method and the escaped path as the server received them, never the
// query (which may hold an access token). A client whose base URL has a
// wrong path gets this, and the route it echoes shows where the path went
// wrong.
func RouteNotFound(r *http.Request) *Error {
	route := r.Method + " " + r.URL.EscapedPath()
	if len(route) > maxRouteEcho {
		// EscapedPath is ASCII and a method a token, so a byte cut
		// splits no character.
		route = route[:maxRouteEcho] + "..."
	}
	return &Error{
		Code:        client.CodeNotFound,
		Message:     "No such route.",
		ContextData: map[string]string{"route": route},
	}
}

// NoRoute answers RouteNotFound: the router's handler for a path that
// matches no route.
func (rd *Responder) NoRoute(w http.ResponseWriter, r *http.Request) {
	rd.Error(w, r, RouteNotFound(r))
}

// MethodNotAllowed returns the router's handler for a known path asked
// with a method it does not take: 405001 with an Allow header listing the
// methods that routes serves at the path. chi keeps the methods it found
// to itself when a custom handler is set, so they are found again by
// matching the path for each method. A path that no method matches (chi
// also calls this handler for a method it does not know) is answered as
// NoRoute.
func (rd *Responder) MethodNotAllowed(routes chi.Routes) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		allow := AllowedMethods(routes, routePath(r))
		if len(allow) == 0 {
			rd.NoRoute(w, r)
			return
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		rd.Error(w, r, Err(client.CodeMethodNotAllowed))
	}
}

// AllowedMethods returns the methods for which routes has a route at path,
// in the order GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, CONNECT,
// TRACE; none when path is no route of routes.
func AllowedMethods(routes chi.Routes, path string) []string {
	var allow []string
	for _, m := range routeMethods {
		if routes.Match(chi.NewRouteContext(), m, path) {
			allow = append(allow, m)
		}
	}
	return allow
}

// routePath is the path chi routes r by: the raw path when the request
// has escapes in it, so that an escaped slash stays inside its segment.
func routePath(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePath != "" {
		return rc.RoutePath
	}
	if r.URL.RawPath != "" {
		return r.URL.RawPath
	}
	if r.URL.Path == "" {
		return "/"
	}
	return r.URL.Path
}
