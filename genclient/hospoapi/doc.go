// Package hospoapi is the Go client that oapi-codegen generates from the
// reference server's served OpenAPI document (/openapi.json) with its
// default settings (models and client; see ../oapi-codegen.yaml). It is
// here as a proof for integrators who generate their own client: its tests
// check that the generated code is current and compiles, that it has no
// float32 and typed error codes and events, and that it carries a whole
// flow through a real refserver with every amount exact to the cent.
//
// Use the SDK (github.com/hospo-dev/hospo-go) in Go programs; this package
// lives in its own module so that the SDK's users never inherit
// oapi-codegen's runtime.
//
// Regenerate after changing the document:
//
//	go generate ./hospoapi
//
// which also records the document's SHA-256 in openapi.sha256, so that the
// main module's tests (refserver/openapi) notice a document changed without
// regenerating, where this module's tools are not at hand.
package hospoapi

//go:generate go tool oapi-codegen -config ../oapi-codegen.yaml -o hospoapi.gen.go ../../refserver/openapi/openapi.json
//go:generate sh -c "sha256sum < ../../refserver/openapi/openapi.json | cut -c1-64 > openapi.sha256"
