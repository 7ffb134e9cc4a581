// Package e2e holds the end-to-end tests that prove the SDK and the
// reference server together under faults, bad input and crashes. It has no
// code of its own: everything is in its _test.go files.
//
//   - faults_test.go: the sandbox fault injection (POST /sandbox/faults)
//     driven through the SDK: 503s before success on every retried call,
//     responses lost after the work was committed, latency beyond the
//     client's timeout. Each effect must happen exactly once.
//   - badinput_test.go: every endpoint with missing, wrong and foreign
//     credentials, malformed and mistyped JSON, oversized bodies and
//     unknown ids. Every answer must be an error of the catalogue, and the
//     database must be unchanged.
//   - errors_test.go: what each error says through the SDK (err.Error()):
//     the route of a wrong base URL path, every failing field of a 400002,
//     the last heartbeat of a 409003, the gateway of a 404006, the kind of
//     a 404001, and a 405001 with its Allow header.
//   - telemetry_test.go: a trace started by an SDK call continues in the
//     server (client and server spans named by the same route template,
//     write transactions under them), and no credential or card number is
//     in any span.
//   - crash_test.go: the refserver binary, built once, killed with SIGKILL
//     under a steady mixed load and restarted on the same database; every
//     request that got a 2xx must still be there, and the database must
//     pass PRAGMA integrity_check.
//
// Run them with
//
//	go test ./e2e/
//
// (-short skips the crash test, which builds the server binary).
package e2e
