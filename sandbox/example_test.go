package sandbox_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// exampleAdminKey is the admin key of the examples' sandbox.
const exampleAdminKey = "example-admin-key"

// runSandbox starts a sandbox in this process, on an in-memory database,
// with its HTTP and HTTPS listeners on free loopback ports, and returns its
// base URL. A program would rather use the URL of a sandbox started with
// go run ./refserver/cmd/refserver.
func runSandbox() (baseURL string, stop func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	tln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	baseURL = "http://" + ln.Addr().String()
	srv, err := refserver.New(refserver.Config{
		DBPath:   ":memory:",
		AdminKey: exampleAdminKey,
		BaseURL:  baseURL,
		TLSURL:   "https://" + tln.Addr().String(),
	})
	if err != nil {
		log.Fatal(err)
	}
	quiet := log.New(io.Discard, "", 0)
	hs := &http.Server{Handler: srv.Handler(), ErrorLog: quiet}
	ts := &http.Server{Handler: srv.Handler(), ErrorLog: quiet}
	go func() { _ = hs.Serve(ln) }()
	go func() { _ = ts.Serve(tls.NewListener(tln, srv.TLSConfig())) }()
	return baseURL, func() {
		_ = hs.Close()
		_ = ts.Close()
		_ = srv.Close()
	}
}

// A test reads the demo fixture, moves the virtual clock, makes the next
// payment fail, and puts everything back with Reset.
func Example() {
	url, stop := runSandbox()
	defer stop()
	ctx := context.Background()

	c, err := client.New(client.WithBaseURL(url), client.WithAdminKey(exampleAdminKey))
	if err != nil {
		log.Fatal(err)
	}
	sb := sandbox.NewService(c)

	f, err := sb.Fixtures(ctx)
	if err != nil {
		log.Fatal(err)
	}
	loc, _ := f.Location(wallet.ProviderD)
	fmt.Printf("%d users; %s pays through %s\n", len(f.Users), loc.Name, loc.Gateway)

	// Ten minutes on, every POS that has not sent a heartbeat since is
	// offline (409003 on a payment).
	clock, err := sb.AdvanceClock(ctx, 10*time.Minute)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("clock ahead by", clock.Offset())

	fault, err := sb.AddFault(ctx, sandbox.FaultRequest{Method: "POST", PathPrefix: "/v2/payment/", Status: 503})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("the next %d %s %s* fails with %d\n", fault.Remaining, fault.Method, fault.PathPrefix, fault.Status)

	if _, err := sb.Reset(ctx); err != nil {
		log.Fatal(err)
	}
	clock, err = sb.Clock(ctx)
	if err != nil {
		log.Fatal(err)
	}
	faults, err := sb.Faults(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("after reset: clock ahead by", clock.Offset(), "and", len(faults), "faults")
	// Output:
	// 2 users; Garden Cafe pays through providerD
	// clock ahead by 10m0s
	// the next 1 POST /v2/payment/* fails with 503
	// after reset: clock ahead by 0s and 0 faults
}

// providerD tokenisation goes to the sandbox's HTTPS listener, whose
// certificate is self-signed; ProviderTrust makes the wallet trust it.
func ExampleService_ProviderTrust() {
	url, stop := runSandbox()
	defer stop()
	ctx := context.Background()

	admin, err := client.New(client.WithBaseURL(url), client.WithAdminKey(exampleAdminKey))
	if err != nil {
		log.Fatal(err)
	}
	sb := sandbox.NewService(admin)
	trust, err := sb.ProviderTrust(ctx)
	if err != nil {
		log.Fatal(err)
	}
	user, err := sb.CreateUser(ctx)
	if err != nil {
		log.Fatal(err)
	}

	c, err := client.New(client.WithBaseURL(url), client.WithAccessToken(user.AccessToken))
	if err != nil {
		log.Fatal(err)
	}
	w := wallet.NewService(c, trust)
	card, err := w.AddCard(ctx, wallet.AddCardRequest{
		Card:      wallet.CardDetails{Number: "4111111111111111", CVC: "123", ExpiryMonth: 12, ExpiryYear: time.Now().Year() + 3},
		Providers: []wallet.Gateway{wallet.ProviderD},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("card ending", card.Last4Digits, "holds a providerD token:", card.Gateways.ProviderD)
	// Output: card ending 1111 holds a providerD token: true
}

// The request journal shows what reached the sandbox; an error's request
// id finds its entry.
func ExampleService_Requests() {
	url, stop := runSandbox()
	defer stop()
	ctx := context.Background()

	c, err := client.New(client.WithBaseURL(url), client.WithAdminKey(exampleAdminKey))
	if err != nil {
		log.Fatal(err)
	}
	sb := sandbox.NewService(c)

	_, err = wallet.NewService(c).GetLocation(ctx, 4242)
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) {
		log.Fatal(err)
	}

	j, err := sb.Requests(ctx, sandbox.JournalQuery{Status: "4xx"})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range j.Requests {
		if e.RequestID == apiErr.RequestID {
			fmt.Println(e.Method, e.Route, e.Status, int(*e.ErrorCode))
		}
	}
	// Output: GET /v1/location/{locationId} 404 404001
}
