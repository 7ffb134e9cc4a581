// Package openapi holds the OpenAPI 3.1 documents of the reference server and
// the code that enforces them.
//
// Two documents are embedded in the binary:
//
//   - openapi.json: everything the refserver serves (the service API, the
//     sandbox admin, provider and demo POS endpoints, and the documents
//     themselves), served at /openapi.json.
//   - universal-pos.json: the universal POS contract that a POS vendor
//     implements and the service calls, served at /universal-pos/openapi.json.
//     The schemas it shares with openapi.json (menus, orders, fulfillment
//     payloads) are written out in both, so that each document stands alone;
//     a test keeps the copies equal.
//
// The documents are written in the part of OpenAPI 3.1 that
// github.com/getkin/kin-openapi v0.133 understands. Nullable members use the
// 3.1 forms, type arrays (["string", "null"]) and oneOf with {"type": "null"};
// kin-openapi's document validation rejects "null" as a type, so Load rewrites
// those into its 3.0 model in memory (see normaliseNulls). Money carries the
// extension x-decimal-places: 2 rather than multipleOf: 0.01, which
// validators that compute in binary floating point get wrong (they refuse
// 19.99); Load turns it into a number format that counts the decimals
// the JSON had (see applyDecimalPlaces). Keywords it does not know (const,
// examples, numeric exclusiveMinimum, propertyNames, members beside $ref)
// are not used. Request bodies admit unknown members, as the server ignores
// them; response bodies do not, so that an undocumented member in a
// response is caught.
//
// The document is also written for client generators, and tests in the
// nested module genclient hold it to that: oapi-codegen's default settings
// generate a Go client that compiles, and openapi-typescript's types refuse
// under tsc --strict the bodies the server refuses. So every amount refers
// to the one Money schema (format double, and x-go-type for the SDK's exact
// client.Money; a field's narrower range sits beside an allOf of it); error
// codes are the ErrorCode enum and every error response is the one Error
// schema, its codes listed in x-error-codes, which Load turns back into an
// enum per response (see applyErrorCodes); each event type has its schema
// (Event is their union on type), kept from pruning by the callback of
// POST /v1/webhooks; and a choice between members (one token or the
// other) is an allOf of an anyOf beside the properties, which generators
// read as the properties and one of the alternatives. After changing
// openapi.json, regenerate that client (cd genclient && go generate
// ./hospoapi); a test here fails until then.
//
// The documents state every rule the server enforces on a request: as schema
// keywords where JSON Schema can say it (lengths, ranges, patterns for blank
// strings, email addresses and times), in descriptions where the rule
// depends on other data (menus, tokens, the clock). A test varies a valid
// request of each endpoint through boundary values and checks that no
// variant the document accepts is refused with 400002.
//
// Enforcement comes in two forms. NewRequestValidator is HTTP middleware that
// rejects requests which break the document (the refserver's -validate flag),
// answering in the service's error body. ValidatingHandler checks every
// request and response passing through and reports mismatches; the
// end-to-end test harness (refservertest) wraps the server with it, so every
// end-to-end test also checks that the document and the server agree. A test
// walks the server's routes and the document's paths to keep both lists equal.
//
// The documents also pass the pinned Redocly CLI and Spectral lints without
// errors:
//
//	HOSPO_OPENAPI_LINT=1 go test -run 'Test(Redocly|Spectral)Lint' ./refserver/openapi
//
// Using the request validator in front of an API handler:
//
//	mw, err := openapi.NewRequestValidator()
//	if err != nil {
//		log.Fatal(err)
//	}
//	http.ListenAndServe(addr, mw(apiHandler))
package openapi
