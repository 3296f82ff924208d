package validation

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// schemaContainers are keywords whose errors only say that a subschema
// failed; the subschema's own errors carry the detail.
var schemaContainers = map[string]bool{
	"properties": true, "patternProperties": true, "items": true, "prefixItems": true,
	"allOf": true, "$ref": true, "$dynamicRef": true, "$recursiveRef": true, "dependentSchemas": true,
	"if": true, "then": true, "else": true, "unevaluatedItems": true, "unevaluatedProperties": true,
	"additionalItems": true, "contentSchema": true,
}

// jsonSchemaEntry is one validator error in either shape, normalised.
type jsonSchemaEntry struct {
	path       []*jsonv.Value
	keyword    string
	schemaPath string // keyword location, for grouping and for lookups
	message    string
	params     *jsonv.Value // ajv's params; nil for basic output
	value      *jsonv.Value // the keyword's value in the schema, when known
}

// JSONSchemaIssues maps ajv error objects (instancePath, keyword, params,
// message) or JSON Schema basic-output units (instanceLocation,
// keywordLocation, error) to issues. schema, when given, supplies the
// keyword values that basic output leaves out.
func JSONSchemaIssues(entries []*jsonv.Value, schema, args *jsonv.Value) []Issue {
	var list []jsonSchemaEntry
	for _, e := range entries {
		var je jsonSchemaEntry
		if ip, ok := jsonv.GetString(e, "instancePath"); ok || e.Get("keyword") != nil {
			je.path = jsonv.PointerPath(ip)
			je.keyword, _ = jsonv.GetString(e, "keyword")
			je.schemaPath, _ = jsonv.GetString(e, "schemaPath")
			je.message, _ = jsonv.GetString(e, "message")
			je.params = e.Get("params")
			je.value = jsonv.LookupPointer(schema, je.schemaPath)
		} else {
			il, _ := jsonv.GetString(e, "instanceLocation")
			kl, _ := jsonv.GetString(e, "keywordLocation")
			je.path = jsonv.PointerPath(il)
			je.schemaPath = kl
			if i := strings.LastIndexByte(kl, '/'); i >= 0 {
				je.keyword = jsonv.UnescapeToken(kl[i+1:])
			}
			je.message, _ = jsonv.GetString(e, "error")
			if abs, ok := jsonv.GetString(e, "absoluteKeywordLocation"); ok {
				if i := strings.IndexByte(abs, '#'); i >= 0 {
					je.value = jsonv.LookupPointer(schema, abs[i:])
				}
			}
			if je.value == nil {
				je.value = jsonv.LookupPointer(schema, kl)
			}
			if schemaContainers[je.keyword] || je.keyword == "" {
				continue
			}
		}
		list = append(list, je)
	}
	// Errors inside the branches of a failed anyOf/oneOf are noise next to
	// the union error itself.
	var unions []string
	for _, je := range list {
		if (je.keyword == "anyOf" || je.keyword == "oneOf") && je.schemaPath != "" {
			unions = append(unions, je.schemaPath+"/")
		}
	}
	type pending struct {
		issue Issue
		extra []string
	}
	var out []pending
	extras := map[string]int{}
	for _, je := range list {
		if inBranch(je.schemaPath, unions) {
			continue
		}
		if je.keyword == "additionalProperties" || je.keyword == "unevaluatedProperties" {
			parent, keys := extraKeys(je, schema, args)
			id := issuePath(parent)
			if i, ok := extras[id]; ok {
				out[i].extra = append(out[i].extra, keys...)
				continue
			}
			extras[id] = len(out)
			out = append(out, pending{Issue{Path: parent, Message: je.message}, keys})
			continue
		}
		path := je.path
		if je.keyword == "required" {
			if name, ok := missingProperty(je, args); ok {
				path = append(append([]*jsonv.Value{}, path...), &jsonv.Value{Kind: jsonv.KindString, Str: name})
			}
		}
		out = append(out, pending{issue: Issue{Path: path, Message: je.message, Suggestion: jsonSchemaSuggestion(je)}})
	}
	issues := make([]Issue, len(out))
	for i, p := range out {
		issues[i] = p.issue
		if len(p.extra) > 0 {
			issues[i].Suggestion = suggestUnrecognized(p.extra)
		}
	}
	return issues
}

func inBranch(schemaPath string, unions []string) bool {
	for _, u := range unions {
		if strings.HasPrefix(schemaPath, u) {
			return true
		}
	}
	return false
}

// param reads an ajv param, or falls back to the keyword's schema value.
func (je jsonSchemaEntry) param(name string) *jsonv.Value {
	if v := je.params.Get(name); v != nil {
		return v
	}
	return je.value
}

// extraKeys finds the object and the unexpected keys of an
// additionalProperties error.
func extraKeys(je jsonSchemaEntry, schema, args *jsonv.Value) ([]*jsonv.Value, []string) {
	if k, ok := jsonv.GetString(je.params, "additionalProperty"); ok {
		return je.path, []string{k}
	}
	if k, ok := jsonv.GetString(je.params, "unevaluatedProperty"); ok {
		return je.path, []string{k}
	}
	if d, ok := keywordInstanceDepth(je.schemaPath); ok && len(je.path) == d+1 {
		// Basic output that names the extra property itself.
		return je.path[:d], []string{jsonv.SegmentText(je.path[d])}
	}
	obj := jsonv.LookupPath(args, je.path)
	if len(je.path) == 0 {
		obj = args
	}
	if obj != nil && obj.Kind == jsonv.KindObject {
		// Basic output names the object: the extras are the keys its
		// schema does not declare.
		parentSchema := jsonv.LookupPointer(schema, strings.TrimSuffix(je.schemaPath, "/"+je.keyword))
		props := parentSchema.Get("properties")
		var keys []string
		for _, m := range obj.Members {
			if props.Get(m.Key) == nil {
				keys = append(keys, m.Key)
			}
		}
		if len(keys) > 0 && props != nil {
			return je.path, keys
		}
	}
	if len(je.path) > 0 {
		return je.path[:len(je.path)-1], []string{jsonv.SegmentText(je.path[len(je.path)-1])}
	}
	return je.path, nil
}

// keywordInstanceDepth counts how many levels into the instance a keyword
// location goes before its last segment (the keyword): one per
// properties/K, items, prefixItems/N and the like, none for $ref, allOf/N,
// if and the like. ok is false for a location it cannot read.
func keywordInstanceDepth(loc string) (int, bool) {
	segs := jsonv.PointerPath(loc)
	if len(segs) == 0 {
		return 0, false
	}
	depth := 0
	for i := 0; i < len(segs)-1; i++ {
		next := ""
		if i+1 < len(segs)-1 {
			next = segs[i+1].Str
		}
		switch segs[i].Str {
		case "properties", "patternProperties", "prefixItems":
			depth++
			i++
		case "items", "additionalItems":
			depth++
			if _, err := strconv.Atoi(next); err == nil && next != "" {
				i++ // draft-07's array form of items
			}
		case "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "contains":
			depth++
		case "allOf", "anyOf", "oneOf", "dependentSchemas", "dependencies":
			i++
		case "$ref", "$dynamicRef", "$recursiveRef", "if", "then", "else", "not":
		default:
			return 0, false
		}
	}
	return depth, true
}

// missingProperty names the property a required error is about.
func missingProperty(je jsonSchemaEntry, args *jsonv.Value) (string, bool) {
	if name, ok := jsonv.GetString(je.params, "missingProperty"); ok {
		return name, true
	}
	if je.value != nil && je.value.Kind == jsonv.KindArray {
		obj := args
		if len(je.path) > 0 {
			obj = jsonv.LookupPath(args, je.path)
		}
		for _, r := range je.value.Arr {
			if r.Kind == jsonv.KindString && (obj == nil || obj.Get(r.Str) == nil) {
				return r.Str, true
			}
		}
	}
	// Last resort: the first quoted name in the message.
	for _, q := range []byte{'\'', '"'} {
		if i := strings.IndexByte(je.message, q); i >= 0 {
			if j := strings.IndexByte(je.message[i+1:], q); j > 0 {
				return je.message[i+1 : i+1+j], true
			}
		}
	}
	return "", false
}

func jsonSchemaSuggestion(je jsonSchemaEntry) string {
	num := func(name string) (string, *jsonv.Value, bool) {
		v := je.param(name)
		n, ok := boundText(v)
		return n, v, ok
	}
	switch je.keyword {
	case "type":
		t := je.param("type")
		switch {
		case t != nil && t.Kind == jsonv.KindString:
			return suggestType(strings.ReplaceAll(t.Str, ",", " or "))
		case t != nil && t.Kind == jsonv.KindArray:
			var names []string
			for _, x := range t.Arr {
				if x.Kind == jsonv.KindString {
					names = append(names, x.Str)
				}
			}
			if len(names) > 0 {
				return suggestType(strings.Join(names, " or "))
			}
		}
	case "required":
		return suggestMissing
	case "minLength", "maxLength":
		if n, v, ok := num("limit"); ok {
			return suggestLength(n, isOne(v), je.keyword == "minLength")
		}
	case "minItems", "maxItems":
		if n, v, ok := num("limit"); ok {
			return suggestItems(n, isOne(v), je.keyword == "minItems")
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		op := map[string]string{"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[je.keyword]
		if c, ok := jsonv.GetString(je.params, "comparison"); ok {
			op = c
		}
		if n, _, ok := num("limit"); ok {
			return suggestBound(op, n)
		}
	case "multipleOf":
		if n, _, ok := num("multipleOf"); ok {
			return suggestMultipleOf(n)
		}
	case "pattern":
		return suggestPattern
	case "format":
		if f := je.param("format"); f != nil && f.Kind == jsonv.KindString {
			return suggestAnyFormat(f.Str)
		}
	case "enum":
		if v := je.param("allowedValues"); v != nil && v.Kind == jsonv.KindArray {
			return suggestOptions(v.Arr)
		}
	case "const":
		if v := je.param("allowedValue"); v != nil {
			return suggestExactly(v)
		}
	case "uniqueItems":
		return suggestUnique
	case "anyOf":
		return suggestUnion
	case "oneOf":
		if p := je.params.Get("passingSchemas"); p != nil && p.Kind == jsonv.KindArray {
			return suggestOneOf
		}
		return suggestUnion
	}
	return ""
}
