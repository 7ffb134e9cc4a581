//go:build !cgo

package store

// A build without cgo stops here, with this sentence as its first compile
// error, rather than only with errors deep in the driver's stub (dst.Backup
// undefined) that say nothing of what to do. Every package that opens the
// database (refserver, refservertest, the command) imports this one.
var _ int = "refserver needs cgo and a C compiler (CGO_ENABLED=1 and gcc on PATH) for its SQLite driver, github.com/mattn/go-sqlite3. Without them, run a release binary or the container image instead, from Go tests through the testcontainers module: see Install in the README."
