package journal

import (
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

// Path is the endpoint that reads the journal. Reading it is not
// journaled: a poller would otherwise push out the very requests it is
// looking for.
const Path = "/sandbox/requests"

// Handler serves GET /sandbox/requests?limit=&locationId=&status=&after=:
// the latest requests of j, newest first, as Query selects them. A bad
// parameter is a 400003 naming it.
func Handler(rd *api.Responder, j *Journal) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		page, err := j.Query(r.URL.Query())
		if err != nil {
			rd.Error(w, r, api.ErrMsg(client.CodeInvalidQuery, err.Error()))
			return
		}
		rd.JSON(w, r, http.StatusOK, page)
	}
}
