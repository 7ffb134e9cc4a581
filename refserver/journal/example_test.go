package journal_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/journal"
)

// Record sits just inside api.Tracing; a query of the journal takes the
// parameters of GET /sandbox/requests.
func Example() {
	j := journal.New(100)
	r := chi.NewRouter()
	r.Use(api.Tracing, journal.Record(j, time.Now, time.Now))
	r.Get("/v1/location/{locationId}", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	})
	for _, path := range []string{"/v1/location/1", "/v1/location/2", "/no/such/route"} {
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
	}

	page, err := j.Query(url.Values{"locationId": {"2"}})
	if err != nil {
		panic(err)
	}
	for _, e := range page.Requests {
		fmt.Println(e.Seq, e.Method, e.Route, e.Status, e.Credential, *e.LocationID)
	}
	_, err = j.Query(url.Values{"status": {"4x"}})
	fmt.Println(err)
	// Output:
	// 2 GET /v1/location/{locationId} 404 none 2
	// Invalid query parameter: status must be a status such as 404, or a class such as 4xx.
}
