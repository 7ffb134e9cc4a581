package events_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/internal/syncbuf"
)

const paymentEventJSON = `{"id":"evt_9","type":"payment.accepted","createdAt":1700000000,"locationId":3,"data":` +
	`{"paymentId":9,"locationId":3,"checkNumber":1042,"billId":"b-3-1042","cardId":2,"amount":12.30,"tip":1.50,"status":"accepted","createdAt":1700000000}}`

// delivery builds a delivery as the service sends it: body signed with
// secret at signedAt.
func delivery(body, secret string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(events.HeaderEventID, "evt_9")
	r.Header.Set(events.HeaderWebhookID, "wh_1")
	if secret != "" {
		r.Header.Set(events.HeaderSignature, events.Sign([]byte(body), signedAt, secret))
	}
	return r
}

// recorder is a handler function that records the events it gets and
// returns err.
type recorder struct {
	got []events.Event
	err error
}

func (rec *recorder) fn(_ context.Context, ev events.Event) error {
	rec.got = append(rec.got, ev)
	return rec.err
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestHandlerDelivers(t *testing.T) {
	t.Parallel()
	var rec recorder
	h := events.NewHandler([]string{oldSecret, testSecret}, rec.fn, clock(signedAt))
	w := serve(h, delivery(paymentEventJSON, testSecret))
	if w.Code != http.StatusNoContent {
		t.Fatalf("status = %d, want 204; body %q", w.Code, w.Body)
	}
	if len(rec.got) != 1 {
		t.Fatalf("function called %d times", len(rec.got))
	}
	ev := rec.got[0]
	p, err := ev.Payment()
	if err != nil || ev.ID != "evt_9" || ev.Type != events.TypePaymentAccepted || *ev.LocationID != 3 || p.PaymentID != 9 {
		t.Errorf("event = %+v, payment %+v, %v", ev, p, err)
	}
}

func TestHandlerFunctionError(t *testing.T) {
	t.Parallel()
	logs := new(syncbuf.Buffer)
	rec := recorder{err: errors.New("database down: dsn=postgres://u:pw@db")}
	h := events.NewHandler([]string{testSecret}, rec.fn, clock(signedAt), events.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	w := serve(h, delivery(paymentEventJSON, testSecret))
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status = %d, want 500", w.Code)
	}
	if len(rec.got) != 1 {
		t.Errorf("function called %d times", len(rec.got))
	}
	if strings.Contains(w.Body.String(), "database") {
		t.Errorf("the function's error is sent back: %q", w.Body)
	}
	if l := logs.String(); !strings.Contains(l, "evt_9") || !strings.Contains(l, "database down") || strings.Contains(l, testSecret) {
		t.Errorf("log = %q; want the event id and the error, never the secret", l)
	}
}

func TestHandlerRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		req     func() *http.Request
		opts    []events.Option
		secrets []string
		want    int
	}{
		{name: "no signature", req: func() *http.Request { return delivery(paymentEventJSON, "") }, want: 400},
		{name: "wrong secret", req: func() *http.Request { return delivery(paymentEventJSON, "whsec_other") }, want: 400},
		{name: "malformed signature", req: func() *http.Request {
			r := delivery(paymentEventJSON, testSecret)
			r.Header.Set(events.HeaderSignature, "v1=abc")
			return r
		}, want: 400},
		{name: "tampered body", req: func() *http.Request {
			r := delivery(paymentEventJSON, testSecret)
			r.Body = io.NopCloser(strings.NewReader(strings.Replace(paymentEventJSON, "12.30", "1230.00", 1)))
			return r
		}, want: 400},
		{name: "too old", req: func() *http.Request { return delivery(paymentEventJSON, testSecret) },
			opts: []events.Option{clock(signedAt.Add(events.DefaultTolerance + time.Second))}, want: 400},
		{name: "signed body not JSON", req: func() *http.Request { return delivery("hello", testSecret) }, want: 400},
		{name: "signed body without id", req: func() *http.Request { return delivery(`{"type":"ping","data":{}}`, testSecret) }, want: 400},
		{name: "too large", req: func() *http.Request { return delivery(paymentEventJSON, testSecret) },
			opts: []events.Option{events.WithMaxBodyBytes(10)}, want: 413},
		{name: "GET", req: func() *http.Request { return httptest.NewRequest(http.MethodGet, "/hooks", nil) }, want: 405},
		{name: "no secret configured", req: func() *http.Request { return delivery(paymentEventJSON, testSecret) },
			secrets: []string{}, want: 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			logs := new(syncbuf.Buffer)
			var rec recorder
			secrets := tc.secrets
			if secrets == nil {
				secrets = []string{testSecret}
			}
			opts := append([]events.Option{clock(signedAt), events.WithLogger(slog.New(slog.NewTextHandler(logs, nil)))}, tc.opts...)
			w := serve(events.NewHandler(secrets, rec.fn, opts...), tc.req())
			if w.Code != tc.want {
				t.Errorf("status = %d, want %d (body %q)", w.Code, tc.want, w.Body)
			}
			if len(rec.got) != 0 {
				t.Errorf("function called with %+v", rec.got)
			}
			if tc.want == 405 && w.Header().Get("Allow") != http.MethodPost {
				t.Errorf("Allow = %q", w.Header().Get("Allow"))
			}
			for _, out := range []string{w.Body.String(), logs.String()} {
				if strings.Contains(out, "whsec_") {
					t.Errorf("a secret leaks: %q", out)
				}
			}
		})
	}
}

// The handler passes the request's context to the function.
func TestHandlerContext(t *testing.T) {
	t.Parallel()
	type key struct{}
	var got any
	h := events.NewHandler([]string{testSecret}, func(ctx context.Context, _ events.Event) error {
		got = ctx.Value(key{})
		return nil
	}, clock(signedAt))
	r := delivery(paymentEventJSON, testSecret)
	r = r.WithContext(context.WithValue(r.Context(), key{}, "v"))
	if w := serve(h, r); w.Code != http.StatusNoContent || got != "v" {
		t.Errorf("status %d, context value %v", w.Code, got)
	}
}
