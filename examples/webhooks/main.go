// Command webhooks receives the service's events on a webhook: it
// subscribes a local receiver with a vendor API key, makes a payment
// happen at a demo location, and prints each event the receiver gets
// until it has seen the payment made (payment.created), accepted by the
// POS (payment.accepted) and the check closed (bill.closed).
//
// Usage:
//
//	go run ./refserver/cmd/refserver &
//	go run ./examples/webhooks [-base-url http://127.0.0.1:8080] [-admin-key sandbox-admin-key]
//
// Flags:
//
//	-base-url   the reference server's base URL (default the local sandbox)
//	-admin-key  the sandbox admin key; when empty, $HOSPO_ADMIN_KEY is used
//	            (default sandbox-admin-key, the local sandbox's own)
//	-api-key    the vendor API key that subscribes; when empty, $HOSPO_API_KEY,
//	            else the demo fixture's key for the location
//	-listen     the receiver's address (default 127.0.0.1:0, a free port);
//	            the service must be able to reach it
//	-timeout    how long to wait for the events (default 30s)
//
// The receiver is events.NewHandler: it checks every delivery's
// Hospo-Signature with the webhook's secret, which the service shows only
// in the answer to CreateWebhook, and refuses what does not verify.
// Deliveries come at least once and in no set order, so the program
// deduplicates by event id. It deletes its webhook before it exits.
//
// The program plays the other parties too, so that there is something to
// tell: the location's POS (heartbeat, a check pushed open, the payment
// accepted, the check pushed closed) and a diner, whom the sandbox plays
// (sandbox.Service.PayCheck).
//
// Each event is printed on one line: type, id and a summary of its data.
// The exit status is 2 for bad flags and 1 when a step fails or the events
// do not all arrive in time.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/sandbox"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var ue usageError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "webhooks:", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "webhooks:", err)
		os.Exit(1)
	}
}

// usageError marks a problem with the flags.
type usageError struct{ error }

// defaultAdminKey is the local sandbox's well-known admin key.
const defaultAdminKey = "sandbox-admin-key"

type config struct {
	baseURL, adminKey, apiKey, listen string
	timeout                           time.Duration
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("webhooks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.baseURL, "base-url", client.SandboxURL, "the reference server's base URL")
	fs.StringVar(&c.adminKey, "admin-key", "", "sandbox admin key (default $HOSPO_ADMIN_KEY, else "+defaultAdminKey+")")
	fs.StringVar(&c.apiKey, "api-key", "", "vendor API key (default $HOSPO_API_KEY, else the demo fixture's)")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:0", "the receiver's address")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "how long to wait for the events")
	if err := fs.Parse(args); err != nil {
		return c, usageError{err}
	}
	if fs.NArg() > 0 {
		return c, usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	if c.timeout <= 0 {
		return c, usageError{errors.New("-timeout must be more than zero")}
	}
	if c.adminKey == "" {
		c.adminKey = os.Getenv("HOSPO_ADMIN_KEY")
	}
	if c.adminKey == "" {
		c.adminKey = defaultAdminKey
	}
	if c.apiKey == "" {
		c.apiKey = os.Getenv("HOSPO_API_KEY")
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()

	// The demo fixture: a location, its POS token and a vendor API key
	// whose scope holds it.
	admin, err := client.New(client.WithBaseURL(cfg.baseURL), client.WithAdminKey(cfg.adminKey))
	if err != nil {
		return usageError{err}
	}
	sb := sandbox.NewService(admin)
	fx, err := sb.Fixtures(ctx)
	if err != nil {
		return fmt.Errorf("reading the demo fixture: %w", err)
	}
	if len(fx.Locations) == 0 {
		return errors.New("the demo fixture has no location")
	}
	loc := fx.Locations[0]
	apiKey := cfg.apiKey
	for _, k := range fx.APIKeys {
		if apiKey == "" && slices.Contains(k.LocationIDs, loc.LocationID) {
			apiKey = k.APIKey
		}
	}
	if apiKey == "" {
		return fmt.Errorf("no API key for location %d: pass -api-key", loc.LocationID)
	}

	// The receiver listens first, so that the webhook can name its URL;
	// deliveries that come before it serves wait in the listen queue.
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return usageError{fmt.Errorf("-listen: %w", err)}
	}
	defer ln.Close()
	vendor, err := client.New(client.WithBaseURL(cfg.baseURL), client.WithAPIKey(apiKey))
	if err != nil {
		return err
	}
	svc := events.NewService(vendor)
	created, err := svc.CreateWebhook(ctx, events.CreateWebhookRequest{
		URL:         "http://" + ln.Addr().String() + "/hooks/hospo",
		Events:      []events.Type{events.TypePaymentCreated, events.TypePaymentAccepted, events.TypeBillClosed},
		Description: "examples/webhooks",
	})
	if err != nil {
		return fmt.Errorf("subscribing: %w", err)
	}
	id := created.Webhook.WebhookID
	fmt.Fprintf(stdout, "subscribed webhook %s at %s\n", id, created.Webhook.URL)
	defer func() {
		// The run's context may be over: the clean-up gets its own.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := svc.DeleteWebhook(ctx, id); err != nil {
			fmt.Fprintln(stderr, "webhooks: deleting the webhook:", err)
		}
	}()

	got := make(chan events.Event, 16)
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
	)
	mux := http.NewServeMux()
	mux.Handle("POST /hooks/hospo", events.NewHandler([]string{created.Secret}, func(ctx context.Context, ev events.Event) error {
		mu.Lock()
		dup := seen[ev.ID]
		seen[ev.ID] = true
		mu.Unlock()
		if dup {
			return nil // a redelivery: handled already
		}
		select {
		case got <- ev:
			return nil
		case <-ctx.Done():
			mu.Lock()
			delete(seen, ev.ID) // not handled: the service tries again
			mu.Unlock()
			return ctx.Err()
		}
	}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	paymentID, check, err := makePayment(ctx, cfg.baseURL, sb, loc)
	if err != nil {
		return err
	}

	// Print every event; stop once this run's three have come.
	want := map[events.Type]bool{events.TypePaymentCreated: true, events.TypePaymentAccepted: true, events.TypeBillClosed: true}
	for len(want) > 0 {
		select {
		case ev := <-got:
			line, mine := describe(ev, paymentID, check)
			fmt.Fprintf(stdout, "%s %s %s\n", ev.Type, ev.ID, line)
			if mine {
				delete(want, ev.Type)
			}
		case <-ctx.Done():
			missing := make([]string, 0, len(want))
			for t := range want {
				missing = append(missing, string(t))
			}
			slices.Sort(missing)
			return fmt.Errorf("still waiting for %v: %w", missing, ctx.Err())
		}
	}
	return nil
}

// makePayment plays the location's POS and a diner: a heartbeat, a check
// pushed open, a diner paying all of it, the POS accepting the payment and
// pushing the check closed. It returns the payment's id and the check
// number.
func makePayment(ctx context.Context, baseURL string, sb *sandbox.Service, loc sandbox.Location) (int64, int64, error) {
	pc, err := client.New(client.WithBaseURL(baseURL), client.WithAccessToken(loc.POSAccessToken))
	if err != nil {
		return 0, 0, err
	}
	till := possync.NewService(pc)
	if _, err := till.Heartbeat(ctx, loc.LocationID); err != nil {
		return 0, 0, fmt.Errorf("heartbeat: %w", err)
	}
	total := client.MustParseMoney("24.50")
	check := &possync.Check{
		CheckNumber: time.Now().UnixNano() / 1000 % 1_000_000_000, LocationID: loc.LocationID, TableNumber: 4, Guests: 2,
		Status: possync.CheckOpen, TotalAmount: total, OutstandingAmount: total,
		MenuItems: []possync.MenuItem{{ID: 1, Name: "Fish and chips", Quantity: 1, Price: total,
			PriceSold: total, Category: possync.Category{Name: "Mains"}}},
	}
	if _, err := till.PushCheck(ctx, check); err != nil {
		return 0, 0, fmt.Errorf("pushing the check: %w", err)
	}
	p, err := sb.PayCheck(ctx, loc.LocationID, check.CheckNumber, sandbox.PayCheckRequest{})
	if err != nil {
		return 0, 0, fmt.Errorf("paying the check: %w", err)
	}
	if _, err := till.AcceptPayment(ctx, p.PaymentID); err != nil {
		return 0, 0, fmt.Errorf("accepting the payment: %w", err)
	}
	check.Status, check.OutstandingAmount = possync.CheckClosed, client.MustParseMoney("0")
	if _, err := till.PushCheck(ctx, check); err != nil {
		return 0, 0, fmt.Errorf("closing the check: %w", err)
	}
	return p.PaymentID, check.CheckNumber, nil
}

// describe summarises an event's data on one line, and says whether it is
// about this run's payment or check.
func describe(ev events.Event, paymentID, check int64) (string, bool) {
	v, err := ev.Decode()
	if err != nil {
		return "(" + err.Error() + ")", false
	}
	switch d := v.(type) {
	case events.BillClosed:
		return fmt.Sprintf("bill %s: check %d at location %d closed, total %s", d.BillID, d.CheckNumber, d.LocationID, d.TotalAmount),
			d.CheckNumber == check
	default:
		if p, err := ev.Payment(); err == nil {
			return fmt.Sprintf("payment %d: %s + tip %s on check %d at location %d, %s", p.PaymentID, p.Amount, p.Tip, p.CheckNumber, p.LocationID, p.Status),
				p.PaymentID == paymentID
		}
	}
	return string(ev.Data), false
}
