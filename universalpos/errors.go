package universalpos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
)

// Error is an error of the universal POS contract, on both sides of it.
//
// The Client returns every failure as an *Error: StatusCode is the POS's
// HTTP status, or 0 when no response arrived (Err then holds the cause). A
// Provider may return an *Error from CreateOrder to choose the status and
// message that NewHandler sends back; see RejectOrder.
type Error struct {
	// StatusCode is the HTTP status of the response; 0 if there was none.
	StatusCode int
	// Message is the POS's error text, or a description of what went wrong.
	Message string
	// Fields names each offending field of a request: JSON path -> reason.
	Fields map[string]string
	// Op is the call that failed, such as "POST /orders"; set by Client.
	Op string
	// Err is the underlying cause of a transport failure, if any.
	Err error
}

// RejectOrder returns the error a Provider's CreateOrder returns to refuse
// an order for good (an item sold out, a location closed). NewHandler
// answers 422 with message and fields; the service then marks the order
// failed instead of retrying. Any other error from CreateOrder is a 500,
// which the service retries.
func RejectOrder(message string, fields map[string]string) *Error {
	return &Error{StatusCode: http.StatusUnprocessableEntity, Message: message, Fields: fields}
}

// Error describes e on one line: the call, the status and the message,
// then the field reasons in path order.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("universalpos: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, "%d %s", e.StatusCode, http.StatusText(e.StatusCode))
		if e.Message != "" {
			b.WriteString(": ")
		}
	}
	b.WriteString(e.Message)
	if e.Message == "" && e.Err != nil {
		if e.StatusCode != 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	if len(e.Fields) > 0 {
		b.WriteString(" (")
		for i, k := range slices.Sorted(maps.Keys(e.Fields)) {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s: %s", k, e.Fields[k])
		}
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the transport cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Temporary reports whether the same request may succeed later: a 5xx, a
// timeout, or a connection that failed or broke. A 4xx is final (the
// contract says a refused order stays refused), and so is a response the
// Client could not understand.
func (e *Error) Temporary() bool {
	if e.StatusCode >= 500 {
		return true
	}
	if e.StatusCode != 0 || e.Err == nil {
		return false
	}
	var ne net.Error
	switch {
	case errors.Is(e.Err, context.DeadlineExceeded), errors.Is(e.Err, context.Canceled),
		errors.Is(e.Err, io.EOF), errors.Is(e.Err, io.ErrUnexpectedEOF),
		errors.As(e.Err, &ne):
		return true
	}
	return false
}

// errorBody is the JSON error body of the contract's endpoints as NewHandler
// writes them: {"error": "...", "fields": {"items[0].plu": "required"}}.
type errorBody struct {
	Error  string            `json:"error"`
	Fields map[string]string `json:"fields,omitempty"`
}
