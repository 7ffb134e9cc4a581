package contract

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// world is what the checks of one run share: the recording HTTP client,
// and the users, locations and keys they act as. In a sandbox it makes
// its own through the admin API, once each, when a check first needs
// them; with real credentials it has the ones given.
type world struct {
	cfg  Config
	mode mode
	base string // cfg.BaseURL without a trailing slash
	rec  *recorder
	hc   *http.Client // records; the SDK clients of the checks use it
	adm  *sandbox.Service

	mu      sync.Mutex
	main    *actor
	venueB  *venue
	keyB    *vendor
	demoLoc int64
	trust   wallet.ServiceOption

	checkNo atomic.Int64
}

// actor is a user of the service.
type actor struct {
	ID     int64
	Token  string
	Client *client.Client
	Wallet *wallet.Service
	Orders *fulfillment.Service
}

// venue is a location seen from its POS.
type venue struct {
	ID      int64
	Gateway wallet.Gateway
	Token   string // POS access token
	POS     *possync.Service
}

// vendor is the holder of an API key.
type vendor struct {
	Key    string
	Bills  *bills.Service
	Events *events.Service
}

func newWorld(cfg Config, m mode) (*world, error) {
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	rec := &recorder{base: rt}
	hc := *base
	hc.Transport = rec
	w := &world{cfg: cfg, mode: m, base: strings.TrimRight(cfg.BaseURL, "/"), rec: rec, hc: &hc}
	if !m.careful {
		// The admin API's exchanges are set-up, not evidence: its client
		// does not record.
		c, err := w.client(base, client.WithAdminKey(cfg.AdminKey))
		if err != nil {
			return nil, err
		}
		w.adm = sandbox.NewService(c)
	}
	return w, nil
}

// client returns an SDK client of the service over hc with opts. Retries
// are off: a check must see each answer as the service gave it.
func (w *world) client(hc *http.Client, opts ...client.Option) (*client.Client, error) {
	return client.New(append([]client.Option{
		client.WithBaseURL(w.base),
		client.WithHTTPClient(hc),
		client.WithMaxRetries(0),
		client.WithTimeout(w.cfg.Timeout),
		client.WithUserAgent("hospo-contract/" + client.Version),
	}, opts...)...)
}

// sdk is client over the recording transport; a failure ends the check.
func (t *T) sdk(opts ...client.Option) *client.Client {
	c, err := t.w.client(t.w.hc, opts...)
	t.ok(err, "make an SDK client")
	return c
}

// admin returns the sandbox admin API.
func (t *T) admin() *sandbox.Service {
	if t.w.adm == nil {
		t.Fatalf("the check needs the sandbox admin API, and the run has no admin key")
	}
	return t.w.adm
}

// user returns the user the checks act as: -access-token, or one made in
// the sandbox for the run.
func (t *T) user() *actor {
	w := t.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.main == nil {
		if w.mode.careful {
			w.main = t.actor(0, w.cfg.AccessToken)
		} else {
			w.main = t.newUser()
		}
	}
	return w.main
}

// newUser makes a user in the sandbox.
func (t *T) newUser() *actor {
	u, err := t.admin().CreateUser(t.ctx)
	t.ok(err, "set-up: POST /sandbox/users")
	return t.actor(u.UserID, u.AccessToken)
}

func (t *T) actor(id int64, token string) *actor {
	c := t.sdk(client.WithAccessToken(token))
	var opts []wallet.ServiceOption
	if !t.w.mode.careful {
		opts = append(opts, t.providerTrust())
	}
	return &actor{ID: id, Token: token, Client: c, Wallet: wallet.NewService(c, opts...), Orders: fulfillment.NewService(c)}
}

// providerTrust makes the wallet trust the sandbox's HTTPS listener, where
// providerD tokenises.
func (t *T) providerTrust() wallet.ServiceOption {
	w := t.w
	if w.trust == nil {
		opt, err := t.admin().ProviderTrust(t.ctx)
		t.ok(err, "set-up: GET /sandbox/ca.pem")
		w.trust = opt
	}
	return w.trust
}

// venue returns the location the checks push to and pay at: -location
// with -pos-token, or a providerB location made for the run, online.
func (t *T) venue() *venue {
	w := t.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.venueB == nil {
		if w.mode.careful {
			w.venueB = &venue{ID: w.cfg.LocationID, Token: w.cfg.POSToken,
				POS: possync.NewService(t.sdk(client.WithAccessToken(w.cfg.POSToken)))}
		} else {
			w.venueB = t.newVenue(wallet.ProviderB, true)
		}
	}
	return w.venueB
}

// newVenue makes a location in the sandbox, its POS online when online
// (a new location is offline until its first heartbeat).
func (t *T) newVenue(gw wallet.Gateway, online bool) *venue {
	loc, err := t.admin().CreateLocation(t.ctx, sandbox.CreateLocationRequest{Name: "Contract " + string(gw), Gateway: gw})
	t.ok(err, "set-up: POST /sandbox/locations")
	v := &venue{ID: loc.LocationID, Gateway: gw, Token: loc.POSAccessToken,
		POS: possync.NewService(t.sdk(client.WithAccessToken(loc.POSAccessToken)))}
	if online {
		_, err := v.POS.Heartbeat(t.ctx, v.ID)
		t.ok(err, fmt.Sprintf("heartbeat of location %d", v.ID))
	}
	return v
}

// vendor returns the holder of an API key scoped to venue(): -api-key, or
// one made in the sandbox for the run.
func (t *T) vendor() *vendor {
	v := t.venue()
	w := t.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.keyB == nil {
		key := w.cfg.APIKey
		if !w.mode.careful {
			key = t.newKey(v.ID)
		}
		w.keyB = t.vendorOf(key)
	}
	return w.keyB
}

// newKey makes an API key in the sandbox scoped to locations.
func (t *T) newKey(locations ...int64) string {
	k, err := t.admin().CreateAPIKey(t.ctx, locations)
	t.ok(err, "set-up: POST /sandbox/api-keys")
	return k.APIKey
}

func (t *T) vendorOf(key string) *vendor {
	c := t.sdk(client.WithAPIKey(key))
	return &vendor{Key: key, Bills: bills.NewService(c), Events: events.NewService(c)}
}

// demoLocation returns a sandbox location that has a universal POS and a
// synced menu to order from: the demo fixture's first. Orders made there
// are the run's own user's; nothing of the location changes. It waits, a
// bounded time, for the first menu sync after the sandbox starts, and
// skips the check if the location's demo POS was set to anything but
// accept (someone else is using it to demonstrate failures).
func (t *T) demoLocation() int64 {
	w := t.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.demoLoc != 0 {
		return w.demoLoc
	}
	fx, err := t.admin().Fixtures(t.ctx)
	t.ok(err, "set-up: GET /sandbox/fixtures")
	if len(fx.Locations) == 0 {
		t.Fatalf("set-up: the sandbox has no demo locations")
	}
	id := fx.Locations[0].LocationID
	pos, err := t.admin().DemoPOS(t.ctx, id)
	t.ok(err, "set-up: GET /sandbox/locations/{id}/demo-pos")
	if pos.Mode != sandbox.DemoPOSAccept {
		t.Skipf("the demo location %d's POS is in mode %q, not accept", id, pos.Mode)
	}
	menus := fulfillment.NewService(t.sdk())
	ctx, cancel := context.WithTimeout(t.ctx, menuWait)
	defer cancel()
	for {
		m, err := menus.Menu(ctx, id)
		if err == nil && len(m.Menus) > 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("set-up: the menu of location %d was not synced within %v (last error %v)", id, menuWait, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	w.demoLoc = id
	return id
}

// menuWait bounds the wait for a demo location's first menu sync.
const menuWait = 30 * time.Second

// nextCheck returns a check number no other check of the run uses.
func (t *T) nextCheck() int64 { return t.w.checkNo.Add(1) }

// rawRequest is a request the SDK would not send as it is: a broken body,
// another content type, a wrong method or a hand-made query.
type rawRequest struct {
	Method      string
	Path        string // with its query, from the base URL's root: "/v1/user/me?scope=wallet"
	AccessToken string // added as the accessToken query parameter
	APIKey      string // sent as X-Vendor-API-Key
	Header      http.Header
	Body        []byte
	ContentType string // default application/json when there is a body
}

// raw sends r through the recording client and returns the exchange.
func (t *T) raw(r rawRequest) Exchange {
	u := t.w.base + r.Path
	if r.AccessToken != "" {
		sep := "?"
		if strings.Contains(r.Path, "?") {
			sep = "&"
		}
		u += sep + client.QueryAccessToken + "=" + url.QueryEscape(r.AccessToken)
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	ctx, cancel := context.WithTimeout(t.ctx, t.w.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.Method, u, body)
	t.ok(err, "build the request")
	if r.Body != nil {
		ct := r.ContentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if r.APIKey != "" {
		req.Header.Set(client.HeaderAPIKey, r.APIKey)
	}
	resp, err := t.w.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, redactURL(req.URL), err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return t.last()
}

// rawError sends r and checks the answer is error code.
func (t *T) rawError(r rawRequest, code client.Code) map[string]any {
	t.raw(r)
	t.status(code.HTTPStatus())
	t.errorBody()
	b := t.body()
	got, _ := b["code"].(json.Number)
	t.equal("code", got, json.Number(strconv.Itoa(int(code))))
	return b
}

// rawFields sends r and checks the answer is a 400002 naming each of
// paths, as wantFields does for an SDK call.
func (t *T) rawFields(r rawRequest, paths ...string) {
	t.rawError(r, client.CodeValidation)
	t.named(paths...)
}

// otherLocation returns the id of a location that is not venue()'s: one
// made in the sandbox, or, with real credentials, the next id (a POS token
// is bound to its one location, whatever the other id is).
func (t *T) otherLocation() int64 {
	if t.w.mode.careful {
		return t.venue().ID + 1
	}
	return t.newVenue(wallet.ProviderD, false).ID
}

// serverTime returns the service's clock (the sandbox's virtual one), read
// from the requestInfo of an answer that needs no credential.
func (t *T) serverTime() time.Time {
	b := t.rawError(rawRequest{Method: http.MethodGet, Path: "/v1/user/me?scope=wallet"}, client.CodeAccessTokenMissing)
	n, ok := field(b, "requestInfo", "serverTime").(json.Number)
	if !ok {
		t.Fatalf("requestInfo.serverTime: got %v, want an integer", field(b, "requestInfo", "serverTime"))
	}
	secs, err := n.Int64()
	t.ok(err, "requestInfo.serverTime")
	return time.Unix(secs, 0).UTC()
}

const hour = time.Hour

// menus is the ordering service without credentials, for menus.
func (t *T) menus() *fulfillment.Service { return fulfillment.NewService(t.sdk()) }

// randomID returns a fresh random text for names and keys that must not
// collide with another run's.
func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
