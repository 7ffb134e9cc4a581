package refserver

import (
	"net/http"

	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// handleLocationMenu serves GET /v2/location/{id}/menu (rules.GetMenu):
// the location's menus in the universal format, for kiosks. It needs no
// credential: a menu is public.
func (s *Server) handleLocationMenu(w http.ResponseWriter, r *http.Request) {
	id, ok := idParam(r, "id")
	if !ok {
		s.api.Error(w, r, api.NotFound("Location"))
		return
	}
	var m fulfillment.LocationMenu
	err := s.db.Read(r.Context(), func(tx *store.Tx) (err error) {
		m, err = rules.GetMenu(tx, id)
		return err
	})
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	m.RequestInfo = s.api.Info(r)
	s.api.JSON(w, r, http.StatusOK, m)
}
