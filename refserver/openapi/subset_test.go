package openapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// The documents are 3.1 for every reader and stay inside what kin-openapi
// v0.133 handles: no 3.0-only nullable, and no members beside a $ref (3.1
// allows them, kin-openapi drops them silently). Schema keywords that
// kin-openapi does not know already fail Validate.
func TestDocumentsStayInTheSharedSubset(t *testing.T) {
	t.Parallel()
	for name, spec := range map[string][]byte{"openapi.json": Spec(), "universal-pos.json": UniversalPOSSpec()} {
		var doc any
		if err := json.Unmarshal(spec, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		walkJSON(doc, "#", func(path string, m map[string]any) {
			if _, ok := m["$ref"]; ok && len(m) > 1 {
				t.Errorf("%s %s: members beside $ref", name, path)
			}
			if _, ok := m["nullable"]; ok && !strings.Contains(path, "/properties/nullable") {
				t.Errorf("%s %s: nullable is OpenAPI 3.0; use a type array or oneOf with {\"type\": \"null\"}", name, path)
			}
		})
	}
}

// Money is not described with a fractional multipleOf (0.01): validators
// that compute in binary floating point refuse valid amounts with it
// (19.99 and 0.07 are not whole multiples of 0.01 in float64). Money says
// x-decimal-places instead, which every money schema carries.
func TestMoneyNeedsNoFloatingPointMultipleOf(t *testing.T) {
	t.Parallel()
	for name, spec := range map[string][]byte{"openapi.json": Spec(), "universal-pos.json": UniversalPOSSpec()} {
		var doc any
		if err := json.Unmarshal(spec, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		money := 0
		walkJSON(doc, "#", func(path string, m map[string]any) {
			if v, ok := m["multipleOf"].(float64); ok && v != float64(int64(v)) {
				t.Errorf("%s %s: multipleOf %v; say x-decimal-places", name, path, v)
			}
			if _, ok := m[decimalPlacesKey]; ok {
				money++
			}
		})
		if money == 0 {
			t.Errorf("%s: no schema has %s", name, decimalPlacesKey)
		}
	}
}

func walkJSON(v any, path string, visit func(string, map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		visit(path, x)
		for k, c := range x {
			walkJSON(c, path+"/"+k, visit)
		}
	case []any:
		for i, c := range x {
			walkJSON(c, path+"/"+itoa(i), visit)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
