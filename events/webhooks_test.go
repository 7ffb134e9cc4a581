package events_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

const webhookJSON = `{"webhookId":"wh_1","url":"https://example.test/hooks","events":["payment.accepted","bill.closed"],"description":"till","createdAt":1700000000}`

var wantWebhook = events.Webhook{
	WebhookID: "wh_1", URL: "https://example.test/hooks",
	Events:      []events.Type{events.TypePaymentAccepted, events.TypeBillClosed},
	Description: "till", CreatedAt: unix(1700000000),
}

func TestCreateWebhook(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply(http.MethodPost, "v1/webhooks", 201, `{"webhook":`+webhookJSON+`,"secret":"whsec_abc",`+requestInfoJSON+`}`)
	got, err := s.CreateWebhook(context.Background(), events.CreateWebhookRequest{
		URL: "https://example.test/hooks", Events: []events.Type{events.TypePaymentAccepted, events.TypeBillClosed}, Description: "till",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := rec.Last(t)
	sdktest.TestPath(t, r, http.MethodPost, "/prefix/v1/webhooks")
	testAPIKey(t, r)
	sdktest.TestJSONBody(t, r, `{"url":"https://example.test/hooks","events":["payment.accepted","bill.closed"],"description":"till"}`)
	if len(r.Header.Get(client.HeaderIdempotencyKey)) == 0 {
		t.Error("no Idempotency-Key")
	}
	if got.Secret != "whsec_abc" || got.RequestInfo.APIVersion != 1 {
		t.Errorf("secret %q, requestInfo %+v", got.Secret, got.RequestInfo)
	}
	if d := cmp.Diff(wantWebhook, got.Webhook); d != "" {
		t.Errorf("webhook (-want +got):\n%s", d)
	}
}

// A retried create repeats its Idempotency-Key, so the service answers the
// retry with the first webhook instead of creating a second.
func TestCreateWebhookRetryKeepsKey(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	n := 0
	rec := m.Handle(http.MethodPost, "v1/webhooks", func(r *http.Request) (*http.Response, error) {
		n++
		if n == 1 {
			return sdktest.ErrorResponse(client.CodeInternal), nil
		}
		return sdktest.JSONResponse(201, `{"webhook":`+webhookJSON+`,"secret":"whsec_abc",`+requestInfoJSON+`}`), nil
	})
	if _, err := s.CreateWebhook(context.Background(), events.CreateWebhookRequest{URL: "http://127.0.0.1:9/h", Events: []events.Type{events.AllTypes}}); err != nil {
		t.Fatal(err)
	}
	reqs := rec.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	k1, k2 := reqs[0].Header.Get(client.HeaderIdempotencyKey), reqs[1].Header.Get(client.HeaderIdempotencyKey)
	if k1 == "" || k1 != k2 {
		t.Errorf("keys %q and %q, want the same non-empty key", k1, k2)
	}
	sdktest.TestJSONBody(t, reqs[1], `{"url":"http://127.0.0.1:9/h","events":["*"]}`)
}

func TestCreateWebhookValidate(t *testing.T) {
	t.Parallel()
	const unknownType = `must be one of payment.created, payment.accepted, bill.closed, order.status_changed, ` +
		`location.online, location.offline, pos.health_changed, ping or "*"`
	for _, tc := range []struct {
		name string
		req  events.CreateWebhookRequest
		want map[string]string
	}{
		{"valid", events.CreateWebhookRequest{URL: "https://h.test/x?y=1", Events: []events.Type{events.TypePing}}, nil},
		{"loopback http", events.CreateWebhookRequest{URL: "http://localhost:8080/h", Events: []events.Type{events.AllTypes}}, nil},
		{"empty", events.CreateWebhookRequest{}, map[string]string{"url": "required", "events": `must name at least one event type, or be ["*"]`}},
		{"too long", events.CreateWebhookRequest{URL: "https://h.test/" + strings.Repeat("x", events.MaxURLLength), Events: []events.Type{events.TypePing},
			Description: strings.Repeat("é", events.MaxDescriptionLength+1)},
			map[string]string{"url": "must be at most 2048 characters", "description": "must be at most 500 characters"}},
		{"longest", events.CreateWebhookRequest{URL: "https://h.test/" + strings.Repeat("x", events.MaxURLLength-15), Events: []events.Type{events.TypePing},
			Description: strings.Repeat("é", events.MaxDescriptionLength)}, nil},
		{"user and password", events.CreateWebhookRequest{URL: "https://me:pw@h.test/x", Events: []events.Type{events.TypePing}},
			map[string]string{"url": "must not hold a user name or password"}},
		{"opaque", events.CreateWebhookRequest{URL: "https:h.test", Events: []events.Type{events.TypePing}},
			map[string]string{"url": "must be an absolute http or https URL"}},
		{"star and more", events.CreateWebhookRequest{URL: "https://h.test", Events: []events.Type{events.AllTypes, events.TypePing}},
			map[string]string{"events": `"*" must be the only element`}},
		{"relative url", events.CreateWebhookRequest{URL: "/hooks", Events: []events.Type{events.TypePing}},
			map[string]string{"url": "must be an absolute http or https URL"}},
		{"no host", events.CreateWebhookRequest{URL: "https:///hooks", Events: []events.Type{events.TypePing}},
			map[string]string{"url": "must be an absolute http or https URL"}},
		{"other scheme", events.CreateWebhookRequest{URL: "ftp://h.test/x", Events: []events.Type{events.TypePing}},
			map[string]string{"url": "must be an absolute http or https URL"}},
		{"not a URL", events.CreateWebhookRequest{URL: "http://h.test/%zz", Events: []events.Type{events.TypePing}},
			map[string]string{"url": "must be an absolute http or https URL"}},
		{"port out of range", events.CreateWebhookRequest{URL: "http://127.0.0.1:99999/", Events: []events.Type{events.TypePing}},
			map[string]string{"url": "must have a port from 1 to 65535, or none"}},
		{"port zero", events.CreateWebhookRequest{URL: "http://127.0.0.1:0/", Events: []events.Type{events.TypePing}},
			map[string]string{"url": "must have a port from 1 to 65535, or none"}},
		{"highest port", events.CreateWebhookRequest{URL: "http://[::1]:65535/", Events: []events.Type{events.TypePing}}, nil},
		{"unknown types", events.CreateWebhookRequest{URL: "https://h.test", Events: []events.Type{events.TypePing, "payment", "", events.TypeBillClosed}},
			map[string]string{"events[1]": unknownType, "events[2]": unknownType}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.req.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			var ve *client.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, client.ErrValidation) {
				t.Fatalf("Validate = %v, want a *client.ValidationError", err)
			}
			if d := cmp.Diff(tc.want, ve.Fields); d != "" {
				t.Errorf("fields (-want +got):\n%s", d)
			}
			// CreateWebhook refuses it without a request.
			s, m := newMockService(t)
			if _, err := s.CreateWebhook(context.Background(), tc.req); !errors.As(err, &ve) || m.Calls() != 0 {
				t.Errorf("CreateWebhook = %v after %d requests", err, m.Calls())
			}
		})
	}
}

func TestListWebhooks(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply(http.MethodGet, "v1/webhooks", 200, `{"webhooks":[`+webhookJSON+`],`+requestInfoJSON+`}`)
	got, err := s.ListWebhooks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := rec.Last(t)
	sdktest.TestPath(t, r, http.MethodGet, "/prefix/v1/webhooks")
	testAPIKey(t, r)
	if d := cmp.Diff([]events.Webhook{wantWebhook}, got); d != "" {
		t.Errorf("webhooks (-want +got):\n%s", d)
	}

	s, m = newMockService(t)
	m.Reply(http.MethodGet, "v1/webhooks", 200, `{"webhooks":null,`+requestInfoJSON+`}`)
	if got, err := s.ListWebhooks(context.Background()); err != nil || got == nil || len(got) != 0 {
		t.Errorf("ListWebhooks of none = %#v, %v; want an empty slice", got, err)
	}
}

func TestDeleteWebhook(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Handle(http.MethodDelete, "v1/webhooks/wh_1", func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Header: http.Header{}}, nil
	})
	if err := s.DeleteWebhook(context.Background(), "wh_1"); err != nil {
		t.Fatal(err)
	}
	testAPIKey(t, rec.Last(t))
	sdktest.TestPath(t, rec.Last(t), http.MethodDelete, "/prefix/v1/webhooks/wh_1")

	m.Reply(http.MethodDelete, "v1/webhooks/wh_2", 404, sdktest.ErrorBody(client.CodeNotFound, ""))
	if err := s.DeleteWebhook(context.Background(), "wh_2"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("DeleteWebhook of another key's webhook = %v, want ErrNotFound", err)
	}
}

func TestPingWebhook(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply(http.MethodPost, "v1/webhooks/wh%201/ping", 202, `{}`)
	if err := s.PingWebhook(context.Background(), "wh 1", client.WithIdempotencyKey("ping-1")); err != nil {
		t.Fatal(err)
	}
	r := rec.Last(t)
	sdktest.TestPath(t, r, http.MethodPost, "/prefix/v1/webhooks/wh 1/ping")
	testAPIKey(t, r)
	if r.Header.Get(client.HeaderIdempotencyKey) != "ping-1" || r.Body != nil {
		t.Errorf("Idempotency-Key %q, body %q", r.Header.Get(client.HeaderIdempotencyKey), r.Body)
	}
}

func TestEmptyIDs(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	ctx := context.Background()
	for name, err := range map[string]error{
		"DeleteWebhook":      s.DeleteWebhook(ctx, ""),
		"PingWebhook":        s.PingWebhook(ctx, ""),
		"Redeliver webhook":  s.Redeliver(ctx, "", "dl_1"),
		"Redeliver delivery": s.Redeliver(ctx, "wh_1", ""),
	} {
		if !errors.Is(err, events.ErrEmptyID) {
			t.Errorf("%s = %v, want ErrEmptyID", name, err)
		}
	}
	if _, err := s.ListDeliveries(ctx, "", events.DeliveryQuery{}); !errors.Is(err, events.ErrEmptyID) {
		t.Errorf("ListDeliveries = %v", err)
	}
	if m.Calls() != 0 {
		t.Errorf("%d requests sent", m.Calls())
	}
}

func TestAPIKeyErrors(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	m.Transport.RegisterNoResponder(sdktest.ErrorResponder(client.CodeAPIKeyInvalid))
	if _, err := s.ListWebhooks(context.Background()); !errors.Is(err, client.ErrAPIKeyInvalid) {
		t.Errorf("ListWebhooks = %v, want ErrAPIKeyInvalid", err)
	}
	// Another key per call.
	rec := m.Reply(http.MethodGet, "v1/webhooks", 200, `{"webhooks":[],`+requestInfoJSON+`}`)
	if _, err := s.ListWebhooks(context.Background(), client.WithAPIKey("other")); err != nil {
		t.Fatal(err)
	}
	if got := rec.Last(t).Header.Get(client.HeaderAPIKey); got != "other" {
		t.Errorf("per-call key = %q", got)
	}
}
