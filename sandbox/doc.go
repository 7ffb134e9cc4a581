// Package sandbox is a typed client for the sandbox's admin API: the
// reference server's demo fixture and the calls that shape its state for a
// test or a demo. It needs neither cgo nor the server's code, so CI jobs
// and programs that run against a sandbox in another process can use it.
//
// Every call but the CA certificate's needs the sandbox admin key, sent as
// the X-Sandbox-Admin-Key header:
//
//	c, err := client.New(client.WithBaseURL(url), client.WithAdminKey(adminKey))
//	...
//	sb := sandbox.NewService(c)
//	f, err := sb.Fixtures(ctx) // the demo users, locations and API keys
//
// # What it covers
//
//   - The demo fixture (Fixtures) and Reset, which puts it back as fresh.
//   - Credentials: CreateUser, CreateLocation and CreateAPIKey, each shown
//     once in the answer.
//   - SetCardStatus, to see what a blocked or cancelled card does.
//   - The virtual clock (Clock, AdvanceClock): heartbeats go stale and
//     providerD keys expire without waiting.
//   - Faults (AddFault, Faults, ClearFaults): the next matching requests
//     fail or wait, to test retries and idempotency.
//   - The request journal (Requests): what reached the sandbox and how it
//     was answered.
//   - The other side: a diner who pays a check (PayCheck), diners paying
//     on the virtual clock (SetDiners, Diners, StopDiners), and how the
//     demo universal POS answers a location (SetDemoPOS, DemoPOS).
//   - Trust (ProviderTrust, CertPool, CACertificate): see below.
//
// # Trusting the sandbox's certificate
//
// providerD tokenisation goes from the client straight to the provider
// over HTTPS; in the sandbox that is its HTTPS listener, whose certificate
// is self-signed. ProviderTrust is the one call that makes a wallet trust
// exactly that certificate, with verification on:
//
//	trust, err := sb.ProviderTrust(ctx)
//	...
//	w := wallet.NewService(userClient, trust)
//
// # Errors
//
// Errors are the client package's: *client.APIError for an error answer,
// matched with errors.Is (client.ErrAdminKeyInvalid for a wrong admin key,
// client.ErrValidation with FieldErrors for a bad request).
package sandbox
