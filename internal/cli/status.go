package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Status is the exit status of a command whose run returned err: 0 when
// err is nil or flag.ErrHelp (the usage was asked for, and printed), else
// 1, after printing err after the command's name to stderr.
func Status(name string, err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return 1
}

// Parse parses args with fs, which must be flag.ContinueOnError. ok is
// false when the command stops there, with status code: 0 after -h (fs
// has printed the usage), 2 for a flag it does not take or a bad value
// (fs has printed the error and the usage).
func Parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		return 0, false
	}
	return 2, false
}
