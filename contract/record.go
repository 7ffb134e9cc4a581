package contract

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sync"

	"github.com/hospo-dev/hospo-go/client"
)

// Exchange is one request a check sent and what came back: the evidence a
// failure is reported with. Credentials are never in it: the access token
// of the query is replaced, headers are not kept, and the values of
// credential members of JSON bodies are hidden.
type Exchange struct {
	// Request is the method and the path with its query ("GET
	// /v1/user/me?accessToken=REDACTED&scope=wallet").
	Request string `json:"request"`
	// RequestBody is the start of the request body, if any.
	RequestBody string `json:"requestBody,omitempty"`
	// Status is the response status; 0 when no response came.
	Status int `json:"status"`
	// RequestID is the response's X-Request-Id header.
	RequestID string `json:"requestId,omitempty"`
	// Body is the start of the response body.
	Body string `json:"body,omitempty"`
	// Error is the transport error when no response came.
	Error string `json:"error,omitempty"`

	header http.Header // the response's, for checks of headers
	raw    []byte      // the whole response body (up to maxRecorded), for shape checks
}

// maxRecorded bounds what a check can read of each response body (the
// client reads all of it); maxShown, what a report shows.
const (
	maxRecorded = 1 << 20
	maxShown    = 600
)

// recorder is the http.RoundTripper under every SDK client of a run: it
// keeps the exchanges of the check that is running, so that a check can
// read a response's raw JSON and headers and a failure can show them.
type recorder struct {
	base http.RoundTripper

	mu        sync.Mutex
	exchanges []Exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	ex := Exchange{Request: req.Method + " " + redactURL(req.URL)}
	if req.Body != nil && req.Body != http.NoBody {
		// The body is read here and handed on as a copy: it is small
		// (the service refuses more than 1 MiB) and read once.
		data, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(data))
		ex.RequestBody = hideSecrets(string(data[:min(len(data), maxShown)]))
	}
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		ex.Error = err.Error()
		r.add(ex)
		return resp, err
	}
	data, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	ex.Status = resp.StatusCode
	ex.RequestID = resp.Header.Get(client.HeaderRequestID)
	ex.header = resp.Header.Clone()
	ex.raw = data[:min(len(data), maxRecorded)]
	ex.Body = hideSecrets(string(data[:min(len(data), maxShown)]))
	if rerr != nil {
		ex.Error = rerr.Error()
	}
	r.add(ex)
	return resp, nil
}

func (r *recorder) add(ex Exchange) {
	r.mu.Lock()
	r.exchanges = append(r.exchanges, ex)
	r.mu.Unlock()
}

// take returns the exchanges recorded since the last take and forgets them.
func (r *recorder) take() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.exchanges
	r.exchanges = nil
	return out
}

// last returns the latest exchange, if any.
func (r *recorder) last() (Exchange, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.exchanges) == 0 {
		return Exchange{}, false
	}
	return r.exchanges[len(r.exchanges)-1], true
}

// redactURL is the path and query of u with the access token replaced.
func redactURL(u *url.URL) string {
	q := u.Query()
	if q.Has(client.QueryAccessToken) {
		q.Set(client.QueryAccessToken, "REDACTED")
	}
	s := u.EscapedPath()
	if len(q) > 0 {
		s += "?" + q.Encode()
	}
	return s
}

// secretMembers matches the JSON members that hold a credential.
var secretMembers = regexp.MustCompile(`"(secret|accessToken|posAccessToken|apiKey|token|providerDToken|providerBCse)"(\s*):(\s*)"[^"]*"`)

// hideSecrets replaces the values of credential members of a JSON text.
func hideSecrets(s string) string {
	return secretMembers.ReplaceAllString(s, `"$1"$2:$3"REDACTED"`)
}
