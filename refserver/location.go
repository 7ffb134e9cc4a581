package refserver

import (
	"net/http"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// handleGetLocation serves GET /v1/location/{locationId}
// (rules.GetLocation): the location's public details, needing no
// credential.
func (s *Server) handleGetLocation(r *http.Request) (api.Read, error) {
	id, ok := idParam(r, "locationId")
	if !ok {
		return nil, api.NotFound("Location")
	}
	return func(tx *store.Tx) (any, error) {
		loc, err := rules.GetLocation(tx, id)
		return wallet.LocationResponse{Location: loc, RequestInfo: s.api.Info(r)}, err
	}, nil
}
