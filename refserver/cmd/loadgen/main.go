// Command loadgen puts a running reference server under the load of many
// POS locations and paying customers, and reports throughput, latency,
// errors and the server's memory.
//
// Each simulated location is a till driving a real possync.Agent: the till
// changes one of its open checks every -push-interval and pushes it, closes
// checks and opens new ones, and saves the payments its Agent collects
// (polling every -poll-interval, heartbeating every -heartbeat-interval:
// the service's 30 s and 5 min, accelerated). Customers pay small amounts
// towards the checks the service has stored, through wallet.CreatePayment.
// Latency is measured per HTTP attempt as the client sees it, over a
// window that opens after -warmup and lasts -duration (with
// -until-answered, longer if some kind of request has not been answered in
// it yet); then everything stops by itself.
//
//	go build -o /tmp/refserver ./refserver/cmd/refserver
//	/tmp/refserver -db /tmp/load.db -rate-limit 0 -log-level error &
//	go run ./refserver/cmd/loadgen -locations 1000 -duration 30s -server-pid $!
//
// With -webhook one webhook subscribed to "*" (by an API key scoped to the
// run's locations) receives every event the load makes, at a receiver in
// loadgen that verifies each signature; the report adds its deliveries.
//
// With -hello it measures the machine's ceiling instead: a hello-world
// net/http server in a child process, driven by -concurrency workers that
// post a check-sized JSON body, over the same client stack.
//
//	go run ./refserver/cmd/loadgen -hello -concurrency 64 -duration 20s
//
// A soak samples the server through the run (-samples, -plot; see
// sampler.go) and checks that its memory, open files and goroutines stay
// flat; a reporting vendor (-bills-location) adds the closed-bills list
// and bill fetches to the load:
//
//	/tmp/refserver -db /tmp/soak.db -rate-limit 0 -log-level error -pprof 127.0.0.1:6060 &
//	go run ./refserver/cmd/loadgen -locations 400 -warmup 30s -duration 30m -server-pid $! \
//		-server-pprof 127.0.0.1:6060 -server-db /tmp/soak.db -samples soak.csv -plot soak.png
//
// Traffic goes only to -url, which must be a loopback address.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/internal/cli"
	"github.com/hospo-dev/hospo-go/internal/gcpace"
)

func main() {
	gcpace.Apply(os.Getenv)
	cli.Main(func(ctx context.Context) int {
		return cli.Status("loadgen", run(ctx, os.Args[1:], os.Stdout), os.Stderr)
	})
}

// options are the command's flags.
type options struct {
	url               string
	adminKey          string
	locations         int
	openChecks        int
	pushInterval      time.Duration
	pollInterval      time.Duration
	heartbeatInterval time.Duration
	sendConcurrency   int
	customers         int
	payInterval       time.Duration
	warmup            time.Duration
	duration          time.Duration
	serverPID         int
	maxConns          int
	setupConcurrency  int

	cpuProfile string
	timeline   bool
	webhook    bool
	// untilAnswered keeps the window open past duration until every kind
	// of request the load makes (and, with webhook, a delivery) has been
	// answered in it.
	untilAnswered bool

	sampleInterval time.Duration
	samplesFile    string
	plotFile       string
	serverPprof    string
	serverDB       string
	trendWindow    time.Duration

	billsKey      string
	billsLocation int64
	billsInterval time.Duration
	billsGets     int

	hello       bool
	helloServe  string
	concurrency int
}

// Bounds that keep a mistyped flag from running for days; a soak runs
// for half an hour or more.
const (
	maxDuration  = 2 * time.Hour
	maxLocations = 20000
)

func parseFlags(args []string, out io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.url, "url", "http://127.0.0.1:8080", "base URL of the running refserver (loopback only)")
	fs.StringVar(&o.adminKey, "admin-key", "sandbox-admin-key", "the refserver's admin key")
	fs.IntVar(&o.locations, "locations", 1000, "simulated POS locations, each with its own Agent")
	fs.IntVar(&o.openChecks, "open-checks", 4, "open checks per location")
	fs.DurationVar(&o.pushInterval, "push-interval", 200*time.Millisecond, "time between check changes at each location")
	fs.DurationVar(&o.pollInterval, "poll-interval", 2*time.Second, "Agent payments poll interval (the service asks for 30s)")
	fs.DurationVar(&o.heartbeatInterval, "heartbeat-interval", 10*time.Second, "Agent heartbeat interval (the service asks for 5m)")
	fs.IntVar(&o.sendConcurrency, "send-concurrency", 4, "Agent SendConcurrency")
	fs.IntVar(&o.customers, "customers", 20, "simulated paying customers")
	fs.DurationVar(&o.payInterval, "pay-interval", 500*time.Millisecond, "time between payments of each customer")
	fs.DurationVar(&o.warmup, "warmup", 5*time.Second, "load before the measuring window opens")
	fs.DurationVar(&o.duration, "duration", 30*time.Second, "length of the measuring window")
	fs.IntVar(&o.serverPID, "server-pid", 0, "pid of the refserver, for its peak memory (VmHWM) and CPU time")
	fs.IntVar(&o.maxConns, "max-conns", 0, "cap on connections to the server (0: none)")
	fs.IntVar(&o.setupConcurrency, "setup-concurrency", 16, "parallel requests while creating locations and customers")
	fs.BoolVar(&o.timeline, "timeline", false, "also print each second of the window: requests, p50, p99 and max latency (shows whether a tail is spread out or a few stalls)")
	fs.BoolVar(&o.untilAnswered, "until-answered", false, "keep the measuring window open past -duration (for at most a minute more) until every kind of request the load makes, and with -webhook a delivery, has been answered in it: a short run on a busy machine then still reports every line")
	fs.BoolVar(&o.webhook, "webhook", false, "subscribe one webhook to every event type (\"*\") of the run's locations, received and verified inside loadgen, and report its deliveries")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write the load generator's own CPU profile (the measuring window) to this file")
	fs.DurationVar(&o.sampleInterval, "sample-interval", 10*time.Second, "with -samples or -plot: time between samples of the server (with -webhook and -server-db alone, the pending deliveries are counted every second)")
	fs.StringVar(&o.samplesFile, "samples", "", "sample the server (RSS and open files from -server-pid, goroutines from -server-pprof, WAL and database size from -server-db, with -webhook the pending deliveries) through the run and write the samples to this CSV file")
	fs.StringVar(&o.plotFile, "plot", "", "sample the server as -samples does and draw the samples to this PNG file")
	fs.StringVar(&o.serverPprof, "server-pprof", "", "the refserver's -pprof address (host:port), for its goroutine count")
	fs.StringVar(&o.serverDB, "server-db", "", "the refserver's -db file, for the sizes of the database and its WAL, and with -webhook to count the pending deliveries exactly (the deliveries list shows at most 1,000), at the end of the window and through it")
	fs.DurationVar(&o.trendWindow, "trend-window", 20*time.Minute, "the trend check fits the samples of this last part of the run")
	fs.Int64Var(&o.billsLocation, "bills-location", 0, "add a reporting vendor that lists this location's closed bills over 31 days ending at the server's now and fetches some of them (-1: the first location of the load; 0: no vendor)")
	fs.StringVar(&o.billsKey, "bills-key", "", "the vendor's API key (empty: one is created for -bills-location with the admin key)")
	fs.DurationVar(&o.billsInterval, "bills-interval", time.Second, "time between the vendor's lists")
	fs.IntVar(&o.billsGets, "bills-gets", 3, "bills fetched (all scopes) after each list")
	fs.BoolVar(&o.hello, "hello", false, "measure a hello-world net/http server instead (the ceiling)")
	fs.StringVar(&o.helloServe, "hello-serve", "", "internal: serve hello-world on this address")
	fs.IntVar(&o.concurrency, "concurrency", 64, "-hello: concurrent request loops")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	switch {
	case o.duration <= 0 || o.duration > maxDuration:
		return o, fmt.Errorf("-duration must be in (0, %s]", maxDuration)
	case o.warmup < 0 || o.warmup > maxDuration:
		return o, fmt.Errorf("-warmup must be in [0, %s]", maxDuration)
	case o.locations < 1 || o.locations > maxLocations:
		return o, fmt.Errorf("-locations must be in [1, %d]", maxLocations)
	case o.openChecks < 1 || o.customers < 0 || o.concurrency < 1 || o.setupConcurrency < 1 || o.sendConcurrency < 1:
		return o, errors.New("-open-checks, -concurrency, -setup-concurrency and -send-concurrency must be positive, -customers not negative")
	case o.pushInterval <= 0 || o.pollInterval <= 0 || o.heartbeatInterval <= 0 || o.payInterval <= 0 ||
		o.sampleInterval <= 0 || o.billsInterval <= 0 || o.trendWindow <= 0:
		return o, errors.New("intervals must be positive")
	case o.billsLocation < -1 || o.billsGets < 0:
		return o, errors.New("-bills-location must be a location id or -1, -bills-gets not negative")
	case o.billsKey != "" && o.billsLocation == 0:
		return o, errors.New("-bills-key needs -bills-location")
	}
	if o.serverPprof != "" {
		if !strings.Contains(o.serverPprof, "://") {
			o.serverPprof = "http://" + o.serverPprof
		}
		o.serverPprof = strings.TrimSuffix(o.serverPprof, "/")
		if err := checkLoopback("-server-pprof", o.serverPprof); err != nil {
			return o, err
		}
	}
	if o.helloServe == "" {
		if err := checkLoopback("-url", o.url); err != nil {
			return o, err
		}
	}
	return o, nil
}

// checkLoopback refuses a base URL that is not on this machine: the load
// generator is for a local sandbox.
func checkLoopback(name, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("%s %q is not an http(s) URL", name, raw)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s %q: only loopback addresses are allowed", name, raw)
	}
	return nil
}

func run(ctx context.Context, args []string, out io.Writer) error {
	o, err := parseFlags(args, out)
	if err != nil {
		return err
	}
	switch {
	case o.helloServe != "":
		return serveHello(ctx, o.helloServe, out)
	case o.hello:
		return runHello(ctx, o, out)
	}
	return runLoad(ctx, o, out)
}

// newTransport is the client transport of every simulated party: one pool
// of keep-alive connections, as many as the load needs.
func newTransport(maxConns int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 0 // no overall cap
	t.MaxIdleConnsPerHost = 8192
	t.MaxConnsPerHost = maxConns
	t.IdleConnTimeout = 90 * time.Second
	return t
}

// parallel runs fn(0) ... fn(n-1) on at most workers goroutines and returns
// the first error.
func parallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				if err := fn(ctx, i); err != nil {
					cancel(err)
				}
			}
		})
	}
	for i := range n {
		select {
		case next <- i:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}
