//go:build !cgo

package outbox

// Open needs cgo. In a build without it Open is this sentence rather than
// a function, so that a program calling it fails to compile with a
// message that says what to do, instead of a driver stub failing at run
// time. A cgo-free program opens the file with a cgo-free driver and
// calls New.
const Open = "needs cgo and a C compiler, or open the file and call New"
