package refservertest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/wallet"
)

// VenueConfig describes the location that NewVenue creates. The zero value
// is a providerB location named "Test Venue" without a universal POS.
type VenueConfig struct {
	Name    string         // "Test Venue" when empty
	Gateway wallet.Gateway // wallet.ProviderB when empty

	// UniversalPOSURL, when set, wires the location to the universal POS
	// at that URL, which accepts the bearer token UniversalPOSToken. The
	// server then syncs the location's menu from it in the background
	// (see WaitForMenu).
	UniversalPOSURL   string
	UniversalPOSToken string

	// ClientOptions are added to the options of the venue's SDK client,
	// after the test defaults (a recording transport, say).
	ClientOptions []client.Option
}

// Venue is a location of the server seen from its point of sale: the POS
// pushes checks, sends heartbeats and polls and accepts payments through
// possync with the location's POS token. Diners pay there (Diner.Pay).
type Venue struct {
	ID       int64 // the location id
	Name     string
	Gateway  wallet.Gateway
	POSToken string           // the location's POS access token
	POS      *possync.Service // calls as the location's POS

	env *Env
}

// NewVenue creates a location (POST /sandbox/locations) as cfg describes.
// Its POS is offline until the first Heartbeat.
func (e *Env) NewVenue(t testing.TB, cfg VenueConfig) *Venue {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "Test Venue"
	}
	if cfg.Gateway == "" {
		cfg.Gateway = wallet.ProviderB
	}
	body := map[string]any{"name": cfg.Name, "gateway": cfg.Gateway}
	if cfg.UniversalPOSURL != "" {
		body["posUrl"], body["posToken"] = cfg.UniversalPOSURL, cfg.UniversalPOSToken
	}
	var out struct {
		LocationID     int64  `json:"locationId"`
		POSAccessToken string `json:"posAccessToken"`
	}
	e.mustAdmin(t, http.StatusCreated, http.MethodPost, "/sandbox/locations", body, &out)
	opts := append([]client.Option{client.WithAccessToken(out.POSAccessToken)}, cfg.ClientOptions...)
	return &Venue{
		ID: out.LocationID, Name: cfg.Name, Gateway: cfg.Gateway, POSToken: out.POSAccessToken,
		POS: possync.NewService(e.Client(t, opts...)), env: e,
	}
}

// Heartbeat sends the POS's heartbeat, which puts the location online:
// payments need it.
func (v *Venue) Heartbeat(t testing.TB) possync.HeartbeatResult {
	t.Helper()
	res, err := v.POS.Heartbeat(context.Background(), v.ID)
	if err != nil {
		t.Fatalf("refservertest: heartbeat of location %d: %v", v.ID, err)
	}
	return res
}

// OpenCheck returns an open check of the venue with one item, whose total
// and outstanding amount are outstanding (a decimal, "12.50").
func (v *Venue) OpenCheck(number int64, outstanding string) possync.Check {
	amt := client.MustParseMoney(outstanding)
	return possync.Check{
		TableNumber: 4, CheckNumber: number, LocationID: v.ID, StaffID: "staff-1", Guests: 2,
		Status: possync.CheckOpen, TotalAmount: amt, OutstandingAmount: amt,
		Discounts: []possync.Discount{},
		MenuItems: []possync.MenuItem{{ID: 1, Name: "Stew", Quantity: 1, Price: amt, PriceSold: amt,
			Category: possync.Category{Name: "Mains"}}},
	}
}

// PushCheck pushes c as the venue's POS, with c.LocationID set to the
// venue's.
func (v *Venue) PushCheck(t testing.TB, c possync.Check) possync.PushResult {
	t.Helper()
	c.LocationID = v.ID
	res, err := v.POS.PushCheck(context.Background(), &c)
	if err != nil {
		t.Fatalf("refservertest: push check %d: %v", c.CheckNumber, err)
	}
	return res
}

// AcceptAll accepts every pending payment of the venue except those in
// keep, as a POS does once it has saved them on their checks.
func (v *Venue) AcceptAll(t testing.TB, keep ...int64) {
	t.Helper()
	pending, err := v.POS.Payments(context.Background(), v.ID)
	if err != nil {
		t.Fatalf("refservertest: payments poll of location %d: %v", v.ID, err)
	}
	skip := map[int64]bool{}
	for _, id := range keep {
		skip[id] = true
	}
	for _, ps := range pending {
		for _, p := range ps {
			if skip[p.PaymentID] {
				continue
			}
			if _, err := v.POS.AcceptPayment(context.Background(), p.PaymentID); err != nil {
				t.Fatalf("refservertest: accept payment %d: %v", p.PaymentID, err)
			}
		}
	}
}

// NewAPIKey creates a vendor API key scoped to the venue (for the bills
// API).
func (v *Venue) NewAPIKey(t testing.TB) string {
	t.Helper()
	return v.env.NewAPIKey(t, v.ID)
}

// WaitForMenu waits until the menu of location id has been synced from its
// universal POS, which the server does in the background, and returns it.
// The wait is bounded only to catch a hang.
func (e *Env) WaitForMenu(t testing.TB, locationID int64) fulfillment.LocationMenu {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	menus := fulfillment.NewService(e.Client(t))
	for {
		m, err := menus.Menu(ctx, locationID)
		if err == nil && !m.SyncedAt.IsZero() && len(m.Menus) > 0 {
			return m
		}
		select {
		case <-ctx.Done():
			t.Fatalf("refservertest: the menu of location %d was never synced (last error %v)", locationID, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
