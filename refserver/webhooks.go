package refserver

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Webhook subscriptions of the vendor API keys (contract.md section 8).
// Each handler acts on the calling key's own webhooks; another key's is a
// 404001, the same as an unknown one.

// accepted is the empty object of a 202.
type accepted struct{}

// handleCreateWebhook serves POST /v1/webhooks (rules.CreateWebhook). The
// answer is the only place the secret ever appears; the idempotency
// record that keeps it for a replay is sealed like every other.
func (s *Server) handleCreateWebhook(r *http.Request) (api.Write, error) {
	var req events.CreateWebhookRequest
	problems, err := api.Decode(r, &req, "url", "events")
	if err != nil {
		return nil, err
	}
	if err := rules.CheckWebhook(req, problems, s.cfg.AllowLinkLocalWebhooks); err != nil {
		return nil, err
	}
	q := api.RequestFrom(r.Context())
	return func(tx *store.Tx) (any, error) {
		w, secret, err := rules.CreateWebhook(tx, s.webhookSecrets, q.Principal().KeyID, req)
		if err != nil {
			return nil, err
		}
		return events.CreatedWebhook{Webhook: w, Secret: secret, RequestInfo: s.api.Info(r)}, nil
	}, nil
}

// handleListWebhooks serves GET /v1/webhooks (rules.ListWebhooks).
func (s *Server) handleListWebhooks(r *http.Request) (api.Read, error) {
	return func(tx *store.Tx) (any, error) {
		hooks, err := rules.ListWebhooks(tx, api.RequestFrom(r.Context()).Principal().KeyID)
		return events.WebhooksResponse{Webhooks: hooks, RequestInfo: s.api.Info(r)}, err
	}, nil
}

// handleDeleteWebhook serves DELETE /v1/webhooks/{webhookId}
// (rules.DeleteWebhook): 204, and the webhook's pending deliveries go with
// it. Deleting is idempotent by nature; a second delete is a 404001.
func (s *Server) handleDeleteWebhook(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "webhookId")
	err := s.db.Write(r.Context(), func(tx *store.Tx) error {
		return rules.DeleteWebhook(tx, api.RequestFrom(r.Context()).Principal().KeyID, id)
	})
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handlePingWebhook serves POST /v1/webhooks/{webhookId}/ping
// (rules.PingWebhook): 202 {}, and the ping is delivered in the
// background.
func (s *Server) handlePingWebhook(r *http.Request) (api.Write, error) {
	id := chi.URLParam(r, "webhookId")
	return func(tx *store.Tx) (any, error) {
		if err := rules.PingWebhook(tx, api.RequestFrom(r.Context()).Principal().KeyID, id); err != nil {
			return nil, err
		}
		return accepted{}, nil
	}, nil
}

// handleListDeliveries serves GET
// /v1/webhooks/{webhookId}/deliveries?status=&limit=
// (rules.ListDeliveries).
func (s *Server) handleListDeliveries(r *http.Request) (api.Read, error) {
	q, perr := parseQuery(r.URL.RawQuery)
	if perr != nil {
		return nil, perr
	}
	status := events.DeliveryStatus(q.Get("status"))
	if status != "" && !slices.Contains(rules.DeliveryStatuses, status) {
		return nil, api.ErrMsg(client.CodeInvalidQuery, "status must be pending, delivered or failed.")
	}
	limit, qerr := queryInt(q, "limit", rules.DefaultDeliveriesListed, 1, rules.MaxDeliveriesListed)
	if qerr != nil {
		return nil, qerr
	}
	return func(tx *store.Tx) (any, error) {
		list, err := rules.ListDeliveries(tx, api.RequestFrom(r.Context()).Principal().KeyID,
			chi.URLParam(r, "webhookId"), status, limit)
		return events.DeliveriesResponse{Deliveries: list, RequestInfo: s.api.Info(r)}, err
	}, nil
}

// handleRedeliver serves POST
// /v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver
// (rules.Redeliver): 202 {}, and the attempt is made in the background.
func (s *Server) handleRedeliver(r *http.Request) (api.Write, error) {
	webhookID, deliveryID := chi.URLParam(r, "webhookId"), chi.URLParam(r, "deliveryId")
	return func(tx *store.Tx) (any, error) {
		if err := rules.Redeliver(tx, api.RequestFrom(r.Context()).Principal().KeyID, webhookID, deliveryID); err != nil {
			return nil, err
		}
		tx.AfterCommit(s.webhooks.Wake)
		return accepted{}, nil
	}, nil
}

// parseQuery parses a raw query string; one that is not valid URL
// encoding is a 400003.
func parseQuery(raw string) (url.Values, *api.Error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, api.ErrMsg(client.CodeInvalidQuery, "The query string is not valid URL encoding.")
	}
	return q, nil
}

// queryInt reads the integer query parameter name in [lo, hi], def when it
// is absent; anything else is a 400003 naming it.
func queryInt(q url.Values, name string, def, lo, hi int) (int, error) {
	vals := q[name]
	if len(vals) == 0 {
		return def, nil
	}
	n, err := strconv.Atoi(vals[0])
	if len(vals) > 1 || err != nil || n < lo || n > hi {
		return 0, api.ErrMsg(client.CodeInvalidQuery, name+" must be given once, as an integer from "+
			strconv.Itoa(lo)+" to "+strconv.Itoa(hi)+".")
	}
	return n, nil
}
