package refserver

import (
	"net/http"
	"strings"
)

// adminPaths are the sandbox admin endpoints. Faults never apply to them
// (a test must be able to clear the faults it set) and neither does the
// rate limit.
var adminPaths = []string{
	"/sandbox/fixtures", "/sandbox/users", "/sandbox/locations", "/sandbox/api-keys",
	"/sandbox/clock", "/sandbox/reset", "/sandbox/faults", "/sandbox/cards/",
	"/sandbox/requests",
}

func isAdminPath(p string) bool {
	for _, a := range adminPaths {
		if p == a || strings.HasPrefix(p, a+"/") || (strings.HasSuffix(a, "/") && strings.HasPrefix(p, a)) {
			return true
		}
	}
	return false
}

// exceptAdmin applies mw to every request but those of the admin paths.
func exceptAdmin(mw func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		h := mw(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isAdminPath(r.URL.Path) {
				next.ServeHTTP(w, r)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}
