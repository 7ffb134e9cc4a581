package openapi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// fieldError is one failing member of a request or response: path is a JSON
// path in the catalogue's form (menuItems[0].price), reason says what is wrong.
type fieldError struct {
	path   string
	reason string
}

// schemaErrors flattens kin-openapi's error tree (MultiError, SchemaError and
// the errors wrapping them) into field errors. prefix names where the value
// sits (a parameter or header name, or "" for a body). ok is false when err
// holds something that is not a schema failure (a body that does not parse, a
// wrong content type), which callers leave to the server.
func schemaErrors(err error, prefix string) (out []fieldError, ok bool) {
	ok = true
	var walk func(err error, base []string)
	walk = func(err error, base []string) {
		switch e := err.(type) {
		case nil:
		case openapi3.MultiError:
			for _, x := range e {
				walk(x, base)
			}
		case *openapi3.SchemaError:
			ptr := append(append([]string(nil), base...), e.JSONPointer()...)
			var inner openapi3.MultiError
			if e.SchemaField == "allOf" && errors.As(e.Origin, &inner) {
				// allOf's inner errors are relative to the allOf value.
				walk(inner, ptr)
				return
			}
			if name, isUnknown := unknownMember(e); isUnknown {
				ptr = append(ptr, name)
			}
			out = append(out, fieldError{path: joinPath(prefix, ptr), reason: schemaReason(e)})
		default:
			var se *openapi3.SchemaError
			var me openapi3.MultiError
			switch {
			case errors.As(err, &me):
				walk(me, base)
			case errors.As(err, &se):
				walk(se, base)
			default:
				ok = false
			}
		}
	}
	walk(err, nil)
	return out, ok
}

// schemaReason words a schema failure the way the server words its own
// validation errors where they overlap ("required"), and otherwise keeps
// kin-openapi's reason, which names the rule but never echoes the value.
func schemaReason(e *openapi3.SchemaError) string {
	switch e.SchemaField {
	case "required":
		return "required"
	case "nullable":
		return "must not be null"
	case "format":
		if e.Schema != nil && strings.HasPrefix(e.Schema.Format, decimalFormatPrefix) {
			// Money: the server's own wording for the same rule.
			return "must have at most " + strings.TrimPrefix(e.Schema.Format, decimalFormatPrefix) + " decimal places"
		}
		if e.Schema != nil && e.Schema.Format != "" {
			return "not a valid " + e.Schema.Format
		}
	case "enum":
		if e.Schema != nil && len(e.Schema.Enum) > 0 {
			vals := make([]string, 0, len(e.Schema.Enum))
			for _, v := range e.Schema.Enum {
				if v != nil {
					vals = append(vals, fmt.Sprint(v))
				}
			}
			return "must be one of " + strings.Join(vals, ", ")
		}
	}
	if _, ok := unknownMember(e); ok {
		return "unknown member"
	}
	return e.Reason
}

// unknownMember returns the member named by an additionalProperties failure.
func unknownMember(e *openapi3.SchemaError) (string, bool) {
	if e.SchemaField != "properties" {
		return "", false
	}
	var name string
	if _, err := fmt.Sscanf(e.Reason, "property %q is unsupported", &name); err != nil {
		return "", false
	}
	return name, true
}

// joinPath renders a JSON pointer as a catalogue path: object members joined
// with dots, array indexes in brackets.
func joinPath(prefix string, pointer []string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, tok := range pointer {
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	if b.Len() == 0 {
		return "$"
	}
	return b.String()
}

// describe renders any validation error as one line without values: enough
// to find the field and the rule in a test failure, and never a token, which
// can sit in the values of sandbox responses.
func describe(err error) string {
	var parts []string
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case openapi3.MultiError:
			for _, x := range e {
				walk(x)
			}
		case *openapi3filter.RequestError:
			where := "request"
			switch {
			case e.Parameter != nil:
				where = e.Parameter.In + " parameter " + e.Parameter.Name
			case e.RequestBody != nil:
				where = "request body"
			}
			sub, ok := schemaErrors(e.Err, "")
			if ok && len(sub) > 0 {
				for _, f := range sub {
					parts = append(parts, fmt.Sprintf("%s: %s: %s", where, f.path, f.reason))
				}
				return
			}
			parts = append(parts, where+": "+reasonOf(e.Reason, e.Err))
		case *openapi3filter.ResponseError:
			sub, ok := schemaErrors(e.Err, "")
			if ok && len(sub) > 0 {
				for _, f := range sub {
					parts = append(parts, fmt.Sprintf("response body: %s: %s", f.path, f.reason))
				}
				return
			}
			parts = append(parts, "response: "+reasonOf(e.Reason, e.Err))
		case *openapi3.SchemaError:
			for _, f := range flattenSchemaError(e) {
				parts = append(parts, fmt.Sprintf("%s: %s", f.path, f.reason))
			}
		default:
			parts = append(parts, err.Error())
		}
	}
	walk(err)
	return strings.Join(parts, "; ")
}

func flattenSchemaError(e *openapi3.SchemaError) []fieldError {
	fs, _ := schemaErrors(e, "")
	return fs
}

func reasonOf(reason string, err error) string {
	switch {
	case reason != "" && err != nil:
		var se *openapi3.SchemaError
		if errors.As(err, &se) {
			return reason + ": " + schemaReason(se)
		}
		return reason
	case reason != "":
		return reason
	case err != nil:
		return err.Error()
	}
	return "invalid"
}
