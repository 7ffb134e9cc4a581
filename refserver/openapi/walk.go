package openapi

import "github.com/getkin/kin-openapi/openapi3"

// eachSchema calls fn once for every schema of a loaded document: those of
// the components, parameters, headers, request and response bodies, and
// every schema nested in them. The load-time rewrites (normaliseNulls,
// applyDecimalPlaces) go through it.
func eachSchema(doc *openapi3.T, fn func(*openapi3.Schema)) {
	seen := map[*openapi3.Schema]bool{}
	var visit func(*openapi3.SchemaRef)
	visitAll := func(refs openapi3.SchemaRefs) {
		for _, r := range refs {
			visit(r)
		}
	}
	visit = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		fn(s)
		visitAll(s.OneOf)
		visitAll(s.AnyOf)
		visitAll(s.AllOf)
		visit(s.Not)
		visit(s.Items)
		visit(s.AdditionalProperties.Schema)
		for _, p := range s.Properties {
			visit(p)
		}
	}
	visitContent := func(c openapi3.Content) {
		for _, mt := range c {
			if mt != nil {
				visit(mt.Schema)
			}
		}
	}
	visitParams := func(ps openapi3.Parameters) {
		for _, p := range ps {
			if p != nil && p.Value != nil {
				visit(p.Value.Schema)
				visitContent(p.Value.Content)
			}
		}
	}
	visitHeaders := func(hs openapi3.Headers) {
		for _, h := range hs {
			if h != nil && h.Value != nil {
				visit(h.Value.Schema)
			}
		}
	}
	visitResponse := func(r *openapi3.ResponseRef) {
		if r != nil && r.Value != nil {
			visitHeaders(r.Value.Headers)
			visitContent(r.Value.Content)
		}
	}
	if c := doc.Components; c != nil {
		for _, s := range c.Schemas {
			visit(s)
		}
		for _, p := range c.Parameters {
			visitParams(openapi3.Parameters{p})
		}
		visitHeaders(c.Headers)
		for _, r := range c.Responses {
			visitResponse(r)
		}
		for _, rb := range c.RequestBodies {
			if rb != nil && rb.Value != nil {
				visitContent(rb.Value.Content)
			}
		}
	}
	if doc.Paths == nil {
		return
	}
	for _, item := range doc.Paths.Map() {
		visitParams(item.Parameters)
		for _, op := range item.Operations() {
			visitParams(op.Parameters)
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				visitContent(op.RequestBody.Value.Content)
			}
			if op.Responses != nil {
				for _, r := range op.Responses.Map() {
					visitResponse(r)
				}
			}
		}
	}
}
