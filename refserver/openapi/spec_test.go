package openapi

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDocumentsLoadAndValidate(t *testing.T) {
	t.Parallel()
	for name, load := range map[string]func() error{
		"openapi.json":       func() error { _, err := Load(); return err },
		"universal-pos.json": func() error { _, err := LoadUniversalPOS(); return err },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if err := load(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestDocumentsAreOpenAPI31(t *testing.T) {
	t.Parallel()
	for name, spec := range map[string][]byte{"openapi.json": Spec(), "universal-pos.json": UniversalPOSSpec()} {
		var head struct {
			OpenAPI string `json:"openapi"`
		}
		if err := json.Unmarshal(spec, &head); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if head.OpenAPI != "3.1.0" {
			t.Errorf("%s: openapi = %q, want 3.1.0", name, head.OpenAPI)
		}
	}
}

// The universal POS contract's types (menu, order lines, fulfillment
// payloads) are written out in both documents so that each stands alone; they
// must stay the same.
func TestSharedSchemasAgree(t *testing.T) {
	t.Parallel()
	main, pos := schemas(t, Spec()), schemas(t, UniversalPOSSpec())
	shared := 0
	for name, s := range pos {
		m, ok := main[name]
		if !ok {
			continue
		}
		shared++
		if diff := cmp.Diff(s, m); diff != "" {
			t.Errorf("schema %s differs between universal-pos.json and openapi.json (-pos +main):\n%s", name, diff)
		}
	}
	if shared < 10 {
		t.Errorf("only %d schemas shared; the menu and fulfillment types should be in both documents", shared)
	}
}

func schemas(t *testing.T, spec []byte) map[string]any {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(spec, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Components.Schemas
}

func TestSpecReturnsCopies(t *testing.T) {
	t.Parallel()
	a := Spec()
	a[0] = 'x'
	if Spec()[0] == 'x' {
		t.Fatal("Spec shares its backing array")
	}
}
