package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/console"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// The console is mounted at Prefix. Its pages need a session, which
// logging in with the admin key starts.
func Example() {
	ctx := context.Background()
	clock := sim.NewClock(time.Now)
	db, err := store.Open(ctx, store.MemoryPath, clock.Now)
	if err != nil {
		panic(err)
	}
	defer db.Close()

	r := chi.NewRouter()
	r.Mount(console.Prefix, console.New(console.Config{
		AdminKey: "sandbox-admin-key",
		API:      http.NotFoundHandler(), // the server's API, for the controls
		DB:       db,
		Clock:    clock,
		Faults:   &sim.Faults{},
	}))
	srv := httptest.NewServer(r)
	defer srv.Close()

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(srv.URL + "/console/locations")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Request.URL.Path)

	resp, err = browser.PostForm(srv.URL+"/console/login", url.Values{"adminKey": {"sandbox-admin-key"}})
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Request.URL.Path, resp.StatusCode)
	// Output:
	// /console/login
	// /console/locations 200
}
