package refserver

import (
	"net/http"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

type healthResponse struct {
	Status string `json:"status"`
}

// handleHealth is GET /sandbox/health, for a container's health check or
// a launcher waiting for the sandbox: it answers once the server serves
// and its database answers a read (a Read runs in a read transaction).
func (s sandboxAPI) handleHealth(*http.Request) (api.Read, error) {
	return func(*store.Tx) (any, error) { return healthResponse{Status: "ok"}, nil }, nil
}
