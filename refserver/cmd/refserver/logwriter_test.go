package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hospo-dev/hospo-go/internal/syncbuf"
)

func TestLogWriterKeepsEveryLineInOrder(t *testing.T) {
	t.Parallel()
	var out syncbuf.Buffer
	lw := newLogWriter(&out)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				fmt.Fprintf(lw, "g%d %03d\n", g, i)
			}
		})
	}
	wg.Wait()
	lw.Flush()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 8*200 {
		t.Fatalf("%d lines, want %d", len(lines), 8*200)
	}
	last := map[string]string{}
	for _, l := range lines {
		g, n, _ := strings.Cut(l, " ")
		if n <= last[g] {
			t.Fatalf("line %q after %q", l, g+" "+last[g])
		}
		last[g] = n
	}
	if err := lw.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(lw, "after close")
	if !strings.HasSuffix(out.String(), "after close\n") {
		t.Error("a line written after Close is not written at once")
	}
}
