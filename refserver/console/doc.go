// Package console is the sandbox console: server-rendered pages for
// watching and steering the sandbox (locations, checks, payments, orders,
// wallets, the request journal, events and webhook deliveries, the clock, faults, reset), behind the
// admin key. Its templates and static files sit beside it and are embedded
// in the binary.
//
// The console is served in front of the API's middleware chain, not
// inside it: its pages are not API requests (no JSON error bodies, no
// OpenAPI validation, no rate limit, no injected faults), and its own
// polling must not flood the access log or push the API's requests out of
// the journal. Its controls go through the API itself (Config.API), so
// they are the admin API's logic and show up in the journal like any
// admin request.
//
// The server builds a Handler with New and mounts it at Prefix:
//
//	r := chi.NewRouter()
//	r.Mount(console.Prefix, console.New(console.Config{AdminKey: key, API: api, DB: db, Clock: clock, Faults: faults}))
package console
