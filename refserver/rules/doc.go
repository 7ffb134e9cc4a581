// Package rules holds what the reference server decides for each request:
// one function per endpoint, run on a store transaction, taking the SDK's
// request types and returning the SDK's response types. Handlers decode,
// call one rule and encode; the rules sit beside the SQL they use (package
// store) and are tested without HTTP.
//
// A failure the caller should see is an *api.Error of the catalogue, so
// that errors.Is(err, client.ErrNotFound) and friends match it; any other
// error is the server's own fault, answered 500001.
//
// The checks of a body that need no transaction (CheckPayment,
// CheckCardInsert, ...) run before the write transaction is entered; each
// names every failing field in one 400002, with the reasons of the SDK's
// Validate methods.
package rules
