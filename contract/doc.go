// Package contract checks a running service against the hospo contract:
// the API reference and the project's decisions on what it leaves open
// (wire conventions, the error catalogue, idempotency, the push-pull
// answers, bills, ordering and fulfillment, events). It talks to the
// service only through the SDK and plain HTTP, so it can check the
// reference server, a sandbox in a container, or a real environment.
//
//	rep, err := contract.Run(ctx, contract.Config{
//		BaseURL:  "http://127.0.0.1:8080",
//		AdminKey: "sandbox-admin-key",
//	})
//	if err != nil { ... }          // a Config it cannot run with
//	rep.WriteText(os.Stdout)       // PASS/FAIL/SKIP per check, then a summary
//	if !rep.Passed() { os.Exit(1) }
//
// Command hospo-contract (cmd/hospo-contract) is the same for people and
// CI, with JSON and JUnit output.
//
// # Checks
//
// Each rule is one Check, defined once in the registry (Checks): a name
// ("payments/card-not-tokenised"), the endpoint it exercises, the rule in
// one sentence, what it needs (Needs) and a function that reports through
// a *T. A failure says which field differs and how ("requestInfo.apiVersion:
// got 0, want 1") and carries the request the check sent last and the
// answer it got, credentials removed. The project's own end-to-end tests
// run the same checks against the reference server (Config.Only) rather
// than keeping copies of the rules.
//
// # Sandbox and careful mode
//
// With Config.AdminKey the service is a sandbox. The run makes its own
// users, locations and API keys through the admin API, acts only on them
// (and orders, as its own user, at the demo fixture's first location,
// whose menu comes from the demo universal POS), and leaves every row it
// found as it was: it never resets the sandbox, moves its clock or
// injects faults.
//
// With real credentials (a user's access token, a location's POS token,
// the location's id and an API key; each optional) the run is careful.
// Which checks it runs follows from their Needs alone: a check that needs
// the sandbox, moves money (MovesMoney) or changes data it did not create
// (WritesData) is skipped with that reason, as is one whose credential was
// not given. What careful mode does run reads, sends requests the
// contract says must be refused before anything changes, and creates and
// deletes its own webhook subscriptions (pointed at an address that never
// resolves).
package contract
