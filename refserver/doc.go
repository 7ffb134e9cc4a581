// Package refserver is the hospo reference server: a complete, local
// implementation of the service that the SDK talks to, backed by SQLite,
// with a sandbox (demo fixture, virtual clock, injected faults, sandbox
// payment providers and a demo universal POS) for tests and development.
//
// Run it with the binary in cmd/refserver, or in-process:
//
//	srv, err := refserver.New(refserver.Config{
//		DBPath:   ":memory:",
//		AdminKey: "sandbox-admin-key",
//		BaseURL:  "http://127.0.0.1:8080",
//		TLSURL:   "https://127.0.0.1:8443",
//	})
//	if err != nil { ... }
//	defer srv.Close()
//	http.ListenAndServe("127.0.0.1:8080", srv.Handler())
//
// Tests use package refservertest, which does the above on free ports.
//
// Layout: config.go holds Config, server.go wires the pieces and routes.go
// holds the route table; package internal/api is the HTTP plumbing every
// endpoint shares (request record, credential guards, error rendering,
// decoding, reads and idempotent writes, limits), and package
// internal/codec reads bodies into values (internal/checkwire the check
// push, by hand); one file per API area holds its handlers; package rules
// holds what each endpoint decides, and every SQL statement lives in
// package store. Background work (webhook deliveries, order sends, POS checks,
// the diners, offline locations, retention) is a job of one scheduler
// (package schedule) on the virtual clock; POST /sandbox/clock waits on it.
//
// To add an endpoint: write its rule in package rules, a function on a
// *store.Tx and the SDK's types, tested there without HTTP. Its handler, in
// its area's file, decodes, calls the rule and encodes, in one of two
// shapes. A GET is an api.ReadHandler: it checks the path and query and
// returns the api.Read that runs the rule in a read transaction and
// returns the response (its requestInfo from s.api.Info), which is sent as
// JSON, or streamed when it is an api.Stream. A POST is an
// api.WriteHandler that decodes with api.Decode, checks the body and
// returns the api.Write that runs the rule in the write transaction.
// Either takes the request alone, and everything the response needs comes
// back from its Read or Write; or it returns an error, rendered by the one
// error renderer, instead.
// Register it in routes.go in the group of its credential (the group's
// guard makes the request record, read with api.RequestFrom): a GET with
// s.reads.Get, a POST with s.writes.Post so that it is idempotent. Add it
// to the OpenAPI document; TestRouteTable checks that it is guarded and
// registered the right way.
package refserver
