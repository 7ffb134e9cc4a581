package contract_test

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/contract"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// The JUnit schema's shape, written independently of the package's own
// types: testsuites > testsuite (name, tests, failures, errors, time, and
// properties) > testcase (name, classname, time) with at most one failure
// (message, type, text) or skipped (message).
type junitDoc struct {
	XMLName xml.Name `xml:"testsuites"`
	Tests   string   `xml:"tests,attr"`
	Suites  []struct {
		Name       string `xml:"name,attr"`
		Tests      string `xml:"tests,attr"`
		Failures   string `xml:"failures,attr"`
		Errors     string `xml:"errors,attr"`
		Skipped    string `xml:"skipped,attr"`
		Time       string `xml:"time,attr"`
		Timestamp  string `xml:"timestamp,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			ClassName string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failures  []struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped []struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// The JUnit file parses as JUnit: one suite whose counts match its cases,
// each case named, timed and classed, a failure carrying its message and
// evidence, a skip its reason; and it survives a round trip through
// encoding/xml unchanged.
func TestJUnitParsesAsJUnit(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	admin := sandbox.NewService(env.Client(t, client.WithAdminKey(env.AdminKey)))
	if _, err := admin.AddFault(t.Context(), sandbox.FaultRequest{Method: "GET", PathPrefix: "/v1/user/me", Status: 503}); err != nil {
		t.Fatal(err)
	}
	rep, err := contract.Run(t.Context(), contract.Config{BaseURL: env.URL, AccessToken: env.Fixtures(t).Users[0].AccessToken,
		Only: []string{"wallet/get", "location/unknown", "payments/create"}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteJUnit(&buf, time.Date(2026, 11, 27, 1, 2, 3, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.Bytes())
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d testsuites, want 1", len(doc.Suites))
	}
	s := doc.Suites[0]
	if s.Name != "hospo-contract" || s.Tests != "3" || s.Failures != "1" || s.Errors != "0" || s.Skipped != "1" || doc.Tests != "3" {
		t.Errorf("suite %s: tests %s failures %s errors %s skipped %s", s.Name, s.Tests, s.Failures, s.Errors, s.Skipped)
	}
	if _, err := time.Parse("2006-01-02T15:04:05", s.Timestamp); err != nil {
		t.Errorf("timestamp %q: %v", s.Timestamp, err)
	}
	if _, err := strconv.ParseFloat(s.Time, 64); err != nil {
		t.Errorf("suite time %q: %v", s.Time, err)
	}
	if len(s.Properties) != 2 || s.Properties[1].Value != "careful" {
		t.Errorf("properties %+v", s.Properties)
	}
	verdicts := map[string]string{}
	for _, c := range s.Cases {
		if c.Name == "" || c.ClassName == "" {
			t.Errorf("case %+v lacks a name or classname", c)
		}
		if _, err := strconv.ParseFloat(c.Time, 64); err != nil {
			t.Errorf("case %s time %q: %v", c.Name, c.Time, err)
		}
		switch {
		case len(c.Failures) == 1 && len(c.Skipped) == 0:
			verdicts[c.Name] = "fail"
			f := c.Failures[0]
			if f.Message == "" || !bytes.Contains([]byte(f.Text), []byte("status: 503")) {
				t.Errorf("failure of %s: message %q, text %q", c.Name, f.Message, f.Text)
			}
		case len(c.Skipped) == 1 && len(c.Failures) == 0:
			verdicts[c.Name] = "skip:" + c.Skipped[0].Message
		case len(c.Skipped) == 0 && len(c.Failures) == 0:
			verdicts[c.Name] = "pass"
		default:
			t.Errorf("case %s has %d failures and %d skips", c.Name, len(c.Failures), len(c.Skipped))
		}
	}
	want := map[string]string{"wallet/get": "fail", "location/unknown": "pass", "payments/create": "skip:needs a sandbox (-admin-key)"}
	for name, v := range want {
		if verdicts[name] != v {
			t.Errorf("%s: %q, want %q", name, verdicts[name], v)
		}
	}

	// Round trip: what encoding/xml reads back encodes to the same document.
	var back contract.JUnit
	if err := xml.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	again, err := xml.MarshalIndent(back, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.TrimSpace(bytes.TrimPrefix(buf.Bytes(), []byte(xml.Header))); !bytes.Equal(again, want) {
		t.Errorf("round trip differs:\n%s\nwant\n%s", again, want)
	}
}
