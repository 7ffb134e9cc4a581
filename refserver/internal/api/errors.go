package api

import (
	"errors"
	"strconv"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// Error is an error with a code of the catalogue, rendered as the error
// body of the interface. Handlers return an *Error for every failure the
// caller should see; any other error becomes a 500001 whose details are
// logged, never sent.
type Error struct {
	Code    client.Code
	Message string
	// ContextData is sent as contextData (null when nil). For 400002 it is
	// a map from JSON path to reason.
	ContextData any
	// DisplayString is an optional end-user message (null when nil).
	DisplayString *string
	// RetryAfter is how long a 429 asks the caller to wait, sent in the
	// Retry-After header in whole seconds (at least 1, also when zero).
	RetryAfter time.Duration

	// fields, on a 400002 made by Invalid, names every failing field kept,
	// shown or not, and omitted counts those not kept; decoded marks the
	// 400002 of DecodeBytes for values that broke their own type's rule
	// (see ValueProblems).
	fields  map[string]string
	omitted int
	decoded bool
}

// Error describes the error for logs. It never includes ContextData, which
// may echo request content.
func (e *Error) Error() string {
	return "api error " + strconv.Itoa(int(e.Code)) + ": " + e.Message
}

// Is makes errors.Is(err, client.ErrNotFound) and friends work on *Error
// values too.
func (e *Error) Is(target error) bool {
	c, ok := target.(client.Code)
	return ok && c == e.Code
}

// Err returns the catalogue error for code with its standard message.
func Err(code client.Code) *Error {
	return &Error{Code: code, Message: code.Message()}
}

// ErrMsg returns the catalogue error for code with a more specific
// message. The message goes to the client: never put secrets or internals
// in it.
func ErrMsg(code client.Code, msg string) *Error {
	return &Error{Code: code, Message: msg}
}

// NotFound returns the 404001 of an id that names nothing the caller may
// see: its message names the kind of thing asked for ("Card" gives "Card
// not found."), so a caller can tell a wrong id from a wrong route. An id
// that belongs to someone else gets the very same answer, so the message
// never tells whether it exists.
func NotFound(kind string) *Error {
	return &Error{Code: client.CodeNotFound, Message: kind + " not found."}
}

// Invalid returns a 400002 whose contextData names the failing fields,
// JSON path -> reason: every one of them, or the first fielderr.MaxReported
// with a message saying how many failed.
func Invalid(fields map[string]string) *Error { return invalid(fields, 0) }

// InvalidSet returns the 400002 of the failing fields of s: those it kept,
// and a message counting those it only counted.
func InvalidSet(s *fielderr.Set) *Error { return invalid(s.Map(), s.Omitted()) }

func invalid(fields map[string]string, omitted int) *Error {
	shown, msg := fielderr.Report(fields, omitted)
	if msg == "" {
		msg = client.CodeValidation.Message()
	}
	return &Error{Code: client.CodeValidation, Message: msg, ContextData: shown, fields: fields, omitted: omitted}
}

// Fields returns every failing field of a 400002 made by Invalid, path ->
// reason, also those beyond what contextData shows; nil for other errors.
// It is how findings are merged before answering once.
func (e *Error) Fields() map[string]string { return e.fields }

// Omitted returns how many more fields of a 400002 failed than Fields
// names (see fielderr.MaxKept).
func (e *Error) Omitted() int { return e.omitted }

// TooManyRequests returns the 429001 that asks the caller to wait d.
func TooManyRequests(d time.Duration) *Error {
	e := Err(client.CodeTooManyRequests)
	e.RetryAfter = d
	return e
}

// Committed returns err as the answer of a Write whose work must stand
// although it answers an error: the transaction commits, err is rendered,
// and under an Idempotency-Key the error answer is what a retry replays
// (the request was carried out; running it again could answer something
// else). A payment the sandbox provider declines as fraudulent is one: the
// card is blocked and the payment declined. Only Writes honours it;
// returned anywhere else it is err, and the transaction rolls back.
func Committed(err *Error) error { return committed{err} }

// committed is what Committed returns.
type committed struct{ err *Error }

func (c committed) Error() string { return c.err.Error() }
func (c committed) Unwrap() error { return c.err }

// asCommitted returns the error a Write returned through Committed, if err
// is one. (Its target escapes to the heap, so it is made only here, for a
// Write that failed.)
func asCommitted(err error) (*Error, bool) {
	var c committed
	if errors.As(err, &c) {
		return c.err, true
	}
	return nil, false
}
