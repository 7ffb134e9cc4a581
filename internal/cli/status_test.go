package cli

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"testing"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err        error
		wantCode   int
		wantStderr string
	}{
		{nil, 0, ""},
		{flag.ErrHelp, 0, ""},
		{errors.New("db is locked"), 1, "cmd: db is locked\n"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		if code := Status("cmd", tt.err, &stderr); code != tt.wantCode || stderr.String() != tt.wantStderr {
			t.Errorf("Status(%v) = %d, printed %q; want %d, %q", tt.err, code, stderr.String(), tt.wantCode, tt.wantStderr)
		}
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		wantCode int
		wantOK   bool
		wantN    int
	}{
		{[]string{"-n", "3"}, 0, true, 3},
		{[]string{"-h"}, 0, false, 0},
		{[]string{"-nope"}, 2, false, 0},
		{[]string{"-n", "x"}, 2, false, 0},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		n := fs.Int("n", 0, "a number")
		code, ok := Parse(fs, tt.args)
		if code != tt.wantCode || ok != tt.wantOK || *n != tt.wantN {
			t.Errorf("Parse(%q) = %d, %v, n=%d; want %d, %v, n=%d", tt.args, code, ok, *n, tt.wantCode, tt.wantOK, tt.wantN)
		}
	}
}
