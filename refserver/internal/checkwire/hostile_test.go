package checkwire

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

// missingCount returns how many failures the 400002 of body counts.
func missingCount(t *testing.T, body []byte) (count int, message string) {
	t.Helper()
	p, err := Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	var ae *api.Error
	if err := p.Validate(); !errors.As(err, &ae) || ae.Code != client.CodeValidation {
		t.Fatalf("Validate() = %v, want a 400002", err)
	}
	return len(ae.Fields()) + ae.Omitted(), ae.Message
}

// A megabyte of empty menu items fails millions of times. Refusing it
// must cost memory in proportion to what a 400002 keeps, not to the
// failures (it took 1.1 GB and four CPU-seconds when every failure was kept
// as a path), and the message must still count every one of them.
func TestHostilePushCostsLittle(t *testing.T) {
	head := []byte(`{"locationId":1,"checkNumber":1,"status":"open","menuItems":[`)
	none, _ := missingCount(t, append(bytes.Clone(head), "]}"...))
	one, _ := missingCount(t, append(bytes.Clone(head), "{}]}"...))
	perItem := one - none

	body := hostileBody()
	items := bytes.Count(body, []byte("{}"))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, msg := missingCount(t, body)
	runtime.ReadMemStats(&after)

	if want := none + items*perItem; got != want {
		t.Errorf("counted %d failures, want %d (%d items of %d)", got, want, items, perItem)
	}
	if want := fmt.Sprintf("Validation failed: 100 of %s problems shown.", commas(none+items*perItem)); msg != want {
		t.Errorf("message %q, want %q", msg, want)
	}
	const bound = 32 << 20
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > bound {
		t.Errorf("refusing a %d-byte body allocated %d bytes, want at most %d", len(body), alloc, bound)
	}
}

func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
