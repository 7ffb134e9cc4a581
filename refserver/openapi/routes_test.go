package openapi_test

import (
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/refserver/openapi"
)

// notAPI are route prefixes of the server that are not part of the API and so
// not in the document (browser pages).
var notAPI = []string{"/console"}

// Every route the server registers is in the document, and every operation
// of the document is served: the route tables cannot drift apart.
func TestDocumentCoversEveryRoute(t *testing.T) {
	t.Parallel()
	srv, err := refserver.New(refserver.Config{
		DBPath:   filepath.Join(t.TempDir(), "routes.db"),
		AdminKey: "routes-test-admin-key",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	routes, ok := srv.Handler().(chi.Routes)
	if !ok {
		t.Fatalf("Server.Handler() is a %T, not a chi router; cannot walk its routes", srv.Handler())
	}
	var served []route
	err = chi.Walk(routes, func(method, pattern string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		for _, p := range notAPI {
			if strings.HasPrefix(pattern, p) {
				return nil
			}
		}
		served = append(served, route{method, pattern})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	served = collapseAnyMethod(served)

	doc, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	var documented []route
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, route{strings.ToUpper(method), path})
		}
	}

	for _, s := range served {
		if !slices.ContainsFunc(documented, s.matches) {
			t.Errorf("served but not documented: %s %s", s.method, s.pattern)
		}
	}
	for _, d := range documented {
		if !slices.ContainsFunc(served, func(s route) bool { return s.matches(d) }) {
			t.Errorf("documented but not served: %s %s", d.method, d.pattern)
		}
	}
	if testing.Verbose() {
		sort.Slice(served, func(i, j int) bool { return served[i].pattern < served[j].pattern })
		for _, s := range served {
			t.Logf("%-6s %s", s.method, s.pattern)
		}
	}
}

// route is a method and a path pattern, chi's ({id}, /* for a mount) or the
// document's ({locationId}).
type route struct{ method, pattern string }

// matches reports whether the served route s handles the documented route d:
// same method and, segment by segment, equal text or a parameter on the
// served side. A served parameter may stand for a literal of the document
// (chi's /fulfillment-type/{method} serves four documented paths), and a
// served mount (/prefix/*) for every path under it.
func (s route) matches(d route) bool {
	if s.method != d.method && s.method != anyMethod {
		return false
	}
	ss := strings.Split(s.pattern, "/")
	ds := strings.Split(d.pattern, "/")
	if ss[len(ss)-1] == "*" {
		// A mount: everything below the prefix.
		ss = ss[:len(ss)-1]
		if len(ds) <= len(ss) {
			return false
		}
		ds = ds[:len(ss)]
	}
	if len(ss) != len(ds) {
		return false
	}
	for i := range ss {
		sp, dp := isParam(ss[i]), isParam(ds[i])
		switch {
		case sp:
		case dp:
			return false
		case ss[i] != ds[i]:
			return false
		}
	}
	return true
}

func isParam(seg string) bool { return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") }

// anyMethod stands for a pattern served for every method: a foreign handler
// mounted with chi's Handle (the demo universal POS), which answers wrong
// methods itself.
const anyMethod = "*"

// collapseAnyMethod replaces the routes of a pattern that chi serves for
// each of its methods by one route with anyMethod.
func collapseAnyMethod(routes []route) []route {
	all := []string{"CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"}
	methods := map[string][]string{}
	for _, r := range routes {
		methods[r.pattern] = append(methods[r.pattern], r.method)
	}
	var out []route
	done := map[string]bool{}
	for _, r := range routes {
		ms := methods[r.pattern]
		if !containsAll(ms, all) {
			out = append(out, r)
			continue
		}
		if !done[r.pattern] {
			done[r.pattern] = true
			out = append(out, route{anyMethod, r.pattern})
		}
	}
	return out
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
