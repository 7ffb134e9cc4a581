package refserver

import (
	"net/http"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// handleLocationMenu serves GET /v2/location/{id}/menu (rules.GetMenu):
// the location's menus in the universal format, for kiosks. It needs no
// credential: a menu is public.
func (s *Server) handleLocationMenu(r *http.Request) (api.Read, error) {
	id, ok := idParam(r, "id")
	if !ok {
		return nil, api.NotFound("Location")
	}
	return func(tx *store.Tx) (any, error) {
		m, err := rules.GetMenu(tx, id)
		m.RequestInfo = s.api.Info(r)
		return m, err
	}, nil
}
