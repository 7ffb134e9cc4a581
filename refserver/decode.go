package refserver

import "github.com/hospo-dev/hospo-go/refserver/internal/api"

// decodeJSONBytes is the body decoder's name for api.DecodeBytes.
func decodeJSONBytes(body []byte, v any) error { return api.DecodeBytes(body, v) }
