package api

import (
	"errors"
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/refserver/internal/codec"
)

// Decode decodes the request body, which must be exactly one JSON value,
// into v, and returns the fields that fail so far, path -> reason: each of
// the required paths that is absent or null (see MissingFields), and each
// value that breaks its own type's rule (money with more than two fraction
// digits or out of range; v holds the zero value there). The map is empty,
// never nil, so that a handler adds its own findings and answers them all
// in one 400002 (contract.md section 2: a bad money value does not hide a
// missing field). err is a 400001 for an empty body, bad JSON or a field of
// the wrong JSON type (naming the field); text that is not UTF-8 was
// refused as the body was read (see CheckText). Unknown fields are
// ignored, so that older servers accept requests from newer clients. The
// reading itself is codec.Decode.
func Decode(r *http.Request, v any, required ...string) (problems map[string]string, err error) {
	body := RequestFrom(r.Context()).Body()
	problems, err = decodeBody(body, v)
	if err != nil {
		return nil, err
	}
	if problems == nil {
		problems = map[string]string{}
	}
	for path, reason := range MissingFields(body, required...) {
		if _, found := problems[path]; !found {
			problems[path] = reason
		}
	}
	return problems, nil
}

// DecodeBytes decodes body into v with the errors of Decode; body must
// have passed CheckText, as every request body has. Values that
// break their own type's rule make it a 400002 naming every one of them;
// v is then decoded in full but for those values, and ValueProblems gives
// them back to a caller that checks more rules before answering.
func DecodeBytes(body []byte, v any) error {
	problems, err := decodeBody(body, v)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		e := Invalid(problems)
		e.decoded = true
		return e
	}
	return nil
}

// ValueProblems splits an error of DecodeBytes: when err says only that
// values broke their own type's rule, it returns those fields, path ->
// reason, and a nil error, so that the caller goes on checking the value
// (decoded in full but for those fields) and reports everything in one
// 400002. Any other err is returned as it is.
func ValueProblems(err error) (map[string]string, error) {
	var ae *Error
	if errors.As(err, &ae) && ae.decoded {
		return ae.fields, nil
	}
	return nil, err
}

// WithDecoded returns what to answer for a body whose decoding found
// decoded (the problems of Decode or ValueProblems) and whose rule check
// then answered err: one 400002 naming decoding's findings and every field
// of err, a 400002 too, that they do not cover (a value decoding refused
// is zero, and its zero value would only add a misleading second reason).
// With nothing decoded, or an err of another kind, err is returned as it
// is.
func WithDecoded(decoded map[string]string, err error) error {
	if len(decoded) == 0 {
		return err
	}
	var ae *Error
	if err != nil && !(errors.As(err, &ae) && ae.Code == client.CodeValidation) {
		return err
	}
	var f fielderr.Set
	f.MergeFields(decoded)
	if ae != nil {
		f.MergeFields(ae.Fields())
		return invalid(f.Map(), f.Omitted()+ae.omitted)
	}
	return InvalidSet(&f)
}

// MissingFields checks that each path is present and not null in the JSON
// object raw, and returns path -> "required" for each that is not (nil when
// all are there). Paths are dotted field names; "[]" after a name applies
// the rest of the path to every element of that array:
//
//	"checkNumber", "menuItems[].price", "customer.address.lineOne"
//
// A nested path is only checked when its parent is present and non-null
// (list the parent too when it is required itself), and results name the
// element: "menuItems[2].price". Values of the wrong type are DecodeBytes'
// business and are skipped here.
func MissingFields(raw []byte, paths ...string) map[string]string {
	return fielderr.Missing(raw, paths...)
}

// decodeBody decodes body into v with codec.Decode, its *codec.Malformed
// made the 400001 it describes.
func decodeBody(body []byte, v any) (map[string]string, error) {
	problems, err := codec.Decode(body, v)
	return problems, malformedJSON(err)
}

// CheckText returns the 400001 of a body whose text encoding/json would
// alter (codec.CheckText).
func CheckText(body []byte) error { return malformedJSON(codec.CheckText(body)) }

// malformedJSON turns a *codec.Malformed into its 400001; any other err is
// returned as it is.
func malformedJSON(err error) error {
	if err == nil {
		return nil // spares the target of errors.As, which escapes
	}
	var m *codec.Malformed
	if errors.As(err, &m) {
		return ErrMsg(client.CodeMalformedJSON, m.Message)
	}
	return err
}
