package refserver

import (
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// handleRedeliver is POST
// /sandbox/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver: the
// vendor API's redeliver (rules.Redeliver) for any key's webhook, as its
// owner, so that the console can retry a delivery with the admin key
// alone. 202 {}, and the attempt is made in the background.
func (s sandboxAPI) handleRedeliver(r *http.Request) (api.Write, error) {
	webhookID, deliveryID := chi.URLParam(r, "webhookId"), chi.URLParam(r, "deliveryId")
	return func(tx *store.Tx) (any, error) {
		w, err := tx.ConsoleWebhook(webhookID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, api.NotFound("Webhook")
		}
		if err != nil {
			return nil, err
		}
		if err := rules.Redeliver(tx, w.KeyID, webhookID, deliveryID); err != nil {
			return nil, err
		}
		tx.AfterCommit(s.webhooks.Wake)
		return accepted{}, nil
	}, nil
}
