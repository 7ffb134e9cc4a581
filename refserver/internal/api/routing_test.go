package api

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
)

func TestAllowedMethods(t *testing.T) {
	t.Parallel()
	r := chi.NewRouter()
	noop := func(http.ResponseWriter, *http.Request) {}
	r.Get("/a/{id}", noop)
	r.Delete("/a/{id}", noop)
	r.Group(func(r chi.Router) { r.Post("/b", noop) })
	tests := []struct {
		path string
		want []string
	}{
		{"/a/1", []string{"GET", "DELETE"}},
		{"/b", []string{"POST"}},
		{"/c", nil},
		{"/a", nil},
	}
	for _, tt := range tests {
		if got := AllowedMethods(r, tt.path); !slices.Equal(got, tt.want) {
			t.Errorf("AllowedMethods(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestRouteNotFound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method, target, want string
	}{
		{"GET", "/v9/x?accessToken=secret", "GET /v9/x"},
		{"POST", "/a%2Fb/c%20d", "POST /a%2Fb/c%20d"},
		{"GET", "/" + strings.Repeat("é", 200), ("GET /" + strings.Repeat("%C3%A9", 200))[:maxRouteEcho] + "..."},
	}
	for _, tt := range tests {
		e := RouteNotFound(httptest.NewRequest(tt.method, tt.target, nil))
		if e.Code != client.CodeNotFound || e.Message != "No such route." {
			t.Errorf("%s %s: %d %q", tt.method, tt.target, e.Code, e.Message)
		}
		if got := e.ContextData.(map[string]string)["route"]; got != tt.want {
			t.Errorf("%s %s: route %q, want %q", tt.method, tt.target, got, tt.want)
		}
	}
}

func TestNotFoundNamesTheKind(t *testing.T) {
	t.Parallel()
	if e := NotFound("Card"); e.Code != client.CodeNotFound || e.Message != "Card not found." || e.ContextData != nil {
		t.Errorf("NotFound(Card) = %+v", e)
	}
}
