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
// keyword values that basic output leaves out. idx (nil for a new one)
// finds members in schema and args.
//
// Its time is linear in the entries, the schema and args: lookups go
// through the index, the suggestion drawn from one schema keyword is
// written once however many entries name it, and the unknown keys of one
// object are listed once each however many entries report them.
func JSONSchemaIssues(entries []*jsonv.Value, schema, args *jsonv.Value, idx *jsonv.Index) []Issue {
	if idx == nil {
		idx = &jsonv.Index{}
	}
	var list []jsonSchemaEntry
	for _, e := range entries {
		var je jsonSchemaEntry
		if ip, ok := jsonv.GetString(e, "instancePath"); ok || e.Get("keyword") != nil {
			je.path = jsonv.PointerPath(ip)
			je.keyword, _ = jsonv.GetString(e, "keyword")
			je.schemaPath, _ = jsonv.GetString(e, "schemaPath")
			je.message, _ = jsonv.GetString(e, "message")
			je.params = e.Get("params")
			je.value = idx.LookupPointer(schema, je.schemaPath)
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
					je.value = idx.LookupPointer(schema, abs[i:])
				}
			}
			if je.value == nil {
				je.value = idx.LookupPointer(schema, kl)
			}
			if schemaContainers[je.keyword] || je.keyword == "" {
				continue
			}
		}
		list = append(list, je)
	}
	// Errors inside the branches of a failed anyOf/oneOf are noise next to
	// the union error itself.
	unions := &unionTrie{}
	for _, je := range list {
		if (je.keyword == "anyOf" || je.keyword == "oneOf") && je.schemaPath != "" {
			unions.add(je.schemaPath)
		}
	}
	var out []Issue
	groups := map[string]*extraGroup{} // unknown keys by the path of their object
	var order []*extraGroup
	suggestions := map[suggestionKey]jsonSchemaHint{}
	missing := &missingMemo{found: map[[2]*jsonv.Value]missingName{}, names: map[*jsonv.Value][]string{}}
	for _, je := range list {
		if unions.inBranch(je.schemaPath) {
			continue
		}
		if je.keyword == "additionalProperties" || je.keyword == "unevaluatedProperties" {
			extraKeys(je, schema, args, idx, groups, &order, &out)
			continue
		}
		if je.keyword == "required" {
			// The message says a property is required; the hint names the
			// type it needs, when the schema gives one.
			path, hint := je.path, ""
			if name, ok := missingProperty(je, args, idx, missing); ok {
				path = append(append([]*jsonv.Value{}, path...), &jsonv.Value{Kind: jsonv.KindString, Str: name})
				hint = requiredType(je, name, schema, idx)
			}
			out = append(out, Issue{Path: path, Message: sentence(je.message), Suggestion: hint})
			continue
		}
		key := suggestionKey{je.keyword, je.params, je.value}
		hint, ok := suggestions[key]
		if !ok {
			hint = jsonSchemaSuggestion(je)
			suggestions[key] = hint
		}
		out = append(out, Issue{Path: je.path, Message: sentence(je.message), Suggestion: hint.unlessStated(je.message)})
	}
	for _, g := range order {
		if len(g.keys) > 0 {
			out[g.at].Suggestion = suggestUnrecognized(g.keys)
			out[g.at].Keys = g.keys
		}
	}
	return out
}

// suggestionKey is what a JSON Schema suggestion depends on.
type suggestionKey struct {
	keyword       string
	params, value *jsonv.Value
}

// unionTrie holds the keyword locations of union errors, segment by
// segment, so that whether a location lies inside one is answered in one
// pass over the location.
type unionTrie struct {
	next  map[string]*unionTrie
	union bool // a union's location ends here
}

func (t *unionTrie) add(loc string) {
	for {
		seg, rest, more := strings.Cut(loc, "/")
		if t.next == nil {
			t.next = map[string]*unionTrie{}
		}
		n, ok := t.next[seg]
		if !ok {
			n = &unionTrie{}
			t.next[seg] = n
		}
		t = n
		if !more {
			t.union = true
			return
		}
		loc = rest
	}
}

// inBranch reports whether loc starts with a union's location and a '/'.
func (t *unionTrie) inBranch(loc string) bool {
	for {
		seg, rest, more := strings.Cut(loc, "/")
		if t = t.next[seg]; t == nil {
			return false
		}
		if !more {
			return false
		}
		if t.union {
			return true
		}
		loc = rest
	}
}

// param reads an ajv param, or falls back to the keyword's schema value.
func (je jsonSchemaEntry) param(name string) *jsonv.Value {
	if v := je.params.Get(name); v != nil {
		return v
	}
	return je.value
}

// extraGroup is the one issue of the unknown keys of one object: the keys
// in the order they were reported, each once.
type extraGroup struct {
	at   int // the issue's index
	keys []string
	seen map[string]bool
	// For basic output that names only the object: its keys not yet
	// reported, in order, and the schemas already read.
	remaining []string
	started   bool
	schemas   map[*jsonv.Value]bool
}

func (g *extraGroup) add(k string) {
	if !g.seen[k] {
		g.seen[k] = true
		g.keys = append(g.keys, k)
	}
}

// extraKeys files the unexpected keys of an additionalProperties (or
// unevaluatedProperties) error under the object they belong to.
func extraKeys(je jsonSchemaEntry, schema, args *jsonv.Value, idx *jsonv.Index, groups map[string]*extraGroup, order *[]*extraGroup, out *[]Issue) {
	group := func(parent []*jsonv.Value) *extraGroup {
		id := issuePath(parent)
		g, ok := groups[id]
		if !ok {
			g = &extraGroup{at: len(*out), seen: map[string]bool{}}
			groups[id] = g
			*order = append(*order, g)
			*out = append(*out, Issue{Path: parent, Message: sentence(je.message)})
		}
		return g
	}
	if k, ok := jsonv.GetString(je.params, "additionalProperty"); ok {
		group(je.path).add(k)
		return
	}
	if k, ok := jsonv.GetString(je.params, "unevaluatedProperty"); ok {
		group(je.path).add(k)
		return
	}
	if d, ok := keywordInstanceDepth(je.schemaPath); ok && len(je.path) == d+1 {
		// Basic output that names the extra property itself.
		group(je.path[:d]).add(jsonv.SegmentText(je.path[d]))
		return
	}
	obj := idx.LookupPath(args, je.path)
	if len(je.path) == 0 {
		obj = args
	}
	if obj != nil && obj.Kind == jsonv.KindObject {
		// Basic output names the object: the extras are the keys its
		// schema does not declare.
		parentSchema := idx.LookupPointer(schema, strings.TrimSuffix(je.schemaPath, "/"+je.keyword))
		if props := parentSchema.Get("properties"); props != nil {
			if g := groups[issuePath(je.path)]; g != nil && g.schemas[props] {
				return // the same object against the same properties: nothing new
			}
			// Some key is undeclared when fewer of the object's keys are
			// declared than it has.
			declared := 0
			for _, m := range props.Members {
				if idx.Position(obj, m.Key) >= 0 {
					declared++
				}
			}
			if declared < len(obj.Members) {
				g := group(je.path)
				if !g.started {
					g.started = true
					g.schemas = map[*jsonv.Value]bool{}
					for _, m := range obj.Members {
						g.remaining = append(g.remaining, m.Key)
					}
				}
				g.schemas[props] = true
				// Keys already reported drop out, and so do the keys this
				// schema does not declare (reported now): what remains is
				// declared here, so each scan costs at most the keys
				// reported plus this schema's properties.
				kept := g.remaining[:0]
				for _, k := range g.remaining {
					switch {
					case g.seen[k]:
					case idx.Position(props, k) < 0:
						g.add(k)
					default:
						kept = append(kept, k)
					}
				}
				g.remaining = kept
				return
			}
		}
	}
	if len(je.path) > 0 {
		group(je.path[:len(je.path)-1]).add(jsonv.SegmentText(je.path[len(je.path)-1]))
		return
	}
	group(je.path)
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

// missingMemo remembers missingProperty's work: the answer for a required
// list and an object, and the distinct names of each list.
type missingMemo struct {
	found map[[2]*jsonv.Value]missingName
	names map[*jsonv.Value][]string
}

type missingName struct {
	name string
	ok   bool
}

// requiredNames returns the distinct strings of a required list, in order,
// read once per list.
func (m *missingMemo) requiredNames(list *jsonv.Value) []string {
	if names, ok := m.names[list]; ok {
		return names
	}
	names := []string{}
	seen := map[string]bool{}
	for _, r := range list.Arr {
		if r.Kind == jsonv.KindString && !seen[r.Str] {
			seen[r.Str] = true
			names = append(names, r.Str)
		}
	}
	m.names[list] = names
	return names
}

// missingProperty names the property a required error is about. The scan
// of a required list against an object is remembered by both, so that
// entries naming the same pair cost it once.
func missingProperty(je jsonSchemaEntry, args *jsonv.Value, idx *jsonv.Index, memo *missingMemo) (string, bool) {
	if name, ok := jsonv.GetString(je.params, "missingProperty"); ok {
		return name, true
	}
	if je.value != nil && je.value.Kind == jsonv.KindArray {
		obj := args
		if len(je.path) > 0 {
			obj = idx.LookupPath(args, je.path)
		}
		key := [2]*jsonv.Value{je.value, obj}
		found, done := memo.found[key]
		if !done {
			names := memo.requiredNames(je.value)
			for _, name := range names {
				// The names are distinct, and the scan stops at the first
				// one the object lacks: it reads at most one more name than
				// the object has members.
				if obj == nil || idx.Position(obj, name) < 0 {
					found = missingName{name, true}
					break
				}
			}
			memo.found[key] = found
		}
		if found.ok {
			return found.name, true
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

// jsonSchemaHint is the suggestion for one keyword, and what a validator's
// message must name for the suggestion to say nothing more: a number (a
// bound, a length, a count, a divisor), a pattern, or type names.
type jsonSchemaHint struct {
	suggestion string
	number     string
	pattern    string
	types      []string
}

// unlessStated is the hint's suggestion, or "" when msg already states the
// constraint with its value (toolerr's own dialects state it once).
func (h jsonSchemaHint) unlessStated(msg string) string {
	switch {
	case h.suggestion == "":
		return ""
	case h.number != "":
		return unlessNumberStated(msg, h.suggestion, h.number)
	case h.pattern != "":
		if strings.Contains(msg, h.pattern) {
			return ""
		}
	case len(h.types) > 0:
		for _, t := range h.types {
			if unlessStated(msg, h.suggestion, t) != "" {
				return h.suggestion
			}
		}
		return ""
	}
	return h.suggestion
}

// requiredType is "Expected type: T." for the missing property name of a
// required error, when the schema declares it with one type; "" otherwise.
func requiredType(je jsonSchemaEntry, name string, schema *jsonv.Value, idx *jsonv.Index) string {
	if schema == nil {
		return ""
	}
	parent := idx.LookupPointer(schema, strings.TrimSuffix(je.schemaPath, "/required"))
	if t := idx.Get(idx.Get(idx.Get(parent, "properties"), name), "type"); t != nil && t.Kind == jsonv.KindString {
		return suggestType(t.Str)
	}
	return ""
}

func jsonSchemaSuggestion(je jsonSchemaEntry) jsonSchemaHint {
	num := func(name string) (string, *jsonv.Value, bool) {
		v := je.param(name)
		n, ok := boundText(v)
		return n, v, ok
	}
	switch je.keyword {
	case "type":
		var names []string
		t := je.param("type")
		switch {
		case t != nil && t.Kind == jsonv.KindString:
			names = strings.Split(t.Str, ",")
		case t != nil && t.Kind == jsonv.KindArray:
			for _, x := range t.Arr {
				if x.Kind == jsonv.KindString {
					names = append(names, x.Str)
				}
			}
		}
		if len(names) > 0 {
			return jsonSchemaHint{suggestion: suggestType(strings.Join(names, " or ")), types: names}
		}
	case "minLength", "maxLength":
		if n, v, ok := num("limit"); ok {
			return jsonSchemaHint{suggestion: suggestLength(n, isOne(v), je.keyword == "minLength"), number: n}
		}
	case "minItems", "maxItems":
		if n, v, ok := num("limit"); ok {
			return jsonSchemaHint{suggestion: suggestItems(n, isOne(v), je.keyword == "minItems"), number: n}
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		op := map[string]string{"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[je.keyword]
		if c, ok := jsonv.GetString(je.params, "comparison"); ok {
			op = c
		}
		if n, _, ok := num("limit"); ok {
			return jsonSchemaHint{suggestion: suggestBound(op, n), number: n}
		}
	case "multipleOf":
		if n, _, ok := num("multipleOf"); ok {
			return jsonSchemaHint{suggestion: suggestBound("a multiple of", n), number: n}
		}
	case "pattern":
		pattern := ""
		if p := je.param("pattern"); p != nil && p.Kind == jsonv.KindString {
			pattern = p.Str
		}
		return jsonSchemaHint{suggestion: suggestPattern, pattern: pattern}
	case "format":
		if f := je.param("format"); f != nil && f.Kind == jsonv.KindString {
			return jsonSchemaHint{suggestion: suggestAnyFormat(f.Str)}
		}
	case "enum":
		if v := je.param("allowedValues"); v != nil && v.Kind == jsonv.KindArray {
			return jsonSchemaHint{suggestion: suggestOptions(v.Arr)}
		}
	case "const":
		if v := je.param("allowedValue"); v != nil {
			return jsonSchemaHint{suggestion: suggestExactly(v)}
		}
	case "uniqueItems":
		return jsonSchemaHint{suggestion: suggestUnique}
	case "anyOf":
		return jsonSchemaHint{suggestion: suggestUnion}
	case "oneOf":
		if p := je.params.Get("passingSchemas"); p != nil && p.Kind == jsonv.KindArray {
			return jsonSchemaHint{suggestion: suggestOneOf}
		}
		return jsonSchemaHint{suggestion: suggestUnion}
	}
	return jsonSchemaHint{}
}
