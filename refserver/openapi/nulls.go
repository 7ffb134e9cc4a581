package openapi

import "github.com/getkin/kin-openapi/openapi3"

// normaliseNulls rewrites the OpenAPI 3.1 forms of null in a loaded document
// into the model that kin-openapi v0.133 validates: its document validation
// rejects "null" as a type, while its value validation honours the 3.0
// nullable flag. The rewrite is in memory only; the served documents stay
// plain 3.1.
//
//   - {"type": ["string", "null"]} becomes {"type": "string", "nullable": true};
//   - {"type": "null"} becomes {"nullable": true, "enum": [null]}, which
//     admits null and nothing else.
func normaliseNulls(doc *openapi3.T) {
	eachSchema(doc, func(s *openapi3.Schema) {
		if s.Type == nil || !s.Type.Includes(openapi3.TypeNull) {
			return
		}
		var rest openapi3.Types
		for _, t := range s.Type.Slice() {
			if t != openapi3.TypeNull {
				rest = append(rest, t)
			}
		}
		s.Nullable = true
		if len(rest) == 0 {
			s.Type = nil
			if len(s.Enum) == 0 {
				s.Enum = []any{nil}
			}
		} else {
			s.Type = &rest
		}
	})
}
