// Package codec reads request bodies into Go values the way encoding/json
// does, and says in the contract's terms what is wrong with one that does
// not fit: the server's home for how wire shapes are read, beside
// checkwire (the check push, decoded by hand) and internal/fielderr (how
// fields and their failures are named).
//
// Decode reads a body into a value and returns, apart, the fields whose
// values broke their own type's rule (money with more than two decimals,
// or out of range), so that they are answered together with the fields a
// handler finds missing or invalid, in one 400002; a body it cannot read
// at all is a *Malformed, whose message is that of the 400001. CheckText
// refuses, once for every body, text that encoding/json would alter.
//
// The package knows no HTTP and no error catalogue: package api turns its
// findings into catalogue errors.
package codec
