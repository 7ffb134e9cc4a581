package contract_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/hospo-dev/hospo-go/contract"
	"github.com/hospo-dev/hospo-go/refserver"
)

// A CI job checks a sandbox against some of the contract's checks and
// prints a line per check. Against a real environment, Config takes real
// credentials instead of the admin key, and the checks that would move
// money or change data are skipped.
func ExampleRun() {
	// A sandbox in this process; a CI job would rather start
	// go run ./refserver/cmd/refserver and use its URL.
	ts := httptest.NewUnstartedServer(nil)
	srv, err := refserver.New(refserver.Config{DBPath: ":memory:", AdminKey: "example-admin-key",
		BaseURL: "http://" + ts.Listener.Addr().String(), TLSURL: "https://127.0.0.1:8443"})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ts.Config.Handler = srv.Handler()
	ts.Start()
	defer ts.Close()

	rep, err := contract.Run(context.Background(), contract.Config{
		BaseURL:  ts.URL,
		AdminKey: "example-admin-key",
		Only:     []string{"wallet/get", "payments/card-not-tokenised", "bills/range-errors"},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, res := range rep.Results {
		fmt.Println(res.Verdict, res.Name)
	}
	fmt.Println("passed:", rep.Passed())
	// Output:
	// PASS wallet/get
	// PASS payments/card-not-tokenised
	// PASS bills/range-errors
	// passed: true
}
