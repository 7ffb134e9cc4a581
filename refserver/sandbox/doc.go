// Package sandbox holds the reference server's sandbox machinery that does
// not need the server itself: the virtual clock, the demo fixture's types
// and credential derivation, the fault registry, the self-signed TLS
// certificate, the sandbox payment providers, the demo universal POS and
// the snapshots kept beside the database.
// The rules that keep sandbox state in the database (seeding the demo
// fixture, the kept clock offset, the providers' keys and tokens) are
// functions on a store transaction, so the server's handlers stay thin.
//
// Demo credentials are derived from the admin key, so a test or a developer
// who knows the key can compute them:
//
//	token := sandbox.DemoUserToken("sandbox-admin-key", 1)
package sandbox
