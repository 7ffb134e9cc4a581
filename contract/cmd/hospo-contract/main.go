// Command hospo-contract checks a running service against the hospo
// contract, through the SDK:
//
//	hospo-contract -base-url URL -admin-key K [-junit FILE] [-json]
//	hospo-contract -base-url URL [-access-token T] [-pos-token P -location L] [-api-key A] [-junit FILE] [-json]
//
// With -admin-key the service is a sandbox: the run makes its own users,
// locations and API keys through the admin API and leaves everything else
// as it found it. With real credentials it runs in careful mode: it never
// moves money and never changes data it did not create, and it lists the
// checks it skipped and why.
//
// It prints one line per check (PASS, FAIL or SKIP), under each failure the
// field that differs and the request that showed it, and a summary; -json
// prints the report as JSON instead; -junit FILE also writes it as JUnit
// XML. It exits 0 when no check failed, 1 when one did and 2 on usage
// errors.
//
// Credentials may also come from the environment (HOSPO_ADMIN_KEY,
// HOSPO_ACCESS_TOKEN, HOSPO_POS_TOKEN, HOSPO_API_KEY), which keeps them out
// of shell history and process listings.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/contract"
	"github.com/hospo-dev/hospo-go/internal/cli"
)

func main() {
	cli.Main(func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr) })
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hospo-contract", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg contract.Config
	fs.StringVar(&cfg.BaseURL, "base-url", "", "base URL of the service")
	fs.StringVar(&cfg.AdminKey, "admin-key", "", "sandbox admin key (default $HOSPO_ADMIN_KEY): run against a sandbox")
	fs.StringVar(&cfg.AccessToken, "access-token", "", "a user's access token (default $HOSPO_ACCESS_TOKEN)")
	fs.StringVar(&cfg.POSToken, "pos-token", "", "the POS access token of -location (default $HOSPO_POS_TOKEN)")
	fs.Int64Var(&cfg.LocationID, "location", 0, "a location's id")
	fs.StringVar(&cfg.APIKey, "api-key", "", "a vendor API key scoped to -location (default $HOSPO_API_KEY)")
	fs.DurationVar(&cfg.Timeout, "timeout", 30*time.Second, "timeout of each request")
	junit := fs.String("junit", "", "also write the report as JUnit XML to this file")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	only := fs.String("only", "", "run only these checks (comma-separated names)")
	list := fs.Bool("list", false, "list the checks and what each needs, and exit")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: hospo-contract -base-url URL [-admin-key K | -access-token T -pos-token P -location L -api-key A] [-junit FILE] [-json]")
		fs.PrintDefaults()
	}
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	if *list {
		for _, c := range contract.Checks() {
			fmt.Fprintf(stdout, "%-45s %-20s %s\n", c.Name, c.Needs, c.Rule)
		}
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hospo-contract: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return 2
	}
	for _, env := range []struct {
		v    *string
		name string
	}{{&cfg.AdminKey, "HOSPO_ADMIN_KEY"}, {&cfg.AccessToken, "HOSPO_ACCESS_TOKEN"}, {&cfg.POSToken, "HOSPO_POS_TOKEN"}, {&cfg.APIKey, "HOSPO_API_KEY"}} {
		if *env.v == "" {
			*env.v = getenv(env.name)
		}
	}
	if *only != "" {
		cfg.Only = strings.Split(*only, ",")
	}
	if cfg.BaseURL == "" {
		fmt.Fprintln(stderr, "hospo-contract: -base-url is required")
		fs.Usage()
		return 2
	}
	rep, err := contract.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "hospo-contract: %v\n", err)
		return 2
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err == nil && *junit != "" {
		err = writeJUnit(*junit, rep)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hospo-contract: %v\n", err)
		return 1
	}
	if !rep.Passed() {
		return 1
	}
	return 0
}

func writeJUnit(path string, rep *contract.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := rep.WriteJUnit(f, time.Now()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
