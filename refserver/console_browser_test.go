//go:build unix

package refserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// consoleScreenshot is where TestConsoleInBrowser saves its screenshot,
// relative to the repository root; CI keeps it as an artifact. A failing
// run saves consoleFailureShot instead.
const (
	consoleScreenshot  = "ci-artifacts/console.png"
	consoleFailureShot = "ci-artifacts/console-failure.png"
)

// liveWait bounds each wait for the console's pages to show a change; they
// poll every 2 s.
const liveWait = 20 * time.Second

// TestConsoleInBrowser drives the console in headless Chromium as a person
// would: log in, watch a location come online after a POS heartbeat, see a
// pushed check and a pending payment appear without reloading, advance the
// clock from the controls and see the location go offline. It saves a
// screenshot of the location's page.
//
// Chromium is found as $HOSPO_CHROMIUM or chromium on $PATH (Debian's
// chromium package). Without it the test is skipped, except under CI=true,
// where it fails.
func TestConsoleInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser; skipped with -short")
	}
	chromium, err := findChromium()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("Chromium is required in CI (apt-get install chromium, or set HOSPO_CHROMIUM)")
		}
		t.Skip("Chromium not found: install Debian's chromium package or set HOSPO_CHROMIUM to run this test")
	}
	t.Parallel()

	env := refservertest.Start(t)
	base := consoleURL(t, env)
	ctx := context.Background()
	f := env.Fixtures(t)
	loc := f.Locations[0].LocationID
	pos := possync.NewService(env.Client(t, client.WithAccessToken(f.Locations[0].POSAccessToken)))

	b := startBrowser(t, chromium, 1400, 1100)
	shot := filepath.Join(repoRoot(t), consoleScreenshot)
	t.Cleanup(func() {
		if t.Failed() {
			saveScreenshot(t, b, filepath.Join(repoRoot(t), consoleFailureShot))
		}
	})

	// Log in.
	b.navigate(base + "/console/login")
	b.waitFor("the login form", `document.querySelector("#adminKey") !== null`, liveWait)
	key, _ := json.Marshal(env.AdminKey)
	b.run(`document.querySelector("#adminKey").value = ` + string(key) + `; document.querySelector("form.login").submit()`)
	b.waitFor("the locations page", `location.pathname === "/console/locations" && document.readyState === "complete"`, liveWait)

	// A heartbeat brings the location online, live.
	row := `document.querySelector('tr[data-location-id="` + fmtID(loc) + `"] [data-pos-status]')`
	b.waitFor("the location offline", row+` !== null && `+row+`.dataset.posStatus === "offline"`, liveWait)
	if _, err := pos.Heartbeat(ctx, loc); err != nil {
		t.Fatal(err)
	}
	b.waitFor("the location online", row+`.dataset.posStatus === "online"`, liveWait)

	// On the location's page, a pushed check and then a payment appear.
	b.run(`document.querySelector('tr[data-location-id="` + fmtID(loc) + `"] a').click()`)
	b.waitFor("the location's page", `location.pathname === "/console/locations/`+fmtID(loc)+`" && document.readyState === "complete"`, liveWait)
	if _, err := pos.PushCheck(ctx, consoleCheck(loc, 4711, "Sam", "42.50")); err != nil {
		t.Fatal(err)
	}
	b.waitFor("the pushed check", `document.querySelector('[data-check-number="4711"]') !== null`, liveWait)

	diner := env.NewDiner(t)
	cardID := addConsoleCard(t, diner, "browser card")
	p, err := diner.Wallet.CreatePayment(ctx, wallet.CreatePaymentRequest{LocationID: loc, CheckNumber: 4711, CardID: cardID,
		Amount: client.MustParseMoney("40.00"), Tip: client.MustParseMoney("4.00")})
	if err != nil {
		t.Fatal(err)
	}
	b.waitFor("the pending payment", `document.querySelector('[data-payment-id="`+fmtID(p.PaymentID)+`"][data-payment-status="pending"]') !== null`, liveWait)

	// The events page lists the payment's event.
	b.run(`document.querySelector('nav a[href="/console/events"]').click()`)
	b.waitFor("the payment's event", `location.pathname === "/console/events" && `+
		`document.querySelector('[data-event-type="payment.created"]') !== null`, liveWait)

	// Advance the clock past the heartbeat's window from the controls.
	b.run(`document.querySelector('nav a[href="/console/controls"]').click()`)
	b.waitFor("the controls page", `location.pathname === "/console/controls" && document.readyState === "complete"`, liveWait)
	b.run(`document.querySelector('button[data-advance="361"]').click()`)
	b.waitFor("the clock advanced", `(document.querySelector('[data-testid="flash"]') || {}).textContent?.startsWith("Clock advanced") === true`, liveWait)

	// The location is offline now, in the list and on its page.
	b.run(`document.querySelector('nav a[href="/console/locations"]').click()`)
	b.waitFor("the location offline again", `location.pathname === "/console/locations" && `+row+` !== null && `+row+`.dataset.posStatus === "offline"`, liveWait)
	b.run(`document.querySelector('tr[data-location-id="` + fmtID(loc) + `"] a').click()`)
	b.waitFor("the location's page, offline, with the check and the payment",
		`location.pathname === "/console/locations/`+fmtID(loc)+`" && document.readyState === "complete" && `+
			`document.querySelector('.facts [data-pos-status]').dataset.posStatus === "offline" && `+
			`document.querySelector('[data-check-number="4711"]') !== null && `+
			`document.querySelector('[data-payment-status="pending"]') !== null`, liveWait)

	saveScreenshot(t, b, shot)
	t.Logf("screenshot saved to %s", shot)
}

// saveScreenshot writes the page's screenshot to path, making its
// directory.
func saveScreenshot(t *testing.T, b *browser, path string) {
	png, err := b.screenshot()
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if err == nil {
		err = os.WriteFile(path, png, 0o644)
	}
	if err != nil {
		t.Errorf("screenshot %s: %v", path, err)
	}
}

// repoRoot is the directory of go.mod above the test's directory.
func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
