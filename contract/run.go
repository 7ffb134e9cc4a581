package contract

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// Config says which service a run checks and with what.
//
// With AdminKey the service is a sandbox: the run makes its own users,
// locations and API keys through the admin API and changes nothing else.
// Without it the run is careful: it acts only with the credentials given,
// never moves money, never changes data it did not create, and skips (and
// says why) every check that would.
type Config struct {
	// BaseURL is the service's base URL.
	BaseURL string
	// AdminKey is the sandbox admin key; empty for a real environment.
	AdminKey string

	// The real credentials of careful mode; each is optional, and the
	// checks that need a missing one are skipped.
	AccessToken string // a user's access token
	POSToken    string // the POS access token of location LocationID
	LocationID  int64  // a location of the service
	APIKey      string // a vendor API key scoped to LocationID

	// HTTPClient sends the requests; nil means a default client. Its
	// Transport is wrapped, never modified.
	HTTPClient *http.Client
	// Timeout bounds each request; 0 means 30 seconds.
	Timeout time.Duration
	// Only, when not empty, runs just the checks of these names.
	Only []string
}

// Verdict is the outcome of one check.
type Verdict string

// The verdicts of a check.
const (
	Pass Verdict = "PASS"
	Fail Verdict = "FAIL"
	Skip Verdict = "SKIP"
)

// Result is what one check found.
type Result struct {
	Name     string  `json:"name"`
	Endpoint string  `json:"endpoint"`
	Rule     string  `json:"rule"`
	Needs    string  `json:"needs,omitempty"`
	Verdict  Verdict `json:"verdict"`
	// SkipReason says why a skipped check did not run.
	SkipReason string `json:"skipReason,omitempty"`
	// Failures are what a failed check found wrong, with their evidence.
	Failures []Failure    `json:"failures,omitempty"`
	Duration jsonDuration `json:"durationMs"`
}

// Report is the outcome of a run.
type Report struct {
	BaseURL string `json:"baseUrl"`
	// Mode is "sandbox" or "careful".
	Mode    string   `json:"mode"`
	Results []Result `json:"results"`
	Summary Summary  `json:"summary"`
}

// Summary counts the verdicts of a run.
type Summary struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

// Passed reports whether no check failed.
func (r *Report) Passed() bool { return r.Summary.Failed == 0 }

// Result returns the result of the check named name.
func (r *Report) Result(name string) (Result, bool) {
	i := slices.IndexFunc(r.Results, func(res Result) bool { return res.Name == name })
	if i < 0 {
		return Result{}, false
	}
	return r.Results[i], true
}

// Run checks the service of cfg against the contract and reports each
// check. It returns an error only for a Config it cannot run with; what
// the service does wrong is in the Report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	m, err := cfg.mode()
	if err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	selected, err := selectChecks(cfg.Only)
	if err != nil {
		return nil, err
	}
	w, err := newWorld(cfg, m)
	if err != nil {
		return nil, err
	}
	rep := &Report{BaseURL: cfg.BaseURL, Mode: "sandbox"}
	if m.careful {
		rep.Mode = "careful"
	}
	for _, c := range selected {
		res := runOne(ctx, w, c)
		rep.Results = append(rep.Results, res)
		rep.Summary.Total++
		switch res.Verdict {
		case Pass:
			rep.Summary.Passed++
		case Fail:
			rep.Summary.Failed++
		case Skip:
			rep.Summary.Skipped++
		}
	}
	return rep, nil
}

// mode checks the credentials of cfg and says what the run can do.
func (cfg Config) mode() (mode, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return mode{}, fmt.Errorf("contract: base URL %q is not an absolute http or https URL", cfg.BaseURL)
	}
	given := cfg.AccessToken != "" || cfg.POSToken != "" || cfg.APIKey != "" || cfg.LocationID != 0
	switch {
	case cfg.AdminKey != "" && given:
		return mode{}, errors.New("contract: give either the admin key of a sandbox or real credentials, not both")
	case cfg.AdminKey != "":
		return mode{user: true, pos: true, location: true, apiKey: true}, nil
	case !given:
		return mode{}, errors.New("contract: no credentials: give the admin key of a sandbox, or real credentials")
	case cfg.POSToken != "" && cfg.LocationID == 0:
		return mode{}, errors.New("contract: a POS token needs the id of its location")
	}
	return mode{careful: true, user: cfg.AccessToken != "", pos: cfg.POSToken != "",
		location: cfg.LocationID != 0, apiKey: cfg.APIKey != ""}, nil
}

// selectChecks returns the checks named in only, in run order, or all.
func selectChecks(only []string) ([]Check, error) {
	if len(only) == 0 {
		return checks, nil
	}
	for _, name := range only {
		if _, ok := Lookup(name); !ok {
			return nil, fmt.Errorf("contract: no check named %q", name)
		}
	}
	var out []Check
	for _, c := range checks {
		if slices.Contains(only, c.Name) {
			out = append(out, c)
		}
	}
	return out, nil
}

// runOne runs c in w and returns its result.
func runOne(ctx context.Context, w *world, c Check) Result {
	res := Result{Name: c.Name, Endpoint: c.Endpoint, Rule: c.Rule, Needs: c.Needs.String()}
	if reason := c.skipReason(w.mode); reason != "" {
		res.Verdict, res.SkipReason = Skip, reason
		return res
	}
	t := &T{ctx: ctx, w: w}
	w.rec.take()
	start := time.Now()
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stopCheck); !ok {
					t.Errorf("the check panicked: %v", r)
				}
			}
		}()
		c.Run(t)
	}()
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		func() {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(stopCheck); !ok {
						t.Errorf("a clean-up panicked: %v", r)
					}
				}
			}()
			t.cleanups[i]()
		}()
	}
	res.Duration = jsonDuration(time.Since(start))
	w.rec.take()
	switch {
	case len(t.failures) > 0:
		res.Verdict, res.Failures = Fail, t.failures
	case t.skip != "":
		res.Verdict, res.SkipReason = Skip, t.skip
	case ctx.Err() != nil:
		res.Verdict, res.Failures = Fail, []Failure{{Message: "run cancelled: " + ctx.Err().Error()}}
	default:
		res.Verdict = Pass
	}
	return res
}

// jsonDuration is a duration that encodes as whole milliseconds.
type jsonDuration time.Duration

func (d jsonDuration) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, "%d", time.Duration(d).Milliseconds()), nil
}

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	var ms int64
	if _, err := fmt.Sscan(string(b), &ms); err != nil {
		return err
	}
	*d = jsonDuration(time.Duration(ms) * time.Millisecond)
	return nil
}
