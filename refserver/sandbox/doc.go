// Package sandbox holds the reference server's sandbox machinery that does
// not need the server itself: the virtual clock, the demo fixture's types
// and credential derivation, the fault registry, the self-signed TLS
// certificate, the sandbox payment providers and the demo universal POS.
//
// Demo credentials are derived from the admin key, so a test or a developer
// who knows the key can compute them:
//
//	token := sandbox.DemoUserToken("sandbox-admin-key", 1)
package sandbox
