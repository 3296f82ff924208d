package contract

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// The keywords compared in groups (package-level: a literal in the loop
// would be made again at each of a large schema's subschemas).
var (
	refNouns           = []string{"Reference", "Dynamic reference", "Recursive reference"}
	lowerBounds        = []string{"minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties", "minContains"}
	upperBounds        = []string{"maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties", "maxContains"}
	valueKeywords      = []string{"pattern", "format", "multipleOf", "contentEncoding", "contentMediaType", "contentSchema"}
	combinators        = []string{"anyOf", "oneOf", "allOf"}
	dependentKeywords  = []string{"dependentRequired", "dependentSchemas", "dependencies"}
	annotationKeywords = []string{"title", "description"}
	unknownKeywords    = []string{"additionalProperties", "unevaluatedProperties"}
)

// maxSchemaDepth bounds how deep two schemas are compared; a pair of
// subschemas below it that may differ is reported as a change.
const maxSchemaDepth = 64

// schemaDiff compares two JSON Schemas keyword by keyword, resolving local
// references and never visiting the same pair of subschemas twice, so
// recursive schemas terminate.
//
// Every keyword of draft-07 and 2020-12 that narrows or widens what a
// schema accepts is compared, with the severities of the reference's kinds
// of change: a keyword that takes a value away (a type, a property, an
// item, a schema its values must match) is BREAKING when it narrows, a
// constraint on a value (a bound, a pattern, a format, uniqueness) is
// RISKY, and the other direction is SAFE. A change whose direction cannot
// be told (a condition, an excluded schema) is BREAKING: backwardsCompatible
// is never claimed for it.
type schemaDiff struct {
	d                     *differ
	category              string
	beforeRoot, afterRoot *jsonv.Value
	// visited holds the pairs of subschemas compared, as resolved; merged
	// views (made afresh at each visit) are kept by the pair as written.
	visited, visitedMerged map[[2]*jsonv.Value]bool
	anchorsOf              map[*jsonv.Value]map[string]*jsonv.Value
}

func newSchemaDiff(d *differ, category string, beforeRoot, afterRoot *jsonv.Value) *schemaDiff {
	return &schemaDiff{
		d: d, category: category, beforeRoot: beforeRoot, afterRoot: afterRoot,
		visited: map[[2]*jsonv.Value]bool{}, visitedMerged: map[[2]*jsonv.Value]bool{},
		anchorsOf: map[*jsonv.Value]map[string]*jsonv.Value{},
	}
}

func (s *schemaDiff) add(field, severity, description string, before, after *jsonv.Value) {
	s.d.add(s.category, field, severity, description, before, after)
}

// trivial reports whether v accepts every value: true or {}.
func trivial(v *jsonv.Value) bool {
	return v != nil && (v.Kind == jsonv.KindBool && v.Bool || v.Kind == jsonv.KindObject && len(v.Members) == 0)
}

func isFalse(v *jsonv.Value) bool { return v != nil && v.Kind == jsonv.KindBool && !v.Bool }

// typeSet returns the distinct types v names, sorted.
func (d *differ) typeSet(v *jsonv.Value) []string {
	t := get(v, "type")
	switch {
	case t == nil:
		return nil
	case t.Kind == jsonv.KindString:
		return []string{t.Str}
	case t.Kind == jsonv.KindArray:
		d.charge(len(t.Arr))
		var out []string
		for _, x := range t.Arr {
			if x.Kind == jsonv.KindString {
				out = append(out, x.Str)
			}
		}
		sort.Strings(out)
		return slices.Compact(out)
	}
	return nil
}

// accepts reports whether a schema of types set (sorted) accepts JSON type
// t.
func accepts(set []string, t string) bool {
	has := func(s string) bool {
		i := sort.SearchStrings(set, s)
		return i < len(set) && set[i] == s
	}
	return has(t) || (t == "integer" && has("number"))
}

// names returns the strings of the array v, in order and each once, and
// them as a set.
func names(v *jsonv.Value) ([]string, map[string]bool) {
	if v == nil || v.Kind != jsonv.KindArray || len(v.Arr) == 0 {
		return nil, nil // read as empty; nothing allocated for the common case
	}
	var out []string
	set := make(map[string]bool, len(v.Arr))
	for _, x := range v.Arr {
		if x.Kind == jsonv.KindString && !set[x.Str] {
			set[x.Str] = true
			out = append(out, x.Str)
		}
	}
	return out, set
}

// size is the number of members or items of v (0 for nil and scalars).
func size(v *jsonv.Value) int {
	if v == nil {
		return 0
	}
	return len(v.Members) + len(v.Arr)
}

// compare reports the deltas between the subschemas before and after (nil
// for absent: nothing is compared), at field, named label in descriptions.
func (s *schemaDiff) compare(field, label string, before, after *jsonv.Value, depth int) {
	d := s.d
	if before == nil || after == nil || d.over {
		return
	}
	bv, av := s.view(s.beforeRoot, before), s.view(s.afterRoot, after)
	b, a := bv.schema, av.schema
	if b == nil || a == nil || d.over {
		return
	}
	visited, key := s.visited, [2]*jsonv.Value{b, a}
	if bv.merged || av.merged {
		visited, key = s.visitedMerged, [2]*jsonv.Value{before, after}
	}
	if visited[key] {
		return
	}
	visited[key] = true
	if d.charge(1 + size(b) + size(a)); d.over {
		return
	}
	if depth > maxSchemaDepth {
		// Not compared: a change there is reported, never passed over as
		// compatible. Subschemas equal as written are unchanged, unless a
		// reference in them may point at a definition that changed.
		if !d.same(b, a) || d.hasRef(b) || d.hasRef(a) {
			s.add(field, "BREAKING", "Schema of "+label+" is nested more than "+strconv.Itoa(maxSchemaDepth)+" levels deep and was not compared", nil, nil)
		}
		return
	}
	if b.Kind == jsonv.KindBool || a.Kind == jsonv.KindBool {
		if !d.same(b, a) && !(trivial(b) && trivial(a)) {
			severity := "BREAKING"
			if trivial(a) || isFalse(b) { // everything is accepted now, or nothing was before
				severity = "SAFE"
			}
			s.add(field, severity, "Schema of "+label+" changed", b, a)
		}
		return
	}
	if bv.beside != nil || av.beside != nil {
		if !d.same(bv.beside, av.beside) {
			s.add(field, "BREAKING", "Keywords beside the reference of "+label+" changed and were not compared", bv.beside, av.beside)
		}
	}
	s.references(field, label, b, a)
	s.types(field, label, b, a)
	s.object(field, label, b, a, depth)
	s.values(field, label, b, a)
	s.array(field, label, b, a, depth)
	s.logic(field, label, b, a, depth)
	for _, kw := range annotationKeywords {
		if bk, ak := get(b, kw), get(a, kw); depth > 0 && !d.same(bk, ak) {
			s.add(field+"."+kw, "COSMETIC", upper(kw)+" of "+label+" changed", bk, ak)
		}
	}
}

// references compares the references a view still holds: left unresolved
// (outside the schema, or to nowhere), they are compared as written, their
// targets not being known here, so a new one may accept less.
func (s *schemaDiff) references(field, label string, b, a *jsonv.Value) {
	for i, kw := range refKeywords {
		noun := refNouns[i]
		bk, ak := get(b, kw), get(a, kw)
		if s.d.same(bk, ak) {
			continue
		}
		switch {
		case ak == nil:
			s.add(field+"."+kw, "SAFE", noun+" of "+label+" was removed", bk, nil)
		case bk == nil:
			s.add(field+"."+kw, "BREAKING", noun+" of "+label+" was added", nil, ak)
		default:
			s.add(field+"."+kw, "BREAKING", noun+" of "+label+" changed", bk, ak)
		}
	}
}

func (s *schemaDiff) types(field, label string, b, a *jsonv.Value) {
	d := s.d
	if d.same(get(b, "type"), get(a, "type")) {
		return
	}
	bt, at := d.typeSet(b), d.typeSet(a)
	bk, ak := get(b, "type"), get(a, "type")
	switch {
	case len(bt) == 0:
		s.add(field+".type", "BREAKING", "Type of "+label+" narrowed to "+strings.Join(at, " or "), nil, ak)
		return
	case len(at) == 0:
		s.add(field+".type", "SAFE", "Type of "+label+" no longer restricted", bk, nil)
		return
	}
	narrowed, widened := false, false
	for _, t := range bt {
		if !accepts(at, t) {
			narrowed = true
		}
	}
	for _, t := range at {
		if !accepts(bt, t) {
			widened = true
		}
	}
	from, to := strings.Join(bt, " or "), strings.Join(at, " or ")
	switch {
	case !narrowed && !widened:
		// The same set of types written differently: no change.
	case narrowed && widened:
		s.add(field+".type", "BREAKING", "Type of "+label+" changed from "+from+" to "+to, bk, ak)
	case narrowed:
		s.add(field+".type", "BREAKING", "Type of "+label+" narrowed from "+from+" to "+to, bk, ak)
	default:
		s.add(field+".type", "SAFE", "Type of "+label+" widened from "+from+" to "+to, bk, ak)
	}
}

// object compares the keywords about an object's members.
func (s *schemaDiff) object(field, label string, b, a *jsonv.Value, depth int) {
	d := s.d
	bp, ap := get(b, "properties"), get(a, "properties")
	brNames, br := names(get(b, "required"))
	arNames, ar := names(get(a, "required"))
	d.charge(size(bp) + size(ap) + len(brNames) + len(arNames))
	if bp != nil {
		for _, m := range bp.Members {
			if d.charge(len(field)); d.over { // the field is written again for each
				return
			}
			sub := propertyField(field, m.Key)
			if get(ap, m.Key) == nil {
				s.add(sub, "BREAKING", "Property "+strconv.Quote(m.Key)+" of "+label+" was removed", m.Value, nil)
				continue
			}
			if ar[m.Key] && !br[m.Key] {
				s.add(sub, "BREAKING", "Property "+strconv.Quote(m.Key)+" of "+label+" is now required", nil, nil)
			} else if br[m.Key] && !ar[m.Key] {
				s.add(sub, "SAFE", "Property "+strconv.Quote(m.Key)+" of "+label+" is no longer required", nil, nil)
			}
			s.compare(sub, strconv.Quote(m.Key), m.Value, get(ap, m.Key), depth+1)
		}
	}
	if ap != nil {
		for _, m := range ap.Members {
			if d.charge(len(field)); d.over {
				return
			}
			if get(bp, m.Key) != nil {
				continue
			}
			if ar[m.Key] {
				s.add(propertyField(field, m.Key), "BREAKING", "Required property "+strconv.Quote(m.Key)+" was added to "+label, nil, m.Value)
			} else {
				s.add(propertyField(field, m.Key), "SAFE", "Optional property "+strconv.Quote(m.Key)+" was added to "+label, nil, m.Value)
			}
		}
	}
	// Names required without a schema of their own.
	for _, name := range arNames {
		if !br[name] && get(bp, name) == nil && get(ap, name) == nil {
			s.add(propertyField(field, name), "BREAKING", "Property "+strconv.Quote(name)+" of "+label+" is now required", nil, nil)
		}
	}
	for _, name := range brNames {
		if !ar[name] && get(bp, name) == nil && get(ap, name) == nil {
			s.add(propertyField(field, name), "SAFE", "Property "+strconv.Quote(name)+" of "+label+" is no longer required", nil, nil)
		}
	}
	s.patternProperties(field, label, b, a, depth)
	s.slot(field, "additionalProperties", label, "Unknown properties", b, a, depth)
	s.slot(field, "unevaluatedProperties", label, "Unevaluated properties", b, a, depth)
	s.slot(field, "propertyNames", label, "Property names", b, a, depth)
	s.dependencies(field, label, b, a, depth)
}

// members is the union of the member names of two objects: before's in
// order, then after's that before lacks.
func (d *differ) members(b, a *jsonv.Value) []string {
	var out []string
	if b != nil && b.Kind == jsonv.KindObject {
		for _, m := range b.Members {
			out = append(out, m.Key)
		}
	}
	if a != nil && a.Kind == jsonv.KindObject {
		for _, m := range a.Members {
			if get(b, m.Key) == nil {
				out = append(out, m.Key)
			}
		}
	}
	d.charge(len(out))
	return out
}

// patternProperties compares the schemas of the property names matching
// each pattern. A new pattern narrows what those properties may be, unless
// before refused unknown properties (they were not accepted at all); a
// pattern removed leaves its properties to additionalProperties, which
// narrows unless that accepts anything.
func (s *schemaDiff) patternProperties(field, label string, b, a *jsonv.Value, depth int) {
	d := s.d
	bp, ap := get(b, "patternProperties"), get(a, "patternProperties")
	if bp == nil && ap == nil {
		return
	}
	base := field + ".patternProperties"
	for _, p := range d.members(bp, ap) {
		if d.over {
			return
		}
		bs, as := get(bp, p), get(ap, p)
		sub := propertyField(base, p)
		switch {
		case as == nil:
			severity := "SAFE"
			if !s.acceptsUnknown(s.afterRoot, a) {
				severity = "BREAKING"
			}
			s.add(sub, severity, "Pattern property "+strconv.Quote(p)+" of "+label+" was removed", bs, nil)
		case bs == nil:
			severity := "BREAKING"
			if s.refusesUnknown(s.beforeRoot, b) {
				severity = "SAFE"
			}
			s.add(sub, severity, "Pattern property "+strconv.Quote(p)+" was added to "+label, nil, as)
		default:
			s.compare(sub, "the properties of "+label+" matching "+strconv.Quote(p), bs, as, depth+1)
		}
	}
}

// acceptsUnknown reports whether the object schema v accepts any property
// that its properties and patterns do not name.
func (s *schemaDiff) acceptsUnknown(root, v *jsonv.Value) bool {
	for _, kw := range unknownKeywords {
		if x := get(v, kw); x != nil && !trivial(s.view(root, x).schema) {
			return false
		}
	}
	return true
}

// refusesUnknown reports whether the object schema v refuses every
// property that its properties and patterns do not name.
func (s *schemaDiff) refusesUnknown(root, v *jsonv.Value) bool {
	ap := get(v, "additionalProperties")
	if ap != nil {
		return isFalse(s.view(root, ap).schema)
	}
	up := get(v, "unevaluatedProperties")
	return up != nil && isFalse(s.view(root, up).schema)
}

// slot compares the keyword kw of b and a whose subschema applies to some
// of the instance's members or items and whose absence accepts them all
// (additionalProperties, unevaluatedProperties, propertyNames, items,
// additionalItems, unevaluatedItems); noun names what it applies to
// ("Unknown properties").
func (s *schemaDiff) slot(field, kw, label, noun string, b, a *jsonv.Value, depth int) {
	if bk, ak := get(b, kw), get(a, kw); bk != nil || ak != nil {
		s.slotValues(field+"."+kw, label, noun, bk, ak, depth)
	}
}

func (s *schemaDiff) slotValues(field, label, noun string, bk, ak *jsonv.Value, depth int) {
	if bk == nil && ak == nil || s.d.over {
		return
	}
	var bs, as *jsonv.Value
	if bk != nil {
		bs = s.view(s.beforeRoot, bk).schema
	}
	if ak != nil {
		as = s.view(s.afterRoot, ak).schema
	}
	bOpen, aOpen := bk == nil || trivial(bs), ak == nil || trivial(as)
	subject := noun + " of " + label
	switch {
	case bOpen && aOpen, isFalse(bs) && isFalse(as):
	case isFalse(as):
		s.add(field, "BREAKING", subject+" are no longer accepted", bk, ak)
	case isFalse(bs):
		s.add(field, "SAFE", subject+" are now accepted", bk, ak)
	case bOpen:
		s.add(field, "BREAKING", subject+" are now restricted", bk, ak)
	case aOpen:
		s.add(field, "SAFE", subject+" are no longer restricted", bk, ak)
	default:
		s.compare(field, "the "+strings.ToLower(noun[:1])+noun[1:]+" of "+label, bk, ak, depth+1)
	}
}

// optional compares two subschemas of which either may be absent, an
// absent one accepting everything (then, else, a dependent schema, a tuple
// item beyond the other's tuple).
func (s *schemaDiff) optional(field, label string, bk, ak *jsonv.Value, depth int) {
	switch {
	case bk == nil && ak == nil:
	case bk == nil:
		if !trivial(s.view(s.afterRoot, ak).schema) {
			s.add(field, "BREAKING", "Schema of "+label+" was added", nil, ak)
		}
	case ak == nil:
		if !trivial(s.view(s.beforeRoot, bk).schema) {
			s.add(field, "SAFE", "Schema of "+label+" was removed", bk, nil)
		}
	default:
		s.compare(field, label, bk, ak, depth+1)
	}
}

// dependencies compares dependentRequired, dependentSchemas and draft-07's
// dependencies (a list of names, or a schema, per property).
func (s *schemaDiff) dependencies(field, label string, b, a *jsonv.Value, depth int) {
	d := s.d
	for _, kw := range dependentKeywords {
		bd, ad := get(b, kw), get(a, kw)
		if bd == nil && ad == nil {
			continue
		}
		for _, k := range d.members(bd, ad) {
			if d.over {
				return
			}
			bk, ak := get(bd, k), get(ad, k)
			sub := propertyField(field+"."+kw, k)
			when := label + " when " + strconv.Quote(k) + " is present"
			isList := func(v *jsonv.Value) bool { return v == nil || v.Kind == jsonv.KindArray }
			if kw == "dependentRequired" || kw == "dependencies" && isList(bk) && isList(ak) {
				s.requiredWhen(sub, label, k, bk, ak)
				continue
			}
			if kw == "dependencies" { // a list on one side only: the schema it stands for
				bk, ak = requiredSchema(bk), requiredSchema(ak)
			}
			s.optional(sub, when, bk, ak, depth)
		}
	}
}

// requiredSchema is {"required": v} for a draft-07 dependency written as a
// list of names, and v itself otherwise.
func requiredSchema(v *jsonv.Value) *jsonv.Value {
	if v == nil || v.Kind != jsonv.KindArray {
		return v
	}
	return &jsonv.Value{Kind: jsonv.KindObject, Members: []jsonv.Member{{Key: "required", Value: v}}}
}

// requiredWhen compares the names required when property k is present.
func (s *schemaDiff) requiredWhen(field, label, k string, bk, ak *jsonv.Value) {
	bNames, bSet := names(bk)
	aNames, aSet := names(ak)
	s.d.charge(len(bNames) + len(aNames))
	when := " when " + strconv.Quote(k) + " is present"
	for _, n := range aNames {
		if !bSet[n] {
			s.add(field, "BREAKING", "Property "+strconv.Quote(n)+" of "+label+" is now required"+when, nil, nil)
		}
	}
	for _, n := range bNames {
		if !aSet[n] {
			s.add(field, "SAFE", "Property "+strconv.Quote(n)+" of "+label+" is no longer required"+when, nil, nil)
		}
	}
}

// values compares what a value must be: enum, const, bounds, pattern,
// format, content, uniqueness, default.
func (s *schemaDiff) values(field, label string, b, a *jsonv.Value) {
	d := s.d
	s.enum(field, label, get(b, "enum"), get(a, "enum"))
	if bk, ak := get(b, "const"), get(a, "const"); !d.same(bk, ak) {
		severity := "BREAKING"
		if ak == nil {
			severity = "SAFE"
		}
		s.add(field+".const", severity, "Constant value of "+label+" changed", bk, ak)
	}
	// Bounds: a raised minimum or a lowered maximum tightens.
	for _, kw := range lowerBounds {
		s.bound(field, label, kw, get(b, kw), get(a, kw), true)
	}
	for _, kw := range upperBounds {
		s.bound(field, label, kw, get(b, kw), get(a, kw), false)
	}
	for _, kw := range valueKeywords {
		if bk, ak := get(b, kw), get(a, kw); !d.same(bk, ak) {
			severity := "RISKY"
			verb := "changed"
			if ak == nil {
				severity, verb = "SAFE", "was removed"
			} else if bk == nil {
				verb = "was added"
			}
			s.add(field+"."+kw, severity, upper(kw)+" of "+label+" "+verb, bk, ak)
		}
	}
	if bu, au := boolOr(get(b, "uniqueItems"), false), boolOr(get(a, "uniqueItems"), false); bu != au {
		if au {
			s.add(field+".uniqueItems", "RISKY", "Items of "+label+" must now be unique", get(b, "uniqueItems"), get(a, "uniqueItems"))
		} else {
			s.add(field+".uniqueItems", "SAFE", "Items of "+label+" no longer need to be unique", get(b, "uniqueItems"), get(a, "uniqueItems"))
		}
	}
	if bk, ak := get(b, "default"), get(a, "default"); !d.same(bk, ak) {
		s.add(field+".default", "RISKY", "Default of "+label+" changed", bk, ak)
	}
}

func (s *schemaDiff) enum(field, label string, before, after *jsonv.Value) {
	d := s.d
	if d.same(before, after) {
		return
	}
	switch {
	case after == nil:
		s.add(field+".enum", "SAFE", "Allowed values of "+label+" are no longer restricted", before, nil)
		return
	case before == nil || before.Kind != jsonv.KindArray || after.Kind != jsonv.KindArray:
		s.add(field+".enum", "BREAKING", "Allowed values of "+label+" are now restricted", before, after)
		return
	}
	// Each value is written once as canonical JSON, which equal values
	// share: the two lists are compared through a set of those texts,
	// not value against value.
	texts := func(list *jsonv.Value) ([]string, map[string]bool) {
		out := make([]string, len(list.Arr))
		set := make(map[string]bool, len(list.Arr))
		for i, v := range list.Arr {
			if d.over {
				break
			}
			out[i] = string(jsonv.AppendValue(nil, v))
			d.charge(1 + len(out[i]))
			set[out[i]] = true
		}
		return out, set
	}
	bt, bset := texts(before)
	at, aset := texts(after)
	if d.over {
		return
	}
	for i, v := range before.Arr {
		if d.over {
			return
		}
		if !aset[bt[i]] {
			s.add(field+".enum", "BREAKING", "Value "+bt[i]+" of "+label+" is no longer allowed", v, nil)
		}
	}
	for i, v := range after.Arr {
		if d.over {
			return
		}
		if !bset[at[i]] {
			s.add(field+".enum", "SAFE", "Value "+at[i]+" of "+label+" is now allowed", nil, v)
		}
	}
}

// bound compares a numeric keyword; lower says a larger value tightens.
// Draft-04's exclusiveMinimum and exclusiveMaximum are booleans that make
// minimum and maximum exclusive: turned on they tighten.
func (s *schemaDiff) bound(field, label, kw string, before, after *jsonv.Value, lower bool) {
	if s.d.same(before, after) {
		return
	}
	b, bok := numOK(before)
	a, aok := numOK(after)
	var tightened bool
	switch bFlag, aFlag := boolOr(before, false), boolOr(after, false); {
	case before != nil && before.Kind == jsonv.KindBool || after != nil && after.Kind == jsonv.KindBool:
		if bok || aok { // a draft-04 flag against a number: the same bound may be written either way
			s.add(field+"."+kw, "RISKY", upper(kw)+" of "+label+" changed", before, after)
			return
		}
		if bFlag == aFlag {
			return
		}
		tightened = aFlag
	case !aok:
		tightened = false // removed
	case !bok:
		tightened = true // added
	case lower:
		tightened = a > b
	default:
		tightened = a < b
	}
	severity, verb := "SAFE", "loosened"
	if tightened {
		severity, verb = "RISKY", "tightened"
	}
	desc := kw + " of " + label + " " + verb
	if bok && aok {
		desc += " from " + jsonv.FormatNumber(b) + " to " + jsonv.FormatNumber(a)
	}
	s.add(field+"."+kw, severity, upper(desc), before, after)
}

func upper(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// numOK returns v's number, and false when v is not a number.
func numOK(v *jsonv.Value) (float64, bool) {
	if v == nil || v.Kind != jsonv.KindNumber {
		return 0, false
	}
	return v.Num, true
}

// tuple is how a schema constrains an array's items: a schema per
// position (prefixItems, or draft-07's items array), and one for the items
// after them (items, or draft-07's additionalItems; nil accepts all).
type tuple struct {
	positions       []*jsonv.Value
	positionKeyword string // "" with no positions
	rest            *jsonv.Value
	restKeyword     string
}

// at is the schema of position i.
func (t tuple) at(i int) *jsonv.Value {
	if i < len(t.positions) {
		return t.positions[i]
	}
	return t.rest
}

func tupleOf(v *jsonv.Value) tuple {
	if p := get(v, "prefixItems"); p != nil && p.Kind == jsonv.KindArray {
		return tuple{p.Arr, "prefixItems", get(v, "items"), "items"}
	}
	if it := get(v, "items"); it != nil && it.Kind == jsonv.KindArray {
		return tuple{it.Arr, "items", get(v, "additionalItems"), "additionalItems"}
	}
	return tuple{nil, "", get(v, "items"), "items"}
}

// array compares the keywords about an array's items: each position
// against what applied to it on the other side, then the items after
// them, contains and unevaluatedItems.
func (s *schemaDiff) array(field, label string, b, a *jsonv.Value, depth int) {
	d := s.d
	bt, at := tupleOf(b), tupleOf(a)
	n := max(len(bt.positions), len(at.positions))
	d.charge(n)
	positionKeyword := at.positionKeyword
	if positionKeyword == "" {
		positionKeyword = bt.positionKeyword
	}
	for i := 0; i < n && !d.over; i++ {
		s.optional(field+"."+positionKeyword+"."+strconv.Itoa(i), "item "+strconv.Itoa(i)+" of "+label, bt.at(i), at.at(i), depth)
	}
	restKeyword := at.restKeyword
	if at.rest == nil {
		restKeyword = bt.restKeyword
	}
	noun := "Items"
	if n > 0 {
		noun = "Additional items"
	}
	if bt.rest != nil || at.rest != nil {
		s.slotValues(field+"."+restKeyword, label, noun, bt.rest, at.rest, depth)
	}
	s.slot(field, "unevaluatedItems", label, "Unevaluated items", b, a, depth)

	bc, ac := get(b, "contains"), get(a, "contains")
	switch {
	case bc == nil && ac == nil:
	case bc == nil:
		s.add(field+".contains", "BREAKING", "Required item of "+label+" was added", nil, ac)
	case ac == nil:
		s.add(field+".contains", "SAFE", "Required item of "+label+" was removed", bc, nil)
	default:
		s.compare(field+".contains", "the required item of "+label, bc, ac, depth+1)
	}
}

// logic compares the applicators that combine subschemas: anyOf, oneOf,
// allOf, not, and if with then and else.
func (s *schemaDiff) logic(field, label string, b, a *jsonv.Value, depth int) {
	d := s.d
	for _, kw := range combinators {
		bk, ak := get(b, kw), get(a, kw)
		if bk == nil || ak == nil || bk.Kind != jsonv.KindArray || ak.Kind != jsonv.KindArray {
			if !d.same(bk, ak) {
				s.add(field+"."+kw, "RISKY", upper(kw)+" of "+label+" changed", bk, ak)
			}
			continue
		}
		if len(bk.Arr) != len(ak.Arr) {
			s.add(field+"."+kw, "RISKY", "Alternatives of "+label+" changed", bk, ak)
			continue
		}
		if d.charge(len(bk.Arr)); d.over {
			return
		}
		for i := range bk.Arr {
			if d.over {
				return
			}
			s.compare(field+"."+kw+"."+strconv.Itoa(i), label, bk.Arr[i], ak.Arr[i], depth+1)
		}
	}

	// not: narrower inside is wider outside, so a change either way may
	// narrow what is accepted.
	switch bn, an := get(b, "not"), get(a, "not"); {
	case bn == nil && an == nil:
	case bn == nil:
		s.add(field+".not", "BREAKING", "Excluded schema of "+label+" was added", nil, an)
	case an == nil:
		s.add(field+".not", "SAFE", "Excluded schema of "+label+" was removed", bn, nil)
	case s.differs(field+".not", label, bn, an, depth):
		s.add(field+".not", "BREAKING", "Excluded schema of "+label+" changed", bn, an)
	}

	// if applies only with a then or an else.
	bi, ai := get(b, "if"), get(a, "if")
	bOn := bi != nil && (get(b, "then") != nil || get(b, "else") != nil)
	aOn := ai != nil && (get(a, "then") != nil || get(a, "else") != nil)
	switch {
	case !bOn && !aOn:
	case !bOn:
		s.add(field+".if", "BREAKING", "Condition of "+label+" was added", nil, ai)
	case !aOn:
		s.add(field+".if", "SAFE", "Condition of "+label+" was removed", bi, nil)
	case s.differs(field+".if", label, bi, ai, depth):
		s.add(field+".if", "BREAKING", "Condition of "+label+" changed", bi, ai)
	default:
		s.optional(field+".then", label+" when its condition holds", get(b, "then"), get(a, "then"), depth)
		s.optional(field+".else", label+" when its condition fails", get(b, "else"), get(a, "else"), depth)
	}
}

// differs reports whether comparing bk with ak finds a change other than a
// cosmetic one; the deltas found are not kept (the caller reports the
// change as a whole).
func (s *schemaDiff) differs(field, label string, bk, ak *jsonv.Value, depth int) bool {
	d := s.d
	mark := len(d.deltas)
	// Compared afresh: a pair met before along another path was compared
	// there in the other direction.
	inner := *s
	inner.visited, inner.visitedMerged = map[[2]*jsonv.Value]bool{}, map[[2]*jsonv.Value]bool{}
	inner.compare(field, label, bk, ak, depth+1)
	found := false
	for _, x := range d.deltas[mark:] {
		if x.Severity != "COSMETIC" {
			found = true
		}
	}
	d.deltas = d.deltas[:mark]
	return found
}
