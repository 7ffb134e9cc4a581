// Package checkwire is the server's codec for the check a POS pushes
// (POST /v1/pos/push-pull/check).
//
// Decode reads the body straight into a possync.Check, noting on the way
// which members were missing or null, which a Go value cannot show (a zero
// is a value). Push.Validate then answers with possync's own rules
// (Check.Validate, the rules the SDK checks before sending) plus
// "required" for those members, in one 400002. The canonical form that
// the server stores and hashes is possync.Check's MarshalJSON.
//
// The decoder is written by hand, because a check push is the server's
// busiest request and reflection made decoding its largest cost. It
// accepts exactly the bodies encoding/json accepts and reads them into the
// same values (FuzzCheckDecodeFast holds it to that); for a body it
// refuses, encoding/json is run to describe what is wrong, so that error
// responses are encoding/json's.
package checkwire
