// Command callsopen calls outbox.Open: the test of a build without cgo
// compiles it and expects the compiler to say what to do.
package main

import "github.com/hospo-dev/hospo-go/possync/outbox"

func main() {
	store, err := outbox.Open("outbox.db", 1)
	_, _ = store, err
}
