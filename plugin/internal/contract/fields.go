package contract

import (
	"strings"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// schemaKeywords are the keywords of JSON Schema draft-07, 2019-09 and
// 2020-12. A field names a keyword as ".keyword", so a property of the same
// name is written the other way (propertyField).
var schemaKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`$schema $id $ref $comment $defs definitions $anchor $dynamicAnchor
		$dynamicRef $recursiveRef $recursiveAnchor $vocabulary title description default examples
		deprecated readOnly writeOnly type enum const multipleOf maximum exclusiveMaximum minimum
		exclusiveMinimum maxLength minLength pattern format contentEncoding contentMediaType
		contentSchema items additionalItems prefixItems unevaluatedItems maxItems minItems uniqueItems
		contains maxContains minContains properties patternProperties additionalProperties
		unevaluatedProperties propertyNames required dependentRequired dependentSchemas dependencies
		maxProperties minProperties allOf anyOf oneOf not if then else`) {
		schemaKeywords[k] = true
	}
}

// propertyField is the field of the property (or other member name: a
// pattern, a dependency's key) name below field. It is ".name" when that
// reads one way only; a name that is empty, holds ".", "[" or "]", or is a
// JSON Schema keyword is written `["name"]`, the name as a JSON string, so
// that no two paths of a schema share a field: property "a.b" is
// `input["a.b"]` and property b of property a is `input.a.b`.
func propertyField(field, name string) string {
	if name != "" && !strings.ContainsAny(name, ".[]") && !schemaKeywords[name] {
		return field + "." + name
	}
	w := jsonv.Writer{B: append([]byte(field), '[')}
	w.Str(name)
	w.Byte(']')
	return string(w.B)
}
