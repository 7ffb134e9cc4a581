package refserver_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// A location's page pays a check as a diner, switches the diners on and
// off and sets the demo POS's mode, through the admin API, and reports the
// admin API's refusals.
func TestConsolePlaysTheOtherSide(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Console Kiosk"})
	v.Heartbeat(t)
	v.PushCheck(t, v.OpenCheck(77, "18.40"))
	a := loggedInAgent(t, env)
	page := "/console/locations/" + fmtID(v.ID)
	live := "/console/live/locations/" + fmtID(v.ID)
	post := func(action string, form url.Values) string {
		t.Helper()
		form.Set("csrf", a.csrf())
		resp, _ := a.post("/console/controls/locations/"+fmtID(v.ID)+action, form, nil)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page {
			t.Fatalf("POST %s: %d to %q", action, resp.StatusCode, resp.Header.Get("Location"))
		}
		return a.mustPage(page) // shows the outcome once
	}

	if body := a.mustPage(live); !strings.Contains(body, `data-pay-check="77"`) || !strings.Contains(body, `data-diners="off"`) ||
		!strings.Contains(body, `data-demo-pos-mode="accept"`) {
		t.Fatalf("the live page lacks the pay button, the diners or the demo POS mode:\n%s", body)
	}
	if body := post("/pay", url.Values{"checkNumber": {"77"}}); !strings.Contains(body, "A diner paid check 77") {
		t.Errorf("paying is not confirmed:\n%s", body)
	}
	if a, _ := pendingOfVenue(t, v, 77); !(len(a) == 1 && a[0] == "18.40") {
		t.Errorf("poll after the console's payment = %v, want 18.40", a)
	}
	if body := post("/pay", url.Values{"checkNumber": {"77"}}); !strings.Contains(body, "The check owes nothing beyond its pending payments. (409002)") {
		t.Errorf("paying again does not report the 409002:\n%s", body)
	}

	if body := post("/diners", url.Values{"everySeconds": {"0"}}); !strings.Contains(body, "everySeconds: must be between 1 and") {
		t.Errorf("a bad interval does not report the admin API's reason:\n%s", body)
	}
	if body := post("/diners", url.Values{"everySeconds": {"90"}, "split": {"2"}, "tipPercent": {"12"}}); !strings.Contains(body, "Diners on.") {
		t.Errorf("diners on is not confirmed:\n%s", body)
	}
	if body := a.mustPage(live); !strings.Contains(body, `data-diners="on"`) || !strings.Contains(body, "every 90 s, split in 2, tip 12%") {
		t.Errorf("the page does not show the diners:\n%s", body)
	}
	if body := post("/diners/stop", url.Values{}); !strings.Contains(body, "Diners off.") || !strings.Contains(a.mustPage(live), `data-diners="off"`) {
		t.Errorf("diners off is not confirmed or shown:\n%s", body)
	}

	if body := post("/demo-pos", url.Values{"mode": {"sleepy"}}); !strings.Contains(body, "mode: must be one of") {
		t.Errorf("a bad mode does not report the admin API's reason:\n%s", body)
	}
	if body := post("/demo-pos", url.Values{"mode": {"fail-then-accept"}, "failCount": {"3"}, "delayMs": {"x"}}); !strings.Contains(body, "in mode fail-then-accept") {
		t.Errorf("the mode is not confirmed:\n%s", body)
	}
	if body := a.mustPage(live); !strings.Contains(body, `data-demo-pos-mode="fail-then-accept"`) || !strings.Contains(body, "3 of 3 failures left") {
		t.Errorf("the page does not show the mode:\n%s", body)
	}
}

// pendingOfVenue returns the amounts in the venue's payments poll for
// check number.
func pendingOfVenue(t *testing.T, v *refservertest.Venue, number int64) ([]string, error) {
	t.Helper()
	pending, err := v.POS.Payments(t.Context(), v.ID)
	var out []string
	for _, p := range pending[number] {
		out = append(out, p.PaymentExTip.String())
	}
	return out, err
}
