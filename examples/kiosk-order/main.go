// Command kiosk-order is what a self-service kiosk does: it reads a
// location's menu, builds an order from it, chooses collection by the
// customer and waits until the location's POS has accepted the order.
//
// It runs against the sandbox, whose demo fixture supplies the user (demo
// user 1, the kiosk's account) and the location (demo location 1):
//
//	go run ./refserver/cmd/refserver &
//	go run ./examples/kiosk-order
//
// Flags: -base-url (default the sandbox at http://127.0.0.1:8080),
// -admin-key (the sandbox admin key, to read GET /sandbox/fixtures; when
// empty, $HOSPO_ADMIN_KEY, else sandbox-admin-key, the local sandbox's
// own), and -timeout (how long to wait in all).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/universalpos"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kiosk-order:", err)
		os.Exit(1)
	}
}

// defaultAdminKey is the local sandbox's well-known admin key.
const defaultAdminKey = "sandbox-admin-key"

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("kiosk-order", flag.ContinueOnError)
	baseURL := fs.String("base-url", client.SandboxURL, "base URL of the service")
	adminKey := fs.String("admin-key", "", "sandbox admin key, to read demo user 1's token from GET /sandbox/fixtures (default $HOSPO_ADMIN_KEY, else "+defaultAdminKey+")")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *adminKey == "" {
		*adminKey = os.Getenv("HOSPO_ADMIN_KEY")
	}
	if *adminKey == "" {
		*adminKey = defaultAdminKey
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	c, err := client.New(client.WithBaseURL(*baseURL), client.WithAdminKey(*adminKey))
	if err != nil {
		return err
	}
	fx, err := sandbox.NewService(c).Fixtures(ctx)
	if err != nil {
		return fmt.Errorf("read the demo fixture: %w", err)
	}
	if len(fx.Users) == 0 || len(fx.Locations) == 0 {
		return errors.New("the demo fixture has no user or no location")
	}
	loc := fx.Locations[0]
	// The kiosk's calls carry demo user 1's token.
	svc := fulfillment.NewService(c)
	asUser := client.WithAccessToken(fx.Users[0].AccessToken)

	menu, err := waitForMenu(ctx, svc, loc.LocationID)
	if err != nil {
		return err
	}
	line, name, ok := firstOrderable(menu.Menus)
	if !ok {
		return fmt.Errorf("%s has nothing available to order", loc.Name)
	}
	fmt.Fprintf(out, "ordering 1 x %s at %s\n", name, loc.Name)

	order, err := svc.CreateOrder(ctx, fulfillment.OrderRequest{LocationID: loc.LocationID, Items: []fulfillment.OrderLine{line}}, asUser)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "order %s, total %s\n", order.OrderID, order.Total)

	err = svc.Set(ctx, order.OrderID, fulfillment.CollectionByCustomer{
		CollectionTime: time.Now().Add(15 * time.Minute).Truncate(time.Minute),
		Name:           "Kiosk customer",
		Phone:          "+44 20 7946 0000",
		OrderReference: "KIOSK-" + order.OrderID[:8],
		KitchenNotes:   "",
	}, asUser)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "collection by customer set; waiting for the POS")

	done, err := svc.WaitForStatus(ctx, order.OrderID, fulfillment.Settled, 250*time.Millisecond, asUser)
	if err != nil {
		return err
	}
	if done.Status != fulfillment.StatusAcceptedByPOS {
		return fmt.Errorf("order %s: the POS did not take it (status %s)", order.OrderID, done.Status)
	}
	fmt.Fprintf(out, "accepted by the POS as %s\n", *done.POSOrderID)
	return nil
}

// waitForMenu returns the location's menu, waiting while the service has
// not synced it from the POS yet (just after the location was set up).
func waitForMenu(ctx context.Context, svc *fulfillment.Service, locationID int64) (fulfillment.LocationMenu, error) {
	for {
		m, err := svc.Menu(ctx, locationID)
		if err != nil {
			return m, err
		}
		if !m.SyncedAt.IsZero() {
			return m, nil
		}
		select {
		case <-ctx.Done():
			return m, fmt.Errorf("the menu of location %d was never synced: %w", locationID, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// firstOrderable builds a line for the first available item of the menus,
// choosing options so that every modifier group gets its minimum.
func firstOrderable(menus []universalpos.Menu) (fulfillment.OrderLine, string, bool) {
	for _, m := range menus {
		for it := range m.Items() {
			if it.Available {
				return fulfillment.OrderLine{PLU: it.PLU, Quantity: 1, Options: minimumChoice(it.Modifiers)}, it.Name, true
			}
		}
	}
	return fulfillment.OrderLine{}, "", false
}

// minimumChoice picks the first Min options of each group, and recursively
// the minimum of the groups those options bring.
func minimumChoice(groups []universalpos.ModifierGroup) []fulfillment.OrderLine {
	var out []fulfillment.OrderLine
	for _, g := range groups {
		for _, o := range g.Options[:min(g.Min, len(g.Options))] {
			out = append(out, fulfillment.OrderLine{PLU: o.PLU, Quantity: 1, Options: minimumChoice(o.Modifiers)})
		}
	}
	return out
}
