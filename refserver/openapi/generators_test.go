package openapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
)

// The rules that keep the served document good for client generators (the
// genclient module proves them with oapi-codegen and openapi-typescript);
// these catch a slip without those tools.

// ErrorCode is the catalogue and the codes of injected faults
// (status*1000+1 for 400 to 599), each named: the catalogue's codes by
// their client.Code constant, the others Fault<status>.
func TestErrorCodeEnumIsTheCatalogueAndTheFaults(t *testing.T) {
	t.Parallel()
	var doc struct {
		Components struct {
			Schemas struct {
				ErrorCode struct {
					Type     string   `json:"type"`
					Enum     []int    `json:"enum"`
					VarNames []string `json:"x-enum-varnames"`
				} `json:"ErrorCode"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(Spec(), &doc); err != nil {
		t.Fatal(err)
	}
	ec := doc.Components.Schemas.ErrorCode
	if ec.Type != "integer" || len(ec.Enum) != len(ec.VarNames) {
		t.Fatalf("ErrorCode: type %q, %d codes, %d names", ec.Type, len(ec.Enum), len(ec.VarNames))
	}
	want := map[int]string{}
	for s := 400; s <= 599; s++ {
		want[s*1000+1] = "Fault" + strconv.Itoa(s)
	}
	for _, c := range client.Codes() {
		name, ok := catalogueNames[c]
		if !ok {
			t.Fatalf("code %d of the catalogue has no name here; add it to catalogueNames", c)
		}
		want[int(c)] = name
	}
	got := map[int]string{}
	for i, c := range ec.Enum {
		got[c] = ec.VarNames[i]
	}
	for c, name := range want {
		if got[c] != name {
			t.Errorf("ErrorCode %d: name %q, want %q", c, got[c], name)
		}
	}
	for c := range got {
		if _, ok := want[c]; !ok {
			t.Errorf("ErrorCode %d is neither in the catalogue nor a fault's", c)
		}
	}
	if !slices.IsSorted(ec.Enum) {
		t.Error("ErrorCode's codes are not in ascending order")
	}
}

// catalogueNames are the catalogue's constants without "Code", which the
// document's x-enum-varnames use so that generated constants read like the
// SDK's (ErrorCodeCardNotTokenised, client.CodeCardNotTokenised).
var catalogueNames = map[client.Code]string{
	client.CodeMalformedJSON: "MalformedJSON", client.CodeValidation: "Validation",
	client.CodeInvalidQuery: "InvalidQuery", client.CodeAccessTokenMissing: "AccessTokenMissing",
	client.CodeAccessTokenInvalid: "AccessTokenInvalid", client.CodeAPIKeyMissing: "APIKeyMissing",
	client.CodeAPIKeyInvalid: "APIKeyInvalid", client.CodeAdminKeyInvalid: "AdminKeyInvalid",
	client.CodePaymentDeclined: "PaymentDeclined", client.CodeForbidden: "Forbidden",
	client.CodeNotFound: "NotFound", client.CodeCardNotTokenised: "CardNotTokenised",
	client.CodeMethodNotAllowed: "MethodNotAllowed", client.CodeFulfillmentAlreadySet: "FulfillmentAlreadySet",
	client.CodeAmountExceedsOutstanding: "AmountExceedsOutstanding", client.CodeLocationOffline: "LocationOffline",
	client.CodeIdempotencyKeyReused: "IdempotencyKeyReused", client.CodeCardNotUsable: "CardNotUsable",
	client.CodeBodyTooLarge: "BodyTooLarge", client.CodeUnsupportedMediaType: "UnsupportedMediaType",
	client.CodeTooManyRequests: "TooManyRequests", client.CodeInternal: "Internal",
}

// Every error response refers to the one Error schema and lists its codes
// in x-error-codes, each of the response's own status.
func TestErrorResponsesShareOneSchema(t *testing.T) {
	t.Parallel()
	var doc struct {
		Components struct {
			Responses map[string]struct {
				Codes   []int `json:"x-error-codes"`
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"components"`
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(Spec(), &doc); err != nil {
		t.Fatal(err)
	}
	for name, r := range doc.Components.Responses {
		if s := r.Content["application/json"].Schema; s["$ref"] != "#/components/schemas/Error" || len(s) != 1 {
			t.Errorf("response %s: schema %v, want only the Error schema", name, s)
		}
		if name == "ServerError" {
			continue // 500001 and any injected 5xx fault
		}
		if len(r.Codes) == 0 {
			t.Errorf("response %s lists no x-error-codes", name)
		}
		for _, c := range r.Codes {
			if !client.Code(c).Known() {
				t.Errorf("response %s: code %d is not in the catalogue", name, c)
			}
		}
	}
	// Where a path names a response component, the status matches its codes.
	for path, item := range doc.Paths {
		for method, raw := range item {
			var op struct {
				Responses map[string]struct {
					Ref string `json:"$ref"`
				} `json:"responses"`
			}
			if json.Unmarshal(raw, &op) != nil {
				continue
			}
			for status, r := range op.Responses {
				name, ok := strings.CutPrefix(r.Ref, "#/components/responses/")
				if !ok {
					continue
				}
				for _, c := range doc.Components.Responses[name].Codes {
					if strconv.Itoa(c/1000) != status {
						t.Errorf("%s %s: %s answers %s, whose code %d is of another status", method, path, status, name, c)
					}
				}
			}
		}
	}
}

// Money is one schema: every amount refers to it (a narrower range sits
// beside an allOf of it), nothing else carries x-decimal-places, and no
// number is left without a format (oapi-codegen makes those float32).
func TestMoneyIsOneSchema(t *testing.T) {
	t.Parallel()
	for name, spec := range map[string][]byte{"openapi.json": Spec(), "universal-pos.json": UniversalPOSSpec()} {
		var doc any
		if err := json.Unmarshal(spec, &doc); err != nil {
			t.Fatal(err)
		}
		walkJSON(doc, "#", func(path string, m map[string]any) {
			if _, ok := m[decimalPlacesKey]; ok && path != "#/components/schemas/Money" {
				t.Errorf("%s %s: x-decimal-places outside Money; refer to Money", name, path)
			}
			if m["type"] == "number" && m["format"] != "double" {
				t.Errorf("%s %s: a number without format double", name, path)
			}
		})
		money := walkGet(doc, "components", "schemas", "Money")
		if money["x-go-type"] != "client.Money" || money["format"] != "double" {
			t.Errorf("%s: Money is %v", name, money)
		}
	}
}

func walkGet(v any, keys ...string) map[string]any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	m, _ := v.(map[string]any)
	return m
}

// Names that generators derive must not meet a schema's name: oapi-codegen
// names an operation's types <OperationId>Response, <OperationId>Params
// and <OperationId>JSONRequestBody, and an inline enum of schema X's member
// m X<M>; a schema of the same name fails its generation (a schema
// HeartbeatResponse once met the heartbeat operation's HeartbeatResponse).
func TestGeneratedNamesDoNotClash(t *testing.T) {
	t.Parallel()
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(Spec(), &doc); err != nil {
		t.Fatal(err)
	}
	upper := func(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
	derived := map[string]string{} // derived name -> what it is derived from
	for path, item := range doc.Paths {
		for method, raw := range item {
			var op struct {
				OperationID string `json:"operationId"`
			}
			if json.Unmarshal(raw, &op) != nil || op.OperationID == "" {
				continue
			}
			for _, suffix := range []string{"Response", "Params", "JSONRequestBody", "JSONBody", "RequestBody"} {
				derived[upper(op.OperationID)+suffix] = method + " " + path
			}
		}
	}
	for name, s := range doc.Components.Schemas {
		for member, ps := range s.Properties {
			if _, inline := ps["enum"]; inline {
				derived[name+upper(member)] = "the inline enum " + name + "." + member
			}
		}
	}
	for name := range doc.Components.Schemas {
		if from, ok := derived[name]; ok {
			t.Errorf("schema %s has the name generators give %s; rename one of them", name, from)
		}
	}
}

// The genclient module (its own go.mod, which this module's tests cannot
// build) holds a Go client generated from this document and records the
// document's SHA-256 beside it. A change to the document without
// regenerating fails here, in the tests run with the change, rather than
// only in genclient's.
func TestGenclientIsGeneratedFromThisDocument(t *testing.T) {
	t.Parallel()
	sum, err := os.ReadFile(filepath.Join("..", "..", "genclient", "hospoapi", "openapi.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	if h := sha256.Sum256(Spec()); strings.TrimSpace(string(sum)) != hex.EncodeToString(h[:]) {
		t.Fatal("openapi.json changed since genclient was generated: run `cd genclient && go generate ./hospoapi` " +
			"(and check that it still compiles: go test ./... there)")
	}
}
