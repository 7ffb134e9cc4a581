package contract

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteText prints the report for a person: a header, one line per check
// (PASS, FAIL or SKIP, its name and endpoint; why it was skipped), under
// each failure what differs and the request that showed it, and a summary.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "hospo contract: %s (%s mode)\n", r.BaseURL, r.Mode)
	width := 0
	for _, res := range r.Results {
		width = max(width, len(res.Name))
	}
	for _, res := range r.Results {
		fmt.Fprintf(&b, "%s %-*s  %s", res.Verdict, width, res.Name, res.Endpoint)
		if res.Verdict == Skip {
			fmt.Fprintf(&b, "  (%s)", res.SkipReason)
		}
		b.WriteByte('\n')
		for _, f := range res.Failures {
			fmt.Fprintf(&b, "     %s\n", f.Message)
			if f.Exchange != nil {
				writeExchange(&b, "       ", f.Exchange)
			}
		}
	}
	s := r.Summary
	fmt.Fprintf(&b, "%d checks: %d passed, %d failed, %d skipped\n", s.Total, s.Passed, s.Failed, s.Skipped)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeExchange prints the evidence of a failure, each line indented.
func writeExchange(b *strings.Builder, indent string, ex *Exchange) {
	fmt.Fprintf(b, "%srequest: %s\n", indent, ex.Request)
	if ex.RequestBody != "" {
		fmt.Fprintf(b, "%srequest body: %s\n", indent, oneLine(ex.RequestBody))
	}
	if ex.Error != "" {
		fmt.Fprintf(b, "%serror: %s\n", indent, ex.Error)
	}
	if ex.Status != 0 {
		fmt.Fprintf(b, "%sstatus: %d", indent, ex.Status)
		if ex.RequestID != "" {
			fmt.Fprintf(b, " (X-Request-Id %s)", ex.RequestID)
		}
		b.WriteByte('\n')
	}
	if ex.Body != "" {
		fmt.Fprintf(b, "%sbody: %s\n", indent, oneLine(ex.Body))
	}
}

// oneLine folds a body onto one line, shortened for a terminal.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxShown {
		s = s[:maxShown] + "..."
	}
	return s
}

// WriteJSON writes the report as one JSON document, for tools.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// JUnit is the JUnit XML document of a report (the testsuites form that
// CI systems read): one testsuite, one testcase per check, a failure or
// skipped element where it did not pass.
type JUnit struct {
	XMLName xml.Name `xml:"testsuites"`
	JUnitSummary
	Suites []JUnitSuite `xml:"testsuite"`
}

// JUnitSummary holds the attributes that the testsuites and testsuite
// elements share: a name, how many tests ran and how they ended, and the
// time they took in seconds.
type JUnitSummary struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
}

// JUnitSuite is a testsuite element.
type JUnitSuite struct {
	JUnitSummary
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []JUnitProperty `xml:"properties>property"`
	Cases      []JUnitCase     `xml:"testcase"`
}

// JUnitProperty is a property element of a testsuite.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is a testcase element.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *JUnitFailure `xml:"failure"`
	Skipped   *JUnitSkipped `xml:"skipped"`
}

// JUnitFailure is the failure element of a testcase: the first problem as
// its message, every problem with its evidence as its text.
type JUnitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnitSkipped is the skipped element of a testcase.
type JUnitSkipped struct {
	Message string `xml:"message,attr"`
}

// JUnit returns the report as a JUnit document; now stamps it.
func (r *Report) JUnit(now time.Time) JUnit {
	var total time.Duration
	suite := JUnitSuite{
		JUnitSummary: JUnitSummary{Name: "hospo-contract", Tests: r.Summary.Total, Failures: r.Summary.Failed, Skipped: r.Summary.Skipped},
		Timestamp:    now.UTC().Format("2006-01-02T15:04:05"),
		Properties:   []JUnitProperty{{Name: "baseUrl", Value: r.BaseURL}, {Name: "mode", Value: r.Mode}},
	}
	for _, res := range r.Results {
		d := time.Duration(res.Duration)
		total += d
		area, _, _ := strings.Cut(res.Name, "/")
		c := JUnitCase{Name: res.Name, ClassName: "contract." + area, Time: seconds(d)}
		switch res.Verdict {
		case Fail:
			var b strings.Builder
			for _, f := range res.Failures {
				fmt.Fprintf(&b, "%s\n", f.Message)
				if f.Exchange != nil {
					writeExchange(&b, "  ", f.Exchange)
				}
			}
			c.Failure = &JUnitFailure{Message: res.Failures[0].Message, Type: res.Endpoint, Text: b.String()}
		case Skip:
			c.Skipped = &JUnitSkipped{Message: res.SkipReason}
		}
		suite.Cases = append(suite.Cases, c)
	}
	suite.Time = seconds(total)
	// The document holds the one suite, so its totals are the suite's.
	return JUnit{JUnitSummary: suite.JUnitSummary, Suites: []JUnitSuite{suite}}
}

// WriteJUnit writes the report as JUnit XML.
func (r *Report) WriteJUnit(w io.Writer, now time.Time) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(r.JUnit(now)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
