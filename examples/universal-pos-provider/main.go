// Command universal-pos-provider is a minimal universal POS: the three
// endpoints of the contract (GET /health, GET /menus, POST /orders) for a
// small sandwich bar, built on universalpos.NewHandler. A POS vendor
// replaces the shop type with calls into its own system; everything else
// (the bearer token check, validation, de-duplication of resent orders)
// comes from the handler.
//
//	go run ./examples/universal-pos-provider -addr 127.0.0.1:9090 -token s3cret
//	go run ./universalpos/cmd/posconform -url http://127.0.0.1:9090 -token s3cret
//
// Register it with a sandbox location through the admin API
// (POST /sandbox/locations with "posUrl" and "posToken") and the service
// syncs its menu and sends it orders.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/universalpos"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9090", "listen address")
	token := flag.String("token", "", "bearer token the service must send (default $POS_TOKEN)")
	flag.Parse()
	if *token == "" {
		*token = os.Getenv("POS_TOKEN")
	}
	if *token == "" {
		fmt.Fprintln(os.Stderr, "universal-pos-provider: -token (or $POS_TOKEN) is required")
		os.Exit(2)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv := &http.Server{
		Addr:              *addr,
		Handler:           newHandler(*token, logger),
		ReadHeaderTimeout: 10 * time.Second,
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	logger.Info("universal POS listening", "url", "http://"+*addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("serve", "err", err)
		os.Exit(1)
	}
}

// newHandler is the whole POS as an http.Handler.
func newHandler(token string, logger *slog.Logger) http.Handler {
	return universalpos.NewHandler(newShop(logger), universalpos.HandlerOptions{
		Token:  token,
		Logger: logger,
		// One instance: the default in-memory de-duplication is enough.
		// Run several and this must be storage they share.
		Orders: universalpos.NewMemoryOrderStore(10_000),
	})
}

// shop is the business logic: a menu and an order book.
type shop struct {
	log *slog.Logger

	mu     sync.Mutex
	orders []universalpos.Order
}

func newShop(logger *slog.Logger) *shop { return &shop{log: logger} }

// Health implements universalpos.Provider.
func (s *shop) Health(context.Context) (universalpos.HealthStatus, error) {
	return universalpos.HealthStatus{Status: universalpos.HealthOK}, nil
}

// Menus implements universalpos.Provider.
func (s *shop) Menus(context.Context) ([]universalpos.Menu, error) {
	m := client.MustParseMoney
	return []universalpos.Menu{{
		Reference: "sandwich-bar", Name: "Sandwich bar", Type: universalpos.MenuTypeCollection,
		Categories: []universalpos.Category{
			{Reference: "sandwiches", Name: "Sandwiches", Items: []universalpos.Item{
				{PLU: "SW-BLT", Name: "BLT", Price: m("5.50"), Available: true, Modifiers: []universalpos.ModifierGroup{
					{Reference: "bread", Name: "Bread", Min: 1, Max: 1, Options: []universalpos.Option{
						{PLU: "BREAD-WHITE", Name: "White"},
						{PLU: "BREAD-GF", Name: "Gluten free", Price: m("0.80")},
					}},
				}},
				{PLU: "SW-CHEESE", Name: "Cheese and pickle", Price: m("4.25"), Available: true},
			}},
			{Reference: "drinks", Name: "Drinks", Items: []universalpos.Item{
				{PLU: "DR-TEA", Name: "Tea", Price: m("1.80"), Available: true},
			}},
		},
		Deals: []universalpos.Deal{{PLU: "DEAL-LUNCH", Name: "Lunch deal", Price: m("6.50"), Groups: []universalpos.DealGroup{
			{Name: "Sandwich", Min: 1, Max: 1, Items: []string{"SW-BLT", "SW-CHEESE"}},
			{Name: "Drink", Min: 1, Max: 1, Items: []string{"DR-TEA"}},
		}}},
	}}, nil
}

// CreateOrder implements universalpos.Provider. A real POS would print the
// ticket or put the order on its kitchen screen here.
func (s *shop) CreateOrder(_ context.Context, o universalpos.Order) (string, error) {
	s.mu.Lock()
	s.orders = append(s.orders, o)
	id := fmt.Sprintf("SB-%05d", len(s.orders))
	s.mu.Unlock()
	s.log.Info("order received", "posOrderId", id, "orderId", o.OrderID,
		"location", o.POSLocationID, "fulfillment", o.FulfillmentType, "total", o.Total.String())
	return id, nil
}
