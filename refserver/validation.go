package refserver

import (
	"errors"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

// validationErrFrom turns the verdict of an SDK Validate method (a
// *client.ValidationError) into the server's 400002; any other error is
// returned as it is.
func validationErrFrom(err error) error {
	var ve *client.ValidationError
	if errors.As(err, &ve) {
		return validationErr(ve.Fields)
	}
	return err
}

// withDecoded returns the failing fields of a body: decoded, what decoding
// found (api.Decode), then the rule checks' findings for paths decoding
// did not name (a value decoding refused is zero, and its zero value would
// only add a misleading second reason). nil when none failed.
func withDecoded(decoded, checked map[string]string) map[string]string {
	var f fielderr.Set
	f.MergeFields(decoded)
	f.MergeFields(checked)
	return f.Map()
}

// withDecodedErr is withDecoded for a rule check that answered with an
// error: a 400002 (its fields merged after decoded), nil, or any other error,
// which is returned as it is.
func withDecodedErr(decoded map[string]string, err error) error {
	var ae *api.Error
	switch {
	case err == nil:
		return validationErr(decoded)
	case errors.As(err, &ae) && ae.Code == client.CodeValidation:
		return validationErr(withDecoded(decoded, ae.Fields()))
	}
	return err
}
