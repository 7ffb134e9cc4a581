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
//     admits null and nothing else;
//   - {"oneOf": [X, {"type": "null"}]} (or anyOf, in either order) becomes
//     X itself, nullable: the same values pass and fail, with X's reasons.
//     This one is about cost as much as form: kin-openapi validates the
//     matching branch of a oneOf or anyOf twice (once to choose it, once
//     more to apply its defaults), so a schema that nests itself through
//     such a choice (a check's category has a parent category) cost twice
//     as much with every level of a body, and a 33-deep chain of 1.3 KB
//     never finished. As X alone it costs one visit per value.
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
	// Once every null branch has its rewritten form.
	eachSchema(doc, collapseNullableChoice)
}

// collapseNullableChoice rewrites s, when it is nothing but a choice
// between one schema X and null ({"oneOf": [X, {"type": "null"}]} with at
// most a description beside it), into a nullable copy of X. The copy
// shares X's members, so a schema that refers to itself through s keeps
// doing so. Run it after the branches are normalised.
func collapseNullableChoice(s *openapi3.Schema) {
	choice := s.OneOf
	if len(choice) == 0 {
		choice = s.AnyOf
	}
	if len(choice) != 2 || len(s.OneOf) > 0 && len(s.AnyOf) > 0 {
		return
	}
	var x *openapi3.Schema
	switch {
	case isNullOnly(choice[1]) && !isNullOnly(choice[0]):
		x = choice[0].Value
	case isNullOnly(choice[0]) && !isNullOnly(choice[1]):
		x = choice[1].Value
	default:
		return
	}
	if x == nil || !onlyChoice(s) {
		return
	}
	desc := s.Description
	*s = *x
	s.Nullable = true
	if desc != "" {
		s.Description = desc
	}
}

// isNullOnly reports whether ref is {"type": "null"} as normaliseNulls
// rewrote it.
func isNullOnly(ref *openapi3.SchemaRef) bool {
	if ref == nil || ref.Value == nil {
		return false
	}
	v := ref.Value
	return v.Type == nil && v.Nullable && len(v.Enum) == 1 && v.Enum[0] == nil
}

// onlyChoice reports whether s says nothing but its oneOf or anyOf (and a
// description), so that replacing it by the chosen schema loses no rule.
func onlyChoice(s *openapi3.Schema) bool {
	c := *s
	c.OneOf, c.AnyOf, c.Description = nil, nil, ""
	return c.IsEmpty() && len(c.Extensions) == 0 && c.Discriminator == nil
}
