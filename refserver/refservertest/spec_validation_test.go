package refservertest_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// recordingTB is a testing.TB whose Errorf is recorded instead of failing
// the test, to see what the harness reports.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) reports() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

func get(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The harness checks every response against the OpenAPI document: a
// response the document does not allow fails the test. A fault makes the
// real server answer GET /v1/location/{id} with 418, which the document
// does not list for it.
func TestHarnessCatchesUndocumentedResponse(t *testing.T) {
	t.Parallel()
	rec := &recordingTB{TB: t}
	env := refservertest.Start(rec)
	f := env.Fixtures(t)
	loc := f.Locations[0].LocationID

	if got := get(t, fmt.Sprintf("%s/v1/location/%d", env.URL, loc)); got != http.StatusOK {
		t.Fatalf("status %d", got)
	}
	if r := rec.reports(); r != "" {
		t.Fatalf("a documented exchange was reported:\n%s", r)
	}

	fault := map[string]any{"pathPrefix": "/v1/location/", "status": 418, "count": 1}
	if got := env.AdminDo(t, http.MethodPost, "/sandbox/faults", fault, nil); got != http.StatusCreated {
		t.Fatalf("add fault: status %d", got)
	}
	if got := get(t, fmt.Sprintf("%s/v1/location/%d", env.URL, loc)); got != http.StatusTeapot {
		t.Fatalf("status %d, want the injected 418", got)
	}
	want := fmt.Sprintf("GET /v1/location/%d -> 418: response: response: status is not supported", loc)
	if r := rec.reports(); !strings.Contains(r, want) {
		t.Errorf("reports = %q, want one containing %q", r, want)
	}
}

// A request that breaks the document but that the server accepts is
// reported too; WithoutRequestValidation turns that check off.
func TestHarnessChecksRequests(t *testing.T) {
	t.Parallel()
	for _, off := range []bool{false, true} {
		t.Run(fmt.Sprintf("off=%v", off), func(t *testing.T) {
			t.Parallel()
			rec := &recordingTB{TB: t}
			var env *refservertest.Env
			if off {
				env = refservertest.Start(rec, refservertest.WithoutRequestValidation())
			} else {
				env = refservertest.Start(rec)
			}
			token := env.Fixtures(t).Users[0].AccessToken
			// The server reads scope=wallet,wallet as the wallet scope twice;
			// the document has the one value wallet.
			if got := get(t, env.URL+"/v1/user/me?scope=wallet,wallet&accessToken="+token); got != http.StatusOK {
				t.Fatalf("status %d", got)
			}
			r := rec.reports()
			if off {
				if r != "" {
					t.Errorf("request checks are off, but got:\n%s", r)
				}
				return
			}
			if !strings.Contains(r, "GET /v1/user/me -> 200: request: query parameter scope") {
				t.Errorf("reports = %q, want the scope parameter named", r)
			}
			if strings.Contains(r, token) {
				t.Error("a report carries the access token")
			}
		})
	}
}
