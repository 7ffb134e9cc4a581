package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// maxBody matches the server's body limit (contract: 1 MiB). A larger body is
// passed through unread-beyond-the-limit so that the server answers 413001.
const maxBody = 1 << 20

// RequestValidatorOption configures NewRequestValidator.
type RequestValidatorOption func(*requestValidatorConfig)

type requestValidatorConfig struct {
	now         func() time.Time
	tokenStatus func(*http.Request) string
}

// WithClock sets the clock whose time goes into requestInfo.serverTime of the
// validator's error bodies; the refserver passes its virtual clock. Default:
// time.Now.
func WithClock(now func() time.Time) RequestValidatorOption {
	return func(c *requestValidatorConfig) { c.now = now }
}

// WithTokenStatus sets how requestInfo.accessTokenStatus of the validator's
// error bodies is found; the refserver passes its token check. The default,
// which does not look tokens up, says "missing" when the request has no
// accessToken and "authenticated" otherwise.
func WithTokenStatus(f func(*http.Request) string) RequestValidatorOption {
	return func(c *requestValidatorConfig) { c.tokenStatus = f }
}

// NewRequestValidator returns middleware that checks each request against the
// reference server's document before the wrapped handler sees it, for
// integrators who want their CI to fail on requests the document forbids.
//
// A body member that breaks its schema is answered with 400002 and a
// contextData naming every failing JSON path with the schema's reason; a query
// parameter that breaks its schema with 400003 naming the parameter; a header
// parameter (Idempotency-Key) with 400002 naming the header. Both use the
// service's error body. Everything the document cannot judge better than the
// server is passed through untouched so that the server answers with its own
// code: credentials (401), unknown routes (404), path ids that are not
// numbers, bodies that do not parse or hold a member of the wrong JSON type
// (400001), bodies over 1 MiB (413001) and bodies that are not
// application/json (415001).
//
// Only the paths of the document are checked: mount the middleware on the API
// routes, not on the sandbox admin endpoints or the console.
func NewRequestValidator(opts ...RequestValidatorOption) (func(http.Handler) http.Handler, error) {
	ck, err := sharedChecker()
	if err != nil {
		return nil, err
	}
	cfg := requestValidatorConfig{now: time.Now, tokenStatus: defaultTokenStatus}
	for _, o := range opts {
		o(&cfg)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			code, fields, ok := ck.checkRequest(r)
			if ok {
				next.ServeHTTP(w, r)
				return
			}
			writeValidationError(w, r, cfg, code, fields)
		})
	}, nil
}

func defaultTokenStatus(r *http.Request) string {
	if r.URL.Query().Get("accessToken") == "" {
		return "missing"
	}
	return "authenticated"
}

// checkRequest validates r against the document. It returns ok unless r
// breaks the document in a way the validator answers itself, in which case
// code is 400002 or 400003 and fields maps each failing path to its reason.
// r.Body is restored so that the next handler reads it in full.
func (ck *checker) checkRequest(r *http.Request) (code client.Code, fields map[string]string, ok bool) {
	route, pathParams, err := ck.router.FindRoute(r)
	if err != nil {
		return 0, nil, true // not a documented route: the server answers 404/405
	}
	if r.Body != nil && r.Body != http.NoBody {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		rest := r.Body
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), rest), rest}
		if err != nil || len(body) > maxBody || !isJSON(r.Header.Get("Content-Type")) || !json.Valid(body) {
			// Too large, unreadable, not JSON or not parseable: the server's
			// own answer (413001, 415001, 400001) is the right one.
			return 0, nil, true
		}
		// The filter reads the body itself; hand it a copy.
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(body))
		return ck.validateRequest(r2, route, pathParams)
	}
	return ck.validateRequest(r, route, pathParams)
}

func (ck *checker) validateRequest(r *http.Request, route *routers.Route, pathParams map[string]string) (client.Code, map[string]string, bool) {
	in := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: pathParams,
		Route:      route,
		Options:    requestOptions(),
	}
	err := openapi3filter.ValidateRequest(r.Context(), in)
	if err == nil {
		return 0, nil, true
	}
	var errs []error
	var me openapi3.MultiError
	if errors.As(err, &me) {
		errs = me
	} else {
		errs = []error{err}
	}
	code := client.CodeValidation
	fields := map[string]string{}
	for _, e := range errs {
		var re *openapi3filter.RequestError
		if !errors.As(e, &re) {
			return 0, nil, true
		}
		switch {
		case re.Parameter != nil && re.Parameter.In == openapi3.ParameterInQuery:
			code = client.CodeInvalidQuery
			fields[re.Parameter.Name] = paramReason(re)
		case re.Parameter != nil && re.Parameter.In == openapi3.ParameterInHeader:
			fields[re.Parameter.Name] = paramReason(re)
		case re.RequestBody != nil:
			fs, ok := schemaErrors(re.Err, "")
			if !ok || len(fs) == 0 || hasTypeError(re.Err) {
				// A missing body, or a member of the wrong JSON type: the
				// server answers those with 400001, naming the member.
				return 0, nil, true
			}
			for _, f := range fs {
				fields[f.path] = f.reason
			}
		default:
			// Path parameters and anything else: the server answers (404001
			// for an id that is not a number, for instance).
			return 0, nil, true
		}
	}
	if code == client.CodeInvalidQuery {
		// One request, one code: a bad query outranks the body, the way the
		// server checks the query before it reads the body.
		for k := range fields {
			if !isQueryParam(errs, k) {
				delete(fields, k)
			}
		}
	}
	return code, fields, false
}

// hasTypeError reports whether err holds a schema failure of the "type"
// keyword: a string where a number belongs, 1.5 for an integer.
func hasTypeError(err error) bool {
	found := false
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case openapi3.MultiError:
			for _, x := range e {
				walk(x)
			}
		case *openapi3.SchemaError:
			if e.SchemaField == "type" {
				found = true
			}
		default:
			var se *openapi3.SchemaError
			var me openapi3.MultiError
			if errors.As(err, &me) {
				walk(me)
			} else if errors.As(err, &se) {
				walk(se)
			}
		}
	}
	walk(err)
	return found
}

func isQueryParam(errs []error, name string) bool {
	for _, e := range errs {
		var re *openapi3filter.RequestError
		if errors.As(e, &re) && re.Parameter != nil && re.Parameter.In == openapi3.ParameterInQuery && re.Parameter.Name == name {
			return true
		}
	}
	return false
}

func paramReason(re *openapi3filter.RequestError) string {
	if fs, ok := schemaErrors(re.Err, ""); ok && len(fs) == 1 {
		return fs[0].reason
	}
	var pe *openapi3filter.ParseError
	if errors.As(re.Err, &pe) {
		return "cannot be parsed as " + typeName(re.Parameter)
	}
	if re.Reason != "" {
		return re.Reason
	}
	return "invalid"
}

func typeName(p *openapi3.Parameter) string {
	if p.Schema != nil && p.Schema.Value != nil && p.Schema.Value.Type != nil {
		if s := p.Schema.Value.Type.Slice(); len(s) > 0 {
			return "an " + s[0]
		}
	}
	return "the documented type"
}

// requestOptions are the filter options of both the request validator and
// the test recorder.
func requestOptions() *openapi3filter.Options {
	o := &openapi3filter.Options{
		MultiError:          true,
		SkipSettingDefaults: true, // never rewrite the request the server reads
		AuthenticationFunc:  openapi3filter.NoopAuthenticationFunc,
	}
	return o
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// validationBody is the service's error body (contract section 2), built here
// because the validator runs in front of the server's own error writer.
type validationBody struct {
	Error         bool               `json:"error"`
	Code          client.Code        `json:"code"`
	Message       string             `json:"message"`
	ContextData   map[string]string  `json:"contextData"`
	DisplayString *string            `json:"displayString"`
	RequestInfo   client.RequestInfo `json:"requestInfo"`
}

func writeValidationError(w http.ResponseWriter, r *http.Request, cfg requestValidatorConfig, code client.Code, fields map[string]string) {
	shown, msg := fields, code.Message()
	if code == client.CodeValidation {
		// The same bound as the server's own 400002: at most
		// fielderr.MaxReported paths, the message saying how many failed.
		if s, m := fielderr.Report(fields, 0); m != "" {
			shown, msg = s, m
		}
	}
	body := validationBody{
		Error:       true,
		Code:        code,
		Message:     msg,
		ContextData: shown,
		RequestInfo: client.RequestInfo{
			AccessTokenStatus: cfg.tokenStatus(r),
			ServerTime:        cfg.now().Unix(),
			APIVersion:        0,
		},
	}
	b, err := json.Marshal(body)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code.HTTPStatus())
	_, _ = w.Write(b)
}
