package refserver_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// The shared helpers of the events tests: a webhook receiver, calls with a
// vendor API key and the wire shapes of contract.md section 8.

// envelope is an event as delivered and as the feed lists it.
type envelope struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	CreatedAt  int64           `json:"createdAt"`
	LocationID *int64          `json:"locationId"`
	Data       json.RawMessage `json:"data"`
	Cursor     string          `json:"cursor,omitempty"`
}

type delivery struct {
	DeliveryID     string  `json:"deliveryId"`
	EventID        string  `json:"eventId"`
	Type           string  `json:"type"`
	Status         string  `json:"status"`
	Attempts       int     `json:"attempts"`
	LastStatusCode *int    `json:"lastStatusCode"`
	LastError      *string `json:"lastError"`
	NextAttemptAt  *int64  `json:"nextAttemptAt"`
	CreatedAt      int64   `json:"createdAt"`
}

type feedPage struct {
	Events     []envelope `json:"events"`
	NextCursor *string    `json:"nextCursor"`
}

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
	event  envelope
}

// receiver is a webhook endpoint: it answers 500 to the next failures
// requests and 200 to the others, and hands every request to got.
type receiver struct {
	*httptest.Server
	got chan received

	mu       sync.Mutex
	failures int
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{got: make(chan received, 100)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev envelope
		_ = json.Unmarshal(body, &ev)
		rc.mu.Lock()
		fail := rc.failures > 0
		if fail {
			rc.failures--
		}
		rc.mu.Unlock()
		rc.got <- received{header: r.Header.Clone(), body: body, event: ev}
		if fail {
			http.Error(w, "not now", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) failNext(n int) {
	rc.mu.Lock()
	rc.failures = n
	rc.mu.Unlock()
}

// next waits for the receiver's next request; the bound only catches a
// hang.
func (rc *receiver) next(t *testing.T) received {
	t.Helper()
	select {
	case r := <-rc.got:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery arrived")
		return received{}
	}
}

// checkSignature verifies the delivery's Hospo-Signature with secret, as a
// receiver would, and its other headers.
func checkSignature(t *testing.T, r received, secret, webhookID string) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if got := r.header.Get("Hospo-Event-Id"); got != r.event.ID || !strings.HasPrefix(got, "evt_") {
		t.Errorf("Hospo-Event-Id = %q, event id %q", got, r.event.ID)
	}
	if got := r.header.Get("Hospo-Webhook-Id"); got != webhookID {
		t.Errorf("Hospo-Webhook-Id = %q, want %q", got, webhookID)
	}
	sig := r.header.Get("Hospo-Signature")
	ts, v1, ok := strings.Cut(sig, ",v1=")
	ts, tsOK := strings.CutPrefix(ts, "t=")
	if !ok || !tsOK {
		t.Fatalf("Hospo-Signature = %q", sig)
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + string(r.body)))
	if want := hex.EncodeToString(m.Sum(nil)); !hmac.Equal([]byte(want), []byte(v1)) {
		t.Errorf("signature %q does not verify (want v1=%s)", sig, want)
	}
}

// keyDo sends a request with the vendor API key key and decodes a 2xx
// answer into out.
func keyDo(t *testing.T, env *refservertest.Env, key, method, path string, body, out any) (int, []byte) {
	t.Helper()
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	h := http.Header{}
	if key != "" {
		h.Set("X-Vendor-API-Key", key)
	}
	status, resp := env.Send(t, method, path, h, b)
	if out != nil && status/100 == 2 {
		if err := json.Unmarshal(resp, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, resp)
		}
	}
	return status, resp
}

type createdWebhook struct {
	Webhook struct {
		WebhookID   string   `json:"webhookId"`
		URL         string   `json:"url"`
		Events      []string `json:"events"`
		Description *string  `json:"description"`
		CreatedAt   int64    `json:"createdAt"`
	} `json:"webhook"`
	Secret string `json:"secret"`
}

func createWebhook(t *testing.T, env *refservertest.Env, key, url string, events ...string) createdWebhook {
	t.Helper()
	var out createdWebhook
	status, body := keyDo(t, env, key, http.MethodPost, "/v1/webhooks", map[string]any{"url": url, "events": events}, &out)
	if status != http.StatusCreated {
		t.Fatalf("create webhook: %d %s", status, body)
	}
	return out
}

func listDeliveries(t *testing.T, env *refservertest.Env, key, webhookID string, query ...string) []delivery {
	t.Helper()
	var out struct {
		Deliveries []delivery `json:"deliveries"`
	}
	status, body := keyDo(t, env, key, http.MethodGet, "/v1/webhooks/"+webhookID+"/deliveries"+strings.Join(query, ""), nil, &out)
	if status != http.StatusOK {
		t.Fatalf("list deliveries: %d %s", status, body)
	}
	return out.Deliveries
}

// deliveryOf waits until the delivery of event eventID to the webhook
// satisfies cond (its attempt is recorded after the receiver answered).
func deliveryOf(t *testing.T, env *refservertest.Env, key, webhookID, eventID string, cond func(delivery) bool) delivery {
	t.Helper()
	var d delivery
	eventually(t, "the delivery of "+eventID, func() bool {
		for _, x := range listDeliveries(t, env, key, webhookID) {
			if x.EventID == eventID {
				d = x
				return cond(x)
			}
		}
		return false
	})
	return d
}

func readFeed(t *testing.T, env *refservertest.Env, key, query string) feedPage {
	t.Helper()
	var out feedPage
	status, body := keyDo(t, env, key, http.MethodGet, "/v1/events"+query, nil, &out)
	if status != http.StatusOK {
		t.Fatalf("GET /v1/events%s: %d %s", query, status, body)
	}
	return out
}

func feedTypes(p feedPage) []string {
	var out []string
	for _, e := range p.Events {
		out = append(out, e.Type)
	}
	return out
}

// serverTime is the virtual clock's Unix time.
func serverTime(t *testing.T, env *refservertest.Env) int64 {
	t.Helper()
	var c struct {
		ServerTime int64 `json:"serverTime"`
	}
	env.AdminDo(t, http.MethodGet, "/sandbox/clock", nil, &c)
	return c.ServerTime
}

// errorCode decodes the code of an error body.
func errorCode(t *testing.T, body []byte) (int, map[string]any) {
	t.Helper()
	var e struct {
		Code        int            `json:"code"`
		ContextData map[string]any `json:"contextData"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body %s: %v", body, err)
	}
	return e.Code, e.ContextData
}
