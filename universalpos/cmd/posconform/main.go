// Command posconform checks a universal POS implementation against the
// contract, the way the service will call it:
//
//	go run ./universalpos/cmd/posconform -url https://pos.example.com/universal -token TOKEN
//
// It prints one PASS or FAIL line per check (see universalpos.RunConformance) and
// exits 0 when every check passes, 1 when any fails and 2 on usage errors.
// It creates test orders at the POS, so point it at a test environment.
//
// The token may also come from the environment variable POS_TOKEN, which
// keeps it out of shell history and process listings.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/hospo-dev/hospo-go/internal/cli"
	"github.com/hospo-dev/hospo-go/universalpos"
)

func main() {
	cli.Main(func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr) })
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("posconform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	posURL := fs.String("url", "", "base URL of the POS (it serves /health, /menus and /orders under it)")
	token := fs.String("token", "", "bearer token the POS issued (default $POS_TOKEN)")
	timeout := fs.Duration("timeout", 10*time.Second, "timeout of each request")
	location := fs.String("location-id", "1", "posLocationId of the test orders")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: posconform -url URL -token TOKEN [-timeout 10s] [-location-id 1]\n")
		fs.PrintDefaults()
	}
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	if *token == "" {
		*token = getenv("POS_TOKEN")
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "posconform: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return 2
	case *posURL == "":
		fmt.Fprintln(stderr, "posconform: -url is required")
		fs.Usage()
		return 2
	case *token == "":
		fmt.Fprintln(stderr, "posconform: -token (or $POS_TOKEN) is required")
		fs.Usage()
		return 2
	case !validURL(*posURL):
		fmt.Fprintf(stderr, "posconform: -url %q is not an absolute http or https URL\n", *posURL)
		return 2
	case *timeout <= 0:
		fmt.Fprintln(stderr, "posconform: -timeout must be positive")
		return 2
	}
	report := universalpos.RunConformance(ctx, universalpos.ConformanceConfig{
		URL:        *posURL,
		Token:      *token,
		HTTPClient: &http.Client{},
		Timeout:    *timeout,
		LocationID: *location,
	})
	if err := report.Write(stdout); err != nil {
		fmt.Fprintf(stderr, "posconform: %v\n", err)
		return 1
	}
	if !report.Passed() {
		return 1
	}
	return 0
}

func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
