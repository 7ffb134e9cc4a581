package refserver

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// APIError is an error with a code of the catalogue, rendered as the error
// body of the interface. Handlers return (or pass to writeError) an
// *APIError for every failure the caller should see; any other error
// becomes a 500001 whose details are logged, never sent.
type APIError struct {
	Code    client.Code
	Message string
	// ContextData is sent as contextData (null when nil). For 400002 it is
	// a map from JSON path to reason.
	ContextData any
	// DisplayString is an optional end-user message (null when nil).
	DisplayString *string
}

// Error describes the error for logs. It never includes ContextData, which
// may echo request content.
func (e *APIError) Error() string {
	return "api error " + strconv.Itoa(int(e.Code)) + ": " + e.Message
}

// Is makes errors.Is(err, client.ErrNotFound) and friends work on
// *APIError values too.
func (e *APIError) Is(target error) bool {
	c, ok := target.(client.Code)
	return ok && c == e.Code
}

// apiErr returns the catalogue error for code with its standard message.
func apiErr(code client.Code) *APIError {
	return &APIError{Code: code, Message: code.Message()}
}

// apiErrMsg returns the catalogue error for code with a more specific
// message. The message goes to the client: never put secrets or internals
// in it.
func apiErrMsg(code client.Code, msg string) *APIError {
	return &APIError{Code: code, Message: msg}
}

// validationErr returns a 400002 whose contextData names the failing
// fields, JSON path -> reason: every one of them, or the first
// fielderr.MaxReported with a message saying how many failed.
func validationErr(fields map[string]string) *APIError {
	shown, msg := fielderr.Report(fields)
	if msg == "" {
		msg = client.CodeValidation.Message()
	}
	return &APIError{Code: client.CodeValidation, Message: msg, ContextData: shown}
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

// writeError renders err. Every error response of the server goes through
// here, so they all have the same shape: HTTP status = code / 1000 and
// requestInfo.apiVersion 0.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *APIError
	if !errors.As(err, &ae) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			ae = apiErr(client.CodeBodyTooLarge)
		} else {
			s.log.Error("internal error", "request_id", stateOf(r).id, "err", err.Error())
			ae = apiErr(client.CodeInternal)
		}
	}
	msg := ae.Message
	if msg == "" {
		msg = ae.Code.Message()
	}
	if msg == "" {
		msg = "Error."
	}
	ri := s.requestInfo(r)
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
		s.log.Error("marshal error body", "request_id", stateOf(r).id, "err", mErr.Error())
		body, _ = json.Marshal(errorBody{Error: true, Code: client.CodeInternal, Message: client.CodeInternal.Message(), RequestInfo: ri})
		ae = apiErr(client.CodeInternal)
	}
	status := ae.Code.HTTPStatus()
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError
	}
	writeRaw(w, status, body)
}

// writeRaw sends a JSON body as it is.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
