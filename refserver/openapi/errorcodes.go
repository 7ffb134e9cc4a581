package openapi

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// errorCodesKey is the documents' extension on an error response: the codes
// that response answers with ("x-error-codes": [400001, 400002]). The
// response's schema is plain Error, whose code is the whole ErrorCode
// enum, so that generators make one error type (one contextData union)
// rather than one per response. applyErrorCodes narrows each such response
// to its codes again, in memory, so that the refserver's validators keep
// refusing an error answered under the wrong status.
const errorCodesKey = "x-error-codes"

// applyErrorCodes rewrites every response carrying x-error-codes into
// allOf [Error, {code: {enum: codes}}].
func applyErrorCodes(doc *openapi3.T) error {
	if doc.Components == nil {
		return nil
	}
	errSchema := doc.Components.Schemas["Error"]
	for name, ref := range doc.Components.Responses {
		if ref == nil || ref.Value == nil {
			continue
		}
		v, ok := ref.Value.Extensions[errorCodesKey]
		if !ok {
			continue
		}
		list, isList := v.([]any)
		if !isList || len(list) == 0 || errSchema == nil {
			return fmt.Errorf("openapi: response %s: %s must be a non-empty list of codes beside an Error schema", name, errorCodesKey)
		}
		for _, mt := range ref.Value.Content {
			if mt == nil || mt.Schema == nil || mt.Schema.Value != errSchema.Value {
				return fmt.Errorf("openapi: response %s: %s needs the schema Error", name, errorCodesKey)
			}
			narrow := &openapi3.Schema{Properties: openapi3.Schemas{
				"code": &openapi3.SchemaRef{Value: &openapi3.Schema{Enum: list}},
			}}
			mt.Schema = &openapi3.SchemaRef{Value: &openapi3.Schema{
				AllOf: openapi3.SchemaRefs{errSchema, narrow.NewRef()},
			}}
		}
	}
	return nil
}
