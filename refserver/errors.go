package refserver

import (
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

// APIError is an error with a code of the catalogue, rendered as the error
// body of the interface (see api.Error).
type APIError = api.Error

// apiErr, apiErrMsg and validationErr are the area files' names for
// api.Err, api.ErrMsg and api.Invalid.

func apiErr(code client.Code) *api.Error { return api.Err(code) }

func apiErrMsg(code client.Code, msg string) *api.Error { return api.ErrMsg(code, msg) }

func validationErr(fields map[string]string) *api.Error { return api.Invalid(fields) }
