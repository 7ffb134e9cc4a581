package refserver

import (
	"errors"

	"github.com/hospo-dev/hospo-go/client"
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
