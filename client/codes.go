package client

import "strconv"

// Code is an error code of the service's catalogue. The HTTP status of an
// error is its code divided by 1000 (404006 is a 404).
//
// A Code is also an error, so the constants below serve as sentinels:
//
//	if errors.Is(err, client.ErrCardNotTokenised) { ... }
//
// matches any *APIError whose code is 404006.
type Code int

// The error catalogue.
const (
	CodeMalformedJSON            Code = 400001
	CodeValidation               Code = 400002
	CodeInvalidQuery             Code = 400003
	CodeAccessTokenMissing       Code = 401001
	CodeAccessTokenInvalid       Code = 401002
	CodeAPIKeyMissing            Code = 401003
	CodeAPIKeyInvalid            Code = 401004
	CodeAdminKeyInvalid          Code = 401005
	CodePaymentDeclined          Code = 402001
	CodeForbidden                Code = 403001
	CodeNotFound                 Code = 404001
	CodeCardNotTokenised         Code = 404006
	CodeMethodNotAllowed         Code = 405001
	CodeFulfillmentAlreadySet    Code = 409001
	CodeAmountExceedsOutstanding Code = 409002
	CodeLocationOffline          Code = 409003
	CodeIdempotencyKeyReused     Code = 409004
	CodeCardNotUsable            Code = 409005
	CodeBodyTooLarge             Code = 413001
	CodeUnsupportedMediaType     Code = 415001
	CodeTooManyRequests          Code = 429001
	CodeInternal                 Code = 500001
)

// Sentinels for errors.Is, one per code of the catalogue.
var (
	ErrMalformedJSON            error = CodeMalformedJSON
	ErrValidation               error = CodeValidation
	ErrInvalidQuery             error = CodeInvalidQuery
	ErrAccessTokenMissing       error = CodeAccessTokenMissing
	ErrAccessTokenInvalid       error = CodeAccessTokenInvalid
	ErrAPIKeyMissing            error = CodeAPIKeyMissing
	ErrAPIKeyInvalid            error = CodeAPIKeyInvalid
	ErrAdminKeyInvalid          error = CodeAdminKeyInvalid
	ErrPaymentDeclined          error = CodePaymentDeclined
	ErrForbidden                error = CodeForbidden
	ErrNotFound                 error = CodeNotFound
	ErrCardNotTokenised         error = CodeCardNotTokenised
	ErrMethodNotAllowed         error = CodeMethodNotAllowed
	ErrFulfillmentAlreadySet    error = CodeFulfillmentAlreadySet
	ErrAmountExceedsOutstanding error = CodeAmountExceedsOutstanding
	ErrLocationOffline          error = CodeLocationOffline
	ErrIdempotencyKeyReused     error = CodeIdempotencyKeyReused
	ErrCardNotUsable            error = CodeCardNotUsable
	ErrBodyTooLarge             error = CodeBodyTooLarge
	ErrUnsupportedMediaType     error = CodeUnsupportedMediaType
	ErrTooManyRequests          error = CodeTooManyRequests
	ErrInternal                 error = CodeInternal
)

var codeMessages = map[Code]string{
	CodeMalformedJSON:            "Malformed JSON body.",
	CodeValidation:               "Validation failed.",
	CodeInvalidQuery:             "Invalid query parameter.",
	CodeAccessTokenMissing:       "Access token missing.",
	CodeAccessTokenInvalid:       "Access token invalid.",
	CodeAPIKeyMissing:            "API key missing.",
	CodeAPIKeyInvalid:            "API key invalid.",
	CodeAdminKeyInvalid:          "Admin key invalid.",
	CodePaymentDeclined:          "Payment declined.",
	CodeForbidden:                "Forbidden.",
	CodeNotFound:                 "Not found.",
	CodeCardNotTokenised:         "Payment card not tokenised.",
	CodeMethodNotAllowed:         "Method not allowed.",
	CodeFulfillmentAlreadySet:    "Fulfillment already set.",
	CodeAmountExceedsOutstanding: "Amount exceeds outstanding.",
	CodeLocationOffline:          "Location offline.",
	CodeIdempotencyKeyReused:     "Idempotency key reused.",
	CodeCardNotUsable:            "Card not usable.",
	CodeBodyTooLarge:             "Body too large.",
	CodeUnsupportedMediaType:     "Unsupported media type.",
	CodeTooManyRequests:          "Too many requests.",
	CodeInternal:                 "Internal error.",
}

// Codes lists every code of the catalogue in ascending order.
func Codes() []Code {
	return []Code{
		CodeMalformedJSON, CodeValidation, CodeInvalidQuery,
		CodeAccessTokenMissing, CodeAccessTokenInvalid, CodeAPIKeyMissing, CodeAPIKeyInvalid, CodeAdminKeyInvalid,
		CodePaymentDeclined, CodeForbidden, CodeNotFound, CodeCardNotTokenised, CodeMethodNotAllowed,
		CodeFulfillmentAlreadySet, CodeAmountExceedsOutstanding, CodeLocationOffline, CodeIdempotencyKeyReused, CodeCardNotUsable,
		CodeBodyTooLarge, CodeUnsupportedMediaType, CodeTooManyRequests, CodeInternal,
	}
}

// HTTPStatus returns the HTTP status that goes with the code.
func (c Code) HTTPStatus() int { return int(c) / 1000 }

// Message returns the catalogue's message for the code, or "" for a code
// outside the catalogue.
func (c Code) Message() string { return codeMessages[c] }

// Known reports whether c is in the catalogue.
func (c Code) Known() bool { _, ok := codeMessages[c]; return ok }

// Error makes a Code usable as a sentinel error.
func (c Code) Error() string {
	if m := c.Message(); m != "" {
		return strconv.Itoa(int(c)) + " " + m
	}
	return "error code " + strconv.Itoa(int(c))
}
