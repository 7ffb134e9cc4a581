// Command pos-agent is a simulated point-of-sale terminal that syncs with
// the service through a possync.Agent: it keeps a few tables' checks open,
// adds items to them, pushes every change, and applies payments that
// diners make through the service.
//
// Run the sandbox first, then the POS against the demo location:
//
//	go run ./refserver/cmd/refserver -admin-key dev-admin-key
//	go run ./examples/pos-agent -admin-key dev-admin-key
//
// The POS token is read from the sandbox's demo fixture (the sandbox
// package's Fixtures, with the admin key), so no credential needs copying. Stop it with Ctrl-C; with -outbox, checks
// not yet delivered are kept for the next run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/possync/outbox"
	"github.com/hospo-dev/hospo-go/sandbox"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pos-agent:", err)
		os.Exit(1)
	}
}

// run is main with its inputs made explicit, so that a test can run it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pos-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("base-url", client.SandboxURL, "base URL of the service (the sandbox)")
	adminKey := fs.String("admin-key", "", "sandbox admin key, to read the demo location's POS token (required)")
	locIndex := fs.Int("location", 0, "which demo location to be: index into the fixture's locations")
	outboxPath := fs.String("outbox", "", "SQLite outbox file that keeps undelivered checks across restarts (empty: memory only)")
	tables := fs.Int("tables", 3, "number of tables with an open check")
	tick := fs.Duration("tick", 2*time.Second, "how often a waiter adds an item to a check")
	cashAfter := fs.Int("cash-after", 6, "a table pays in cash once its check has this many items (0: never)")
	poll := fs.Duration("poll", possync.DefaultPollInterval, "payments poll interval")
	duration := fs.Duration("duration", 0, "stop after this long (0: run until interrupted)")
	verbose := fs.Bool("v", false, "log the agent's debug lines")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *adminKey == "" {
		return errors.New("-admin-key is required")
	}
	if *tables < 1 || *tick <= 0 {
		return errors.New("-tables must be at least 1 and -tick positive")
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	loc, token, err := demoLocation(ctx, *baseURL, *adminKey, *locIndex)
	if err != nil {
		return err
	}
	c, err := client.New(client.WithBaseURL(*baseURL), client.WithAccessToken(token))
	if err != nil {
		return err
	}
	till := &till{out: stdout, checks: map[int64]*possync.Check{}, loc: loc, cashAfter: *cashAfter}
	cfg := possync.AgentConfig{
		LocationID:   loc,
		SavePayment:  till.savePayment,
		PollInterval: *poll,
		Logger:       logger,
	}
	if *outboxPath != "" {
		// The agent owns the store from here and closes it when Run returns.
		if cfg.Store, err = outbox.Open(*outboxPath, loc); err != nil {
			return err
		}
	}
	agent, err := possync.NewAgent(possync.NewService(c), cfg)
	if err != nil {
		return err
	}
	till.agent = agent

	for i := range *tables {
		till.open(int64(i + 1))
	}
	fmt.Fprintf(stdout, "POS for location %d: %d tables open, syncing with %s\n", loc, *tables, *baseURL)

	runErr := make(chan error, 1)
	go func() { runErr <- agent.Run(ctx) }()
	t := time.NewTicker(*tick)
	defer t.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-t.C:
			till.serve()
		}
	}
	if err := <-runErr; err != nil {
		return err
	}
	st := agent.Stats()
	fmt.Fprintf(stdout, "stopped: %d checks sent, %d queued, %d payments accepted\n", st.Sent, st.Queued, st.PaymentsAccepted)
	return nil
}

// demoLocation reads the POS token of a demo location from the sandbox's
// demo fixture.
func demoLocation(ctx context.Context, baseURL, adminKey string, index int) (int64, string, error) {
	admin, err := client.New(client.WithBaseURL(baseURL), client.WithAdminKey(adminKey))
	if err != nil {
		return 0, "", err
	}
	fx, err := sandbox.NewService(admin).Fixtures(ctx)
	if err != nil {
		return 0, "", fmt.Errorf("reading the sandbox fixtures: %w", err)
	}
	if index < 0 || index >= len(fx.Locations) {
		return 0, "", fmt.Errorf("-location %d: the sandbox has %d demo locations", index, len(fx.Locations))
	}
	l := fx.Locations[index]
	return l.LocationID, l.POSAccessToken, nil
}

// menu is what the waiters sell.
var menu = []possync.MenuItem{
	{ID: 101, Name: "Soup of the day", Price: client.MustParseMoney("5.50"), Category: possync.Category{Name: "Starters", Category: &possync.Category{Name: "Food"}}},
	{ID: 201, Name: "Fish and chips", Price: client.MustParseMoney("14.95"), Category: possync.Category{Name: "Mains", Category: &possync.Category{Name: "Food"}}},
	{ID: 202, Name: "Risotto", Price: client.MustParseMoney("12.40"), Category: possync.Category{Name: "Mains", Category: &possync.Category{Name: "Food"}}},
	{ID: 301, Name: "Pale ale", Price: client.MustParseMoney("4.80"), Category: possync.Category{Name: "Beer", Category: &possync.Category{Name: "Drinks"}},
		Modifiers: []possync.Modifier{{ID: 901, Name: "Pint", Price: client.MustParseMoney("1.20")}}},
}

// till is the simulated POS: one open check per table.
type till struct {
	mu        sync.Mutex
	out       io.Writer
	loc       int64
	agent     *possync.Agent
	checks    map[int64]*possync.Check // by table number
	nextCheck int64
	cashAfter int
}

// open starts a new check at a table and pushes it. The caller holds no lock.
func (t *till) open(table int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.openLocked(table)
}

func (t *till) openLocked(table int64) {
	t.nextCheck++
	c := &possync.Check{
		TableNumber: int(table), CheckNumber: 1000 + t.nextCheck, LocationID: t.loc,
		StaffID: "waiter-1", Guests: 2, Status: possync.CheckOpen,
	}
	t.checks[table] = c
	t.push(c)
}

// serve adds a random item to a random table's check; now and then a
// table pays in cash and a new check starts there.
func (t *till) serve() {
	t.mu.Lock()
	defer t.mu.Unlock()
	table := int64(rand.IntN(len(t.checks))) + 1
	c := t.checks[table]
	if t.cashAfter > 0 && len(c.MenuItems) >= t.cashAfter {
		c.TipsPaid = c.TipsPaid.Add(client.MustParseMoney("1.00"))
		c.OutstandingAmount = client.Money{}
		c.Status = possync.CheckClosed
		t.push(c)
		fmt.Fprintf(t.out, "table %d paid check %d in cash\n", table, c.CheckNumber)
		t.openLocked(table)
		return
	}
	item := menu[rand.IntN(len(menu))]
	item.Quantity = 1
	item.PriceSold = item.Price
	c.MenuItems = append(c.MenuItems, item)
	line := item.Price
	for _, m := range item.Modifiers {
		line = line.Add(m.Price)
	}
	c.TotalAmount = c.TotalAmount.Add(line)
	c.OutstandingAmount = c.OutstandingAmount.Add(line)
	t.push(c)
}

// push hands the check to the agent, which never blocks.
func (t *till) push(c *possync.Check) {
	if err := t.agent.Push(c); err != nil {
		fmt.Fprintf(t.out, "check %d not queued: %v\n", c.CheckNumber, err)
	}
}

// savePayment is the agent's SavePayment: it books a payment made through
// the service on its check and pushes the check's new state.
func (t *till) savePayment(_ context.Context, checkNumber int64, p possync.PaymentNotification) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for table, c := range t.checks {
		if c.CheckNumber != checkNumber {
			continue
		}
		c.OutstandingAmount = c.OutstandingAmount.Sub(p.PaymentExTip)
		c.TipsPaid = c.TipsPaid.Add(p.Tip)
		fmt.Fprintf(t.out, "payment %d of %s (tip %s) saved on check %d\n", p.PaymentID, p.PaymentExTip, p.Tip, checkNumber)
		if c.OutstandingAmount.IsZero() {
			c.Status = possync.CheckClosed
			t.push(c)
			t.openLocked(table)
			return nil
		}
		t.push(c)
		return nil
	}
	return fmt.Errorf("check %d is not open on this POS", checkNumber)
}
