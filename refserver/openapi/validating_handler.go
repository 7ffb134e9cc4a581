package openapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3filter"
)

// Reporter receives the mismatches that ValidatingHandler finds. *testing.T
// and testing.TB satisfy it.
type Reporter interface {
	Errorf(format string, args ...any)
}

// ReporterFunc adapts a function to Reporter.
type ReporterFunc func(format string, args ...any)

// Errorf calls f.
func (f ReporterFunc) Errorf(format string, args ...any) { f(format, args...) }

// CheckOption configures ValidatingHandler.
type CheckOption func(*checkConfig)

type checkConfig struct {
	skipRequests bool
	ignore       []string
}

// WithoutRequestChecks makes ValidatingHandler check responses only, for tests
// that send requests the document forbids on purpose (and want to see how the
// server answers them).
func WithoutRequestChecks() CheckOption {
	return func(c *checkConfig) { c.skipRequests = true }
}

// IgnorePathPrefix exempts requests whose path starts with prefix, for
// routes that are not part of the API (a browser console, for instance).
func IgnorePathPrefix(prefix string) CheckOption {
	return func(c *checkConfig) { c.ignore = append(c.ignore, prefix) }
}

// maxRecorded bounds how much of a response body the checker keeps; no
// response of the service comes near it.
const maxRecorded = 8 << 20

// ValidatingHandler returns h wrapped so that every request and response
// passing through is checked against the reference server's document, each
// mismatch going to rep.Errorf. It is meant for tests: wrapped around the
// server in the end-to-end harness it makes every test a check that the
// document and the server agree.
//
// What counts as a mismatch:
//   - a request to a route the document does not have that the server
//     answered with a success or redirect status;
//   - a request that breaks the document but that the server answered with a
//     success or redirect status (a request the server rejected with a 4xx is
//     taken to be a deliberate negative test, and only its response is
//     checked); WithoutRequestChecks turns this check off;
//   - a response whose status, headers or body the document does not allow for
//     that operation.
//
// Reports carry the method, the path (never the query, which can hold an
// access token), the status and the failing JSON paths with their rules, never
// the values.
func ValidatingHandler(rep Reporter, h http.Handler, opts ...CheckOption) http.Handler {
	var cfg checkConfig
	for _, o := range opts {
		o(&cfg)
	}
	ck, err := sharedChecker()
	if err != nil {
		// The document is embedded; if it does not load, every test must say so.
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rep.Errorf("openapi: document does not load: %v", err)
			h.ServeHTTP(w, r)
		})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range cfg.ignore {
			if strings.HasPrefix(r.URL.Path, p) {
				h.ServeHTTP(w, r)
				return
			}
		}
		ck.serveChecked(rep, cfg, h, w, r)
	})
}

func (ck *checker) serveChecked(rep Reporter, cfg checkConfig, h http.Handler, w http.ResponseWriter, r *http.Request) {
	route, pathParams, routeErr := ck.router.FindRoute(r)

	// Keep a copy of the request body for the check; the server reads the
	// original stream.
	var reqBody []byte
	if r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxRecorded))
		rest := r.Body
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), rest), rest}
		if err == nil {
			reqBody = b
		}
	}
	// Clone before the handler runs: handlers may change r.URL or headers.
	reqCopy := r.Clone(context.WithoutCancel(r.Context()))

	rec := &recorder{ResponseWriter: w}
	h.ServeHTTP(rec, r)
	if !rec.answered() && r.Context().Err() != nil {
		// The client went away and the handler, rightly, answered nothing:
		// there is no response to check (net/http would otherwise be
		// taken to have sent an empty 200).
		return
	}
	status := rec.statusCode()

	report := func(part, reason string) {
		rep.Errorf("openapi mismatch: %s %s -> %d: %s: %s", r.Method, r.URL.Path, status, part, reason)
	}
	if routeErr != nil {
		// A route outside the document is a mismatch when the server
		// serves it; any error (404001, or a fault injected on a prefix)
		// says it does not.
		if status < 400 {
			report("route", "not in the document ("+routeErr.Error()+")")
		}
		return
	}

	reqCopy.Body = io.NopCloser(bytes.NewReader(reqBody))
	in := &openapi3filter.RequestValidationInput{
		Request:    reqCopy,
		PathParams: pathParams,
		Route:      route,
		Options:    requestOptions(),
	}
	if !cfg.skipRequests && status < 400 {
		if err := openapi3filter.ValidateRequest(reqCopy.Context(), in); err != nil {
			report("request", describe(err))
		}
	}

	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 rec.Header(),
		Body:                   io.NopCloser(bytes.NewReader(rec.body.Bytes())),
		Options: &openapi3filter.Options{
			MultiError:            true,
			IncludeResponseStatus: true,
		},
	}
	if rec.truncated {
		report("response", "body too large to check")
		return
	}
	if err := openapi3filter.ValidateResponse(reqCopy.Context(), out); err != nil {
		report("response", describe(err))
	}
}

// recorder passes a response through to the client and keeps a copy of its
// status and body for the check.
type recorder struct {
	http.ResponseWriter
	mu        sync.Mutex
	status    int
	body      bytes.Buffer
	truncated bool
}

func (rec *recorder) WriteHeader(code int) {
	rec.mu.Lock()
	if rec.status == 0 {
		rec.status = code
	}
	rec.mu.Unlock()
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *recorder) Write(p []byte) (int, error) {
	rec.mu.Lock()
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	if rec.body.Len()+len(p) > maxRecorded {
		rec.truncated = true
	} else {
		rec.body.Write(p)
	}
	rec.mu.Unlock()
	return rec.ResponseWriter.Write(p)
}

// Flush lets streaming handlers flush through the recorder.
func (rec *recorder) Flush() {
	if f, ok := rec.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// answered says whether the handler wrote a status or any body.
func (rec *recorder) answered() bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.status != 0
}

func (rec *recorder) statusCode() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.status == 0 {
		return http.StatusOK
	}
	return rec.status
}
