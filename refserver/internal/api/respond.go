package api

import (
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// Responder writes the API's responses: every error body and every JSON
// success body, with their requestInfo.
type Responder struct {
	log    *slog.Logger
	now    func() time.Time
	tokens *Tokens
}

// NewResponder returns a Responder that logs internal errors to log, takes
// requestInfo.serverTime from now (the virtual clock) and looks up the
// accessTokenStatus of requests no guard has seen with tokens.
func NewResponder(log *slog.Logger, now func() time.Time, tokens *Tokens) *Responder {
	return &Responder{log: log, now: now, tokens: tokens}
}

// errorBody is the error body of interface.md section 7.
type errorBody struct {
	Error         bool               `json:"error"`
	Code          client.Code        `json:"code"`
	Message       string             `json:"message"`
	ContextData   any                `json:"contextData"`
	DisplayString *string            `json:"displayString"`
	RequestInfo   client.RequestInfo `json:"requestInfo"`
}

// Error renders err. Every error response of the API goes through here, so
// they all have the same shape: HTTP status = code / 1000 and
// requestInfo.apiVersion 0. An err that is not an *Error is logged and
// answered 500001, except a body over the limit (413001). Every 429, from a
// limit or an injected fault, carries Retry-After.
func (rd *Responder) Error(w http.ResponseWriter, r *http.Request, err error) {
	status, body := rd.errorResponse(w, r, err)
	writeRaw(w, status, body)
}

// errorResponse is the status and body Error sends for err; it sets the
// Retry-After header of a 429 on w.
func (rd *Responder) errorResponse(w http.ResponseWriter, r *http.Request, err error) (int, []byte) {
	var ae *Error
	if !errors.As(err, &ae) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			ae = Err(client.CodeBodyTooLarge)
		} else {
			rd.logInternal(w, r, err)
			ae = Err(client.CodeInternal)
		}
	}
	msg := ae.Message
	if msg == "" {
		msg = ae.Code.Message()
	}
	if msg == "" {
		msg = "Error."
	}
	ri := rd.Info(r)
	ri.APIVersion = 0
	body, mErr := json.Marshal(errorBody{
		Error:         true,
		Code:          ae.Code,
		Message:       msg,
		ContextData:   ae.ContextData,
		DisplayString: ae.DisplayString,
		RequestInfo:   ri,
	})
	if mErr != nil {
		// ContextData that cannot be marshalled is a bug; do not lose the
		// error because of it.
		rd.log.Error("marshal error body", "request_id", requestID(w), "err", mErr.Error())
		body, _ = json.Marshal(errorBody{Error: true, Code: client.CodeInternal, Message: client.CodeInternal.Message(), RequestInfo: ri})
		ae = Err(client.CodeInternal)
	}
	status := ae.Code.HTTPStatus()
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError
	}
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(ae.RetryAfter)))
	}
	return status, body
}

// logInternal logs err, the cause of a 500001. A request its client gave
// up on (the connection closed while a read or write ran under its
// context) ends with the context's error: that is the client's doing, not
// a fault of the server, so it is logged at debug level and not as an
// error an operator must look into.
func (rd *Responder) logInternal(w http.ResponseWriter, r *http.Request, err error) {
	if cerr := r.Context().Err(); cerr != nil && errors.Is(err, cerr) {
		rd.log.Debug("request ended by its client", "request_id", requestID(w), "err", err.Error())
		return
	}
	rd.log.Error("internal error", "request_id", requestID(w), "err", err.Error())
}

// JSON sends v as JSON with status. Response structs embed
// RequestInfo client.RequestInfo `json:"requestInfo"` filled by Info.
func (rd *Responder) JSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		rd.Error(w, r, err)
		return
	}
	writeRaw(w, status, b)
}

// Info returns the requestInfo of a success response: the endpoint's
// version, the virtual server time and the state of the access token the
// request carried (authenticated, missing, invalid or expired). requestId
// stays null; the id travels in the X-Request-Id header.
func (rd *Responder) Info(r *http.Request) client.RequestInfo {
	q := RequestFrom(r.Context())
	status := q.tokenStatus
	if status == "" {
		status = rd.tokens.Status(r)
	}
	return client.RequestInfo{
		AccessTokenStatus: status,
		ServerTime:        rd.now().Unix(),
		APIVersion:        q.version,
	}
}

// retryAfterSeconds is d in whole seconds, rounded up, at least 1: a client
// told to wait 0 seconds would retry at once.
func retryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// writeRaw sends a JSON body as it is.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	// The same as Header.Set, without a new slice per value: the constant
	// ones are shared (net/http only reads them, and copies the header
	// before sending it).
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = contentLength(w, len(body))
	h["Cache-Control"] = noStore
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// contentLength returns the Content-Length header's value for a body of n
// bytes: in the slot a Trace keeps for it when w is the trace itself (the
// response of a request, not one a fault discards) and has not used it.
func contentLength(w http.ResponseWriter, n int) []string {
	v := strconv.Itoa(n)
	if t, ok := w.(*Trace); ok && t.lengthHeader[0] == "" {
		t.lengthHeader[0] = v
		return t.lengthHeader[:]
	}
	return []string{v}
}

// The values writeRaw shares between responses. Their capacity is their
// length, so that Header.Add appends to a copy.
var (
	jsonContentType = []string{"application/json"}
	noStore         = []string{"no-store"}
)
