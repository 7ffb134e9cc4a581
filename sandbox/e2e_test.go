package sandbox_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// startSandbox starts an in-process sandbox and returns it with the
// sandbox service over an admin client.
func startSandbox(t *testing.T) (*refservertest.Env, *sandbox.Service) {
	t.Helper()
	env := refservertest.Start(t)
	return env, sandbox.NewService(env.Client(t, client.WithAdminKey(env.AdminKey)))
}

// testCard is a Luhn-valid test card expiring in three years.
func testCard() wallet.CardDetails {
	return wallet.CardDetails{Number: "4111111111111111", CVC: "739", ExpiryMonth: 7,
		ExpiryYear: (time.Now().UTC().Year() + 3) % 100, HolderName: "E2E Diner"}
}

func TestE2EFixturesAndReset(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()

	f, err := sb.Fixtures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The server answers with this package's types: the fixture is the
	// one its own test helper reads.
	if d := cmp.Diff(env.Fixtures(t), f); d != "" {
		t.Errorf("fixtures (-server helper +client):\n%s", d)
	}
	if len(f.Users) != 2 || len(f.Locations) != 2 || len(f.APIKeys) != 2 {
		t.Errorf("fixtures = %+v, want two of each", f)
	}
	if _, ok := f.Location(wallet.ProviderD); !ok {
		t.Error("the demo fixture has no providerD location")
	}

	// What is made after the fixture is gone after a reset; the demo
	// credentials stay what they were.
	u, err := sb.CreateUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sb.AdvanceClock(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	after, err := sb.Reset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(f, after); d != "" {
		t.Errorf("fixtures after reset (-before +after):\n%s", d)
	}
	w := wallet.NewService(env.Client(t, client.WithAccessToken(u.AccessToken)))
	if _, err := w.GetWallet(ctx); !errors.Is(err, client.ErrAccessTokenInvalid) {
		t.Errorf("a user made before the reset: err = %v, want ErrAccessTokenInvalid", err)
	}
	if c, err := sb.Clock(ctx); err != nil || c.OffsetSeconds != 0 {
		t.Errorf("clock after reset = %+v, %v; want offset 0", c, err)
	}
	// Any number of resets in a row.
	if _, err := sb.Reset(ctx); err != nil {
		t.Errorf("second reset: %v", err)
	}
}

func TestE2ECreateUser(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()

	u, err := sb.CreateUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := wallet.NewService(env.Client(t, client.WithAccessToken(u.AccessToken)))
	got, err := w.GetWallet(ctx)
	if err != nil {
		t.Fatalf("the new user's token: %v", err)
	}
	if got.UserID != u.UserID || len(got.Wallet) != 0 {
		t.Errorf("user = %+v, want user %d with an empty wallet", got, u.UserID)
	}
}

func TestE2ECreateLocation(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()

	l, err := sb.CreateLocation(ctx, sandbox.CreateLocationRequest{Name: "Pier Kiosk", Gateway: wallet.ProviderD})
	if err != nil {
		t.Fatal(err)
	}
	if l.LocationID == 0 || l.POSAccessToken == "" || l.Name != "Pier Kiosk" || l.Gateway != wallet.ProviderD {
		t.Errorf("location = %+v", l)
	}
	details, err := wallet.NewService(env.Client(t)).GetLocation(ctx, l.LocationID)
	if err != nil {
		t.Fatal(err)
	}
	if details.LocationPaymentDetails.Gateway != wallet.ProviderD {
		t.Errorf("gateway = %q, want providerD", details.LocationPaymentDetails.Gateway)
	}
	// The POS access token works on the push-pull endpoints.
	pos := possync.NewService(env.Client(t, client.WithAccessToken(l.POSAccessToken)))
	if _, err := pos.Heartbeat(ctx, l.LocationID); err != nil {
		t.Errorf("heartbeat with the new POS token: %v", err)
	}

	// Every failing field at once.
	_, err = sb.CreateLocation(ctx, sandbox.CreateLocationRequest{Name: " ", Gateway: "providerZ", POSToken: "t"})
	var apiErr *client.APIError
	if !errors.Is(err, client.ErrValidation) || !errors.As(err, &apiErr) {
		t.Fatalf("bad location: err = %v, want a 400002", err)
	}
	fe := apiErr.FieldErrors()
	for _, field := range []string{"name", "gateway", "posToken"} {
		if fe[field] == "" {
			t.Errorf("FieldErrors = %v, want %s named", fe, field)
		}
	}
}

func TestE2ECreateLocationWithUniversalPOS(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()

	l, err := sb.CreateLocation(ctx, sandbox.CreateLocationRequest{
		Name: "Wired", Gateway: wallet.ProviderB,
		POSURL: env.URL + "/sandbox/demo-pos", POSToken: "pos-bearer-token",
	})
	if err != nil {
		t.Fatal(err)
	}
	if l.LocationID == 0 || l.POSAccessToken == "" {
		t.Errorf("location = %+v", l)
	}
}

func TestE2ECreateAPIKey(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()
	f, err := sb.Fixtures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first, second := f.Locations[0].LocationID, f.Locations[1].LocationID

	k, err := sb.CreateAPIKey(ctx, []int64{first, first})
	if err != nil {
		t.Fatal(err)
	}
	if k.APIKey == "" || k.KeyID == 0 || !cmp.Equal(k.LocationIDs, []int64{first}) {
		t.Errorf("key = %+v, want one scoped to location %d", k, first)
	}
	b := bills.NewService(env.Client(t, client.WithAPIKey(k.APIKey)))
	to := time.Now()
	if _, err := b.ListClosed(ctx, first, to.Add(-time.Hour), to); err != nil {
		t.Errorf("the key on its location: %v", err)
	}
	if _, err := b.ListClosed(ctx, second, to.Add(-time.Hour), to); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("the key on another location: err = %v, want ErrForbidden", err)
	}

	_, err = sb.CreateAPIKey(ctx, []int64{first, 999999})
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.FieldErrors()["locationIds[1]"] == "" {
		t.Errorf("unknown location: err = %v, want a 400002 naming locationIds[1]", err)
	}
	if _, err := sb.CreateAPIKey(ctx, nil); !errors.Is(err, client.ErrValidation) {
		t.Errorf("no locations: err = %v, want ErrValidation", err)
	}
}

func TestE2ESetCardStatus(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()
	trust, err := sb.ProviderTrust(ctx)
	if err != nil {
		t.Fatal(err)
	}
	u, err := sb.CreateUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := wallet.NewService(env.Client(t, client.WithAccessToken(u.AccessToken)), trust)
	card, err := w.AddCard(ctx, wallet.AddCardRequest{Card: testCard(), Providers: []wallet.Gateway{wallet.ProviderB}})
	if err != nil {
		t.Fatal(err)
	}

	if err := sb.SetCardStatus(ctx, card.CardID, wallet.CardStatusBlockedFraud); err != nil {
		t.Fatal(err)
	}
	got, err := w.GetWallet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Wallet) != 1 || got.Wallet[0].CardStatusID != wallet.CardStatusBlockedFraud {
		t.Errorf("wallet = %+v, want the card blocked", got.Wallet)
	}

	if err := sb.SetCardStatus(ctx, 999999, wallet.CardStatusLive); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("unknown card: err = %v, want ErrNotFound", err)
	}
	if err := sb.SetCardStatus(ctx, card.CardID, wallet.CardStatus(9)); !errors.Is(err, client.ErrValidation) {
		t.Errorf("status 9: err = %v, want ErrValidation", err)
	}
}

func TestE2EClock(t *testing.T) {
	t.Parallel()
	_, sb := startSandbox(t)
	ctx := context.Background()

	before, err := sb.Clock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before.Offset() != 0 || before.ServerTime.IsZero() {
		t.Errorf("fresh clock = %+v", before)
	}
	moved, err := sb.AdvanceClock(ctx, 7*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if moved.Offset() != 7*time.Minute {
		t.Errorf("offset = %v, want 7m", moved.Offset())
	}
	if d := moved.ServerTime.Sub(before.ServerTime.Time); d < 7*time.Minute {
		t.Errorf("server time moved %v, want at least 7m", d)
	}
	now, err := sb.Clock(ctx)
	if err != nil || now.Offset() != 7*time.Minute {
		t.Errorf("clock = %+v, %v; want offset 7m", now, err)
	}
	if _, err := sb.AdvanceClock(ctx, -time.Second); !errors.Is(err, client.ErrValidation) {
		t.Errorf("backwards: err = %v, want ErrValidation", err)
	}
}

func TestE2EFaults(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()
	f, err := sb.Fixtures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	loc := f.Locations[0].LocationID
	w := wallet.NewService(env.Client(t))

	added, err := sb.AddFault(ctx, sandbox.FaultRequest{Method: "get", PathPrefix: "/v1/location/", Status: http.StatusServiceUnavailable})
	if err != nil {
		t.Fatal(err)
	}
	want := sandbox.Fault{ID: added.ID, Method: "GET", PathPrefix: "/v1/location/", Status: 503, Count: 1, Remaining: 1}
	if added.ID == 0 || added != want {
		t.Errorf("added = %+v, want %+v", added, want)
	}
	list, err := sb.Faults(ctx)
	if err != nil || !cmp.Equal(list, []sandbox.Fault{want}) {
		t.Errorf("faults = %+v, %v; want [%+v]", list, err, want)
	}

	_, err = w.GetLocation(ctx, loc, client.WithMaxRetries(0))
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 503 || apiErr.Code != 503001 {
		t.Errorf("faulted call: err = %v, want an injected 503001", err)
	}
	if list, err := sb.Faults(ctx); err != nil || len(list) != 0 {
		t.Errorf("faults after use = %+v, %v; want none", list, err)
	}

	// ClearFaults takes away what was not used.
	if _, err := sb.AddFault(ctx, sandbox.FaultRequest{PathPrefix: "/v1/location/", Status: 500, Count: 5}); err != nil {
		t.Fatal(err)
	}
	if err := sb.ClearFaults(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.GetLocation(ctx, loc, client.WithMaxRetries(0)); err != nil {
		t.Errorf("after ClearFaults: %v", err)
	}

	_, err = sb.AddFault(ctx, sandbox.FaultRequest{PathPrefix: "/sandbox/fixtures", Status: 500})
	if !errors.As(err, &apiErr) || apiErr.FieldErrors()["pathPrefix"] == "" {
		t.Errorf("a fault on an admin path: err = %v, want a 400002 naming pathPrefix", err)
	}
}

func TestE2ERequests(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()
	start, err := sb.Requests(ctx, sandbox.JournalQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if start.Capacity == 0 {
		t.Fatalf("journal = %+v, want a capacity", start)
	}

	_, err = wallet.NewService(env.Client(t)).GetLocation(ctx, 424242)
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.RequestID == "" {
		t.Fatalf("unknown location: err = %v, want an APIError with a request id", err)
	}

	// Only what came since start, and only the 4xx.
	j, err := sb.Requests(ctx, sandbox.JournalQuery{After: start.LastSeq, Status: "4xx", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Requests) != 1 {
		t.Fatalf("journal = %+v, want the one 404", j.Requests)
	}
	e := j.Requests[0]
	if e.RequestID != apiErr.RequestID || e.Method != http.MethodGet || e.Route != "/v1/location/{locationId}" ||
		e.Status != 404 || e.ErrorCode == nil || *e.ErrorCode != client.CodeNotFound ||
		e.LocationID == nil || *e.LocationID != 424242 || e.Credential != "none" || e.Seq <= start.LastSeq {
		t.Errorf("entry = %+v", e)
	}
	if j.LastSeq < e.Seq {
		t.Errorf("LastSeq = %d, want at least %d", j.LastSeq, e.Seq)
	}
	if byLoc, err := sb.Requests(ctx, sandbox.JournalQuery{LocationID: 424242}); err != nil || len(byLoc.Requests) != 1 {
		t.Errorf("by location: %+v, %v", byLoc.Requests, err)
	}

	_, err = sb.Requests(ctx, sandbox.JournalQuery{Status: "four"})
	if !errors.Is(err, client.ErrInvalidQuery) || !strings.Contains(err.Error(), "status") {
		t.Errorf("bad status filter: err = %v, want a 400003 naming status", err)
	}
}

func TestE2EWrongAdminKey(t *testing.T) {
	t.Parallel()
	_, sb := startSandbox(t)
	const wrong = "not-the-admin-key-0123456789"
	_, err := sb.Fixtures(context.Background(), client.WithAdminKey(wrong))
	if !errors.Is(err, client.ErrAdminKeyInvalid) {
		t.Errorf("err = %v, want ErrAdminKeyInvalid", err)
	}
	if strings.Contains(err.Error(), wrong) {
		t.Errorf("the key shows in %q", err)
	}
}
