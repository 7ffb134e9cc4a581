package openapi

import (
	"bytes"
	"embed"
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

//go:embed openapi.json universal-pos.json
var files embed.FS

// Spec returns the OpenAPI document of the reference server as JSON. The
// slice is a copy: callers may keep or change it.
func Spec() []byte { return mustRead("openapi.json") }

// UniversalPOSSpec returns the OpenAPI document of the universal POS contract,
// for POS vendors, as JSON. The slice is a copy.
func UniversalPOSSpec() []byte { return mustRead("universal-pos.json") }

func mustRead(name string) []byte {
	b, err := files.ReadFile(name)
	if err != nil {
		// The files are embedded at build time; a miss is a build defect.
		panic("openapi: embedded " + name + " missing: " + err.Error())
	}
	return bytes.Clone(b)
}

// Load parses and validates the reference server's document. The 3.1 null
// forms come back in kin-openapi's nullable model (see the package comment),
// and money's x-decimal-places as multipleOf (see applyDecimalPlaces).
func Load() (*openapi3.T, error) { return load(Spec()) }

// LoadUniversalPOS parses and validates the universal POS contract.
func LoadUniversalPOS() (*openapi3.T, error) { return load(UniversalPOSSpec()) }

func load(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	// Both documents are self-contained; nothing outside them may be read.
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("openapi: load: %w", err)
	}
	// kin-openapi's model is 3.0's, which has no top-level webhooks (the
	// event payloads the server sends out); it keeps them as an unknown
	// field that Validate refuses. Requests and responses never use them,
	// so the model drops them; the lint checks them in the 3.1 document.
	delete(doc.Extensions, "webhooks")
	normaliseNulls(doc)
	if err := applyDecimalPlaces(doc); err != nil {
		return nil, err
	}
	if err := applyErrorCodes(doc); err != nil {
		return nil, err
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("openapi: validate: %w", err)
	}
	return doc, nil
}

// checker pairs a loaded document with a router that finds the operation of a
// request. It is immutable and safe for concurrent use.
type checker struct {
	doc    *openapi3.T
	router routers.Router
}

// sharedChecker is built once per process: the documents are embedded and
// never change, and loading them costs more than the requests they check.
var sharedChecker = sync.OnceValues(func() (*checker, error) { return newChecker(Spec()) })

// registerDecoders teaches kin-openapi the non-JSON bodies of the document:
// the sandbox CA certificate is served as application/x-pem-file and the
// home page as text/html, both read as text. The registry is kin-openapi's
// (global); registering the same decoder again is harmless.
var registerDecoders = sync.OnceFunc(func() {
	openapi3filter.RegisterBodyDecoder("application/x-pem-file", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
})

func newChecker(spec []byte) (*checker, error) {
	registerDecoders()
	doc, err := load(spec)
	if err != nil {
		return nil, err
	}
	// The document lists the sandbox's default addresses as servers, but the
	// server runs behind any host and port (tests use random ports); match on
	// the path alone.
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: router: %w", err)
	}
	return &checker{doc: doc, router: router}, nil
}
