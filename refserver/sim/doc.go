// Package sim holds what the reference server's sandbox simulates, and
// the rest of its machinery that does not need the server itself: the virtual clock, the demo fixture's types
// and credential derivation, the fault registry, the self-signed TLS
// certificate, the sandbox payment providers, the demo universal POS and
// the snapshots kept beside the database.
// The rules that keep sandbox state in the database (seeding the demo
// fixture, the kept clock offset, the providers' keys and tokens) are
// functions on a store transaction, so the server's handlers stay thin.
// Where the wire format is the sandbox client's (package
// github.com/hospo-dev/hospo-go/sandbox: fixtures, faults, snapshots, demo
// POS modes), this package uses that package's types.
//
// Demo credentials are derived from the admin key, so a test or a developer
// who knows the key can compute them:
//
//	token := sim.DemoUserToken("sandbox-admin-key", 1)
package sim
