package refserver

import "github.com/hospo-dev/hospo-go/refserver/internal/api"

// decodeJSONBytes and missingFields are the body decoders' names for
// api.DecodeBytes and api.MissingFields.

func decodeJSONBytes(body []byte, v any) error { return api.DecodeBytes(body, v) }

func missingFields(raw []byte, paths ...string) map[string]string {
	return api.MissingFields(raw, paths...)
}
