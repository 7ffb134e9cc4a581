package hospoapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/genclient/internal/served"
)

// The committed client is what the pinned oapi-codegen (the tool of this
// module's go.mod) generates today from the served document with the
// default settings; generating it again changes nothing. It is compiled
// with this package, so a document that generates code which does not
// compile fails here too.
func TestGeneratedClientIsCurrent(t *testing.T) {
	dir := t.TempDir()
	spec := served.Document(t, dir)
	out := filepath.Join(dir, "hospoapi.gen.go")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "tool", "oapi-codegen", "-config", "../oapi-codegen.yaml", "-o", out, spec)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("hospoapi.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("hospoapi.gen.go is not what the served document generates; run go generate ./hospoapi in genclient")
	}
	doc, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("openapi.sha256")
	if err != nil {
		t.Fatal(err)
	}
	if h := sha256.Sum256(doc); strings.TrimSpace(string(sum)) != hex.EncodeToString(h[:]) {
		t.Fatal("openapi.sha256 is not the served document's; run go generate ./hospoapi in genclient")
	}
}

// What the document promises generators, checked on the generated code:
// money is the exact client.Money and nothing is a float32; error codes and
// event types are typed enums, not interface{}; one contextData type.
func TestGeneratedTypes(t *testing.T) {
	src, err := os.ReadFile("hospoapi.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		what string
		re   string
		want int
	}{
		{"float32 anywhere", `float32`, 0},
		{"interface{} fields", `(?m)^\s+\w+\s+interface\{\}`, 0},
		{"Money as the SDK's exact type", `(?m)^type Money = client\.Money$`, 1},
		{"a typed error code", `(?m)^\s+Code ErrorCode ` + "`", 1},
		{"error code constants", `(?m)^\s+ErrorCode\w+\s+ErrorCode = \d{6}$`, 211},
		{"contextData types", `(?m)^type \w*ContextData\b`, 1},
		{"webhook payload types", `(?m)^type (BillClosedData|LocationPresenceData|OrderStatusChangedData|PingData|POSHealthChangedData) struct`, 5},
		{"typed event types", `(?m)^type \w+EventType string$`, 8},
	} {
		if n := len(regexp.MustCompile(tt.re).FindAllIndex(src, -1)); n != tt.want {
			t.Errorf("%s: %d matches of %s, want %d", tt.what, n, tt.re, tt.want)
		}
	}
}
