// Package cli holds what the project's commands share around the function
// that does their work: a context that an interrupt or SIGTERM cancels,
// the exit status, and one convention for flags (0 after -h, which prints
// the usage; 2 for a usage error; 1 for a failure), so that every command
// stops and exits the same way and its run function stays testable
// without a process.
package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Main is a command's main: it runs run with a context that an interrupt
// or SIGTERM cancels, and exits with the status run returns.
func Main(run func(ctx context.Context) int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx)
	stop()
	os.Exit(code)
}
