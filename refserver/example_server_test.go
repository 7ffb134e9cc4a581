package refserver_test

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/refserver/sim"
)

// The server runs in-process on an in-memory database; the demo fixture is
// there from the start.
func ExampleNew() {
	srv, err := refserver.New(refserver.Config{DBPath: ":memory:", AdminKey: "example-admin-key"})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/sandbox/fixtures", nil)
	req.Header.Set("X-Sandbox-Admin-Key", "example-admin-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var f sim.Fixtures
	if err := json.NewDecoder(resp.Body).Decode(&f); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(f.Users), "users;", f.Locations[0].Name, "pays through", f.Locations[0].Gateway)
	fmt.Println(f.Users[0].AccessToken == sim.DemoUserToken("example-admin-key", 1))
	// Output:
	// 2 users; Harbour Grill pays through providerB
	// true
}
