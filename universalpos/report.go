package universalpos

import (
	"fmt"
	"io"
	"strings"
)

// Result is the outcome of one check.
type Result struct {
	// Name is one of the Check... constants.
	Name   string
	Passed bool
	// Reason says what was seen: why it failed, or what passed.
	Reason string
}

// Report is the outcome of RunConformance: one Result per check, in run order.
type Report struct {
	URL     string
	Results []Result
}

// Passed reports whether every check passed.
func (r *Report) Passed() bool {
	if len(r.Results) == 0 {
		return false
	}
	for _, res := range r.Results {
		if !res.Passed {
			return false
		}
	}
	return true
}

// Result returns the result of the check named name.
func (r *Report) Result(name string) (Result, bool) {
	for _, res := range r.Results {
		if res.Name == name {
			return res, true
		}
	}
	return Result{}, false
}

// Failed returns the results that did not pass.
func (r *Report) Failed() []Result {
	var out []Result
	for _, res := range r.Results {
		if !res.Passed {
			out = append(out, res)
		}
	}
	return out
}

// Write prints the report for a person: a header, one line per check
// ("PASS name  reason" or "FAIL name  reason") and a summary line.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Universal POS conformance: %s\n", r.URL)
	width := 0
	for _, res := range r.Results {
		width = max(width, len(res.Name))
	}
	failed := 0
	for _, res := range r.Results {
		verdict := "PASS"
		if !res.Passed {
			verdict = "FAIL"
			failed++
		}
		fmt.Fprintf(&b, "%s %-*s  %s\n", verdict, width, res.Name, res.Reason)
	}
	fmt.Fprintf(&b, "%d checks: %d passed, %d failed\n", len(r.Results), len(r.Results)-failed, failed)
	_, err := io.WriteString(w, b.String())
	return err
}
