package refserver

import (
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// locationResponse is the body of GET /v1/location/{id}.
type locationResponse struct {
	Location    wallet.Location    `json:"location"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// handleGetLocation serves GET /v1/location/{locationId}
// (rules.GetLocation): the location's public details, needing no
// credential.
func (s *Server) handleGetLocation(w http.ResponseWriter, r *http.Request) {
	id, ok := idParam(r, "locationId")
	if !ok {
		s.api.Error(w, r, api.NotFound("Location"))
		return
	}
	var loc wallet.Location
	err := s.db.Read(r.Context(), func(tx *store.Tx) (err error) {
		loc, err = rules.GetLocation(tx, id)
		return err
	})
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	s.api.JSON(w, r, http.StatusOK, locationResponse{Location: loc, RequestInfo: s.api.Info(r)})
}
