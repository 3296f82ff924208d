package contract

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// severityRank orders delta severities, most severe first.
var severityRank = map[string]int{"BREAKING": 0, "RISKY": 1, "SAFE": 2, "COSMETIC": 3}

// differ collects the deltas between two contracts.
type differ struct {
	deltas []Delta
}

func (d *differ) add(category, field, severity, description string, before, after *jsonv.Value) {
	d.deltas = append(d.deltas, Delta{
		Category: category, Field: field, Severity: severity, Description: description,
		Before: valueText(before), After: valueText(after),
	})
}

// valueText is a delta's before/after: a string as it is, anything else as
// compact JSON, nil as null.
func valueText(v *jsonv.Value) *string {
	if v == nil {
		return nil
	}
	s := string(jsonv.AppendValue(nil, v))
	if v.Kind == jsonv.KindString {
		s = v.Str
	}
	return &s
}

// diffContracts compares two lockfiles: the deltas sorted by severity then
// field, as the relevance rule of contract awareness expects them.
func diffContracts(before, after *Lockfile) []Delta {
	d := &differ{}
	for _, b := range before.tools {
		a := after.find(b.name)
		field := "actions." + b.name
		if a == nil {
			d.add("surface", field, "BREAKING", "Tool \""+b.name+"\" was removed", strValue(b.name), nil)
			continue
		}
		if a.digest != b.digest {
			d.tool(b.name, b.contract, a.contract)
		}
	}
	for _, a := range after.tools {
		if before.find(a.name) == nil {
			d.add("surface", "actions."+a.name, "SAFE", "Tool \""+a.name+"\" was added", nil, strValue(a.name))
		}
	}
	sort.SliceStable(d.deltas, func(i, j int) bool {
		x, y := d.deltas[i], d.deltas[j]
		if severityRank[x.Severity] != severityRank[y.Severity] {
			return severityRank[x.Severity] < severityRank[y.Severity]
		}
		if x.Field != y.Field {
			return x.Field < y.Field
		}
		return x.Description < y.Description
	})
	return d.deltas
}

func strValue(s string) *jsonv.Value { return &jsonv.Value{Kind: jsonv.KindString, Str: s} }

func (d *differ) tool(name string, before, after *jsonv.Value) {
	field := "actions." + name
	for _, f := range []string{"title", "description"} {
		if b, a := before.Get(f), after.Get(f); !sameValue(b, a) {
			d.add("surface", field+"."+f, "COSMETIC", "Tool \""+name+"\" "+f+" changed", b, a)
		}
	}
	d.annotations(name, before.Get("annotations"), after.Get("annotations"))
	s := &schemaDiff{d: d, category: "surface.input", beforeRoot: before.Get("inputSchema"), afterRoot: after.Get("inputSchema"), visited: map[[2]*jsonv.Value]bool{}}
	s.compare(field+".input", "input", s.beforeRoot, s.afterRoot, 0)
	if b, a := before.Get("outputSchema"), after.Get("outputSchema"); !sameValue(b, a) {
		severity := "RISKY"
		if b == nil {
			severity = "SAFE"
		}
		d.add("surface.output", field+".output", severity, "Tool \""+name+"\" output schema changed", b, a)
	}
}

// annotationRisk says which direction of each MCP hint is riskier, and the
// hint's default when absent.
var annotationRisk = []struct {
	hint        string
	def, risky  bool
	description string
}{
	{"readOnlyHint", false, false, "no longer read-only"},
	{"destructiveHint", true, true, "may now be destructive"},
	{"idempotentHint", false, false, "no longer idempotent"},
	{"openWorldHint", true, true, "may now reach an open world"},
}

func (d *differ) annotations(name string, before, after *jsonv.Value) {
	field := "actions." + name + ".annotations"
	for _, r := range annotationRisk {
		b, a := before.Get(r.hint), after.Get(r.hint)
		bv, av := boolOr(b, r.def), boolOr(a, r.def)
		if bv == av {
			continue
		}
		if av == r.risky {
			d.add("surface.annotations", field+"."+r.hint, "RISKY", "Tool \""+name+"\" "+r.description, b, a)
		} else {
			d.add("surface.annotations", field+"."+r.hint, "SAFE", "Tool \""+name+"\" "+r.hint+" changed to "+strconv.FormatBool(av), b, a)
		}
	}
	if b, a := before.Get("title"), after.Get("title"); !sameValue(b, a) {
		d.add("surface.annotations", field+".title", "COSMETIC", "Tool \""+name+"\" annotation title changed", b, a)
	}
}

func boolOr(v *jsonv.Value, def bool) bool {
	if v != nil && v.Kind == jsonv.KindBool {
		return v.Bool
	}
	return def
}

// sameValue reports whether a and b are the same JSON value, whatever the
// order of their object members.
func sameValue(a, b *jsonv.Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case jsonv.KindNull:
		return true
	case jsonv.KindBool:
		return a.Bool == b.Bool
	case jsonv.KindNumber:
		return a.Num == b.Num
	case jsonv.KindString:
		return a.Str == b.Str
	case jsonv.KindArray:
		if len(a.Arr) != len(b.Arr) {
			return false
		}
		for i := range a.Arr {
			if !sameValue(a.Arr[i], b.Arr[i]) {
				return false
			}
		}
		return true
	}
	if len(a.Members) != len(b.Members) {
		return false
	}
	for _, m := range a.Members {
		if !sameValue(m.Value, b.Get(m.Key)) {
			return false
		}
	}
	return true
}

// maxSchemaDepth bounds how deep two schemas are compared.
const maxSchemaDepth = 64

// schemaDiff compares two JSON Schemas keyword by keyword, resolving local
// $refs and never visiting the same pair of subschemas twice, so recursive
// schemas terminate.
type schemaDiff struct {
	d                     *differ
	category              string
	beforeRoot, afterRoot *jsonv.Value
	visited               map[[2]*jsonv.Value]bool
}

// resolve follows local $refs ("#/...") up to a bound.
func resolve(root, v *jsonv.Value) *jsonv.Value {
	for i := 0; i < 32 && v != nil && v.Kind == jsonv.KindObject; i++ {
		ref, ok := jsonv.GetString(v, "$ref")
		if !ok || !strings.HasPrefix(ref, "#") {
			return v
		}
		target := jsonv.LookupPointer(root, ref)
		if ref == "#" {
			target = root
		}
		if target == nil || target == v {
			return v
		}
		v = target
	}
	return v
}

func typeSet(v *jsonv.Value) []string {
	t := v.Get("type")
	switch {
	case t == nil:
		return nil
	case t.Kind == jsonv.KindString:
		return []string{t.Str}
	case t.Kind == jsonv.KindArray:
		var out []string
		for _, x := range t.Arr {
			if x.Kind == jsonv.KindString {
				out = append(out, x.Str)
			}
		}
		sort.Strings(out)
		return out
	}
	return nil
}

// accepts reports whether a schema of types set accepts JSON type t.
func accepts(set []string, t string) bool {
	for _, s := range set {
		if s == t || (s == "number" && t == "integer") {
			return true
		}
	}
	return false
}

func requiredSet(v *jsonv.Value) map[string]bool {
	out := map[string]bool{}
	if r := v.Get("required"); r != nil && r.Kind == jsonv.KindArray {
		for _, x := range r.Arr {
			if x.Kind == jsonv.KindString {
				out[x.Str] = true
			}
		}
	}
	return out
}

func closed(v *jsonv.Value) bool {
	ap := v.Get("additionalProperties")
	return ap != nil && ap.Kind == jsonv.KindBool && !ap.Bool
}

func (s *schemaDiff) compare(field, label string, before, after *jsonv.Value, depth int) {
	before, after = resolve(s.beforeRoot, before), resolve(s.afterRoot, after)
	if before == nil || after == nil || depth > maxSchemaDepth {
		return
	}
	key := [2]*jsonv.Value{before, after}
	if s.visited[key] {
		return
	}
	s.visited[key] = true
	add := func(field, severity, description string, b, a *jsonv.Value) {
		s.d.add(s.category, field, severity, description, b, a)
	}
	if before.Kind == jsonv.KindBool || after.Kind == jsonv.KindBool {
		if !sameValue(before, after) {
			severity := "BREAKING"
			if after.Kind == jsonv.KindBool && after.Bool {
				severity = "SAFE"
			}
			add(field, severity, "Schema of "+label+" changed", before, after)
		}
		return
	}

	// Types.
	bt, at := typeSet(before), typeSet(after)
	if !sameValue(before.Get("type"), after.Get("type")) {
		switch {
		case len(bt) == 0:
			add(field+".type", "BREAKING", "Type of "+label+" narrowed to "+strings.Join(at, " or "), nil, after.Get("type"))
		case len(at) == 0:
			add(field+".type", "SAFE", "Type of "+label+" no longer restricted", before.Get("type"), nil)
		default:
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
			switch {
			case !narrowed && !widened:
				// The same set of types written differently: no change.
			case narrowed && widened:
				add(field+".type", "BREAKING", "Type of "+label+" changed from "+strings.Join(bt, " or ")+" to "+strings.Join(at, " or "), before.Get("type"), after.Get("type"))
			case narrowed:
				add(field+".type", "BREAKING", "Type of "+label+" narrowed from "+strings.Join(bt, " or ")+" to "+strings.Join(at, " or "), before.Get("type"), after.Get("type"))
			default:
				add(field+".type", "SAFE", "Type of "+label+" widened from "+strings.Join(bt, " or ")+" to "+strings.Join(at, " or "), before.Get("type"), after.Get("type"))
			}
		}
	}

	// Object properties.
	bp, ap := before.Get("properties"), after.Get("properties")
	br, ar := requiredSet(before), requiredSet(after)
	if bp != nil {
		for _, m := range bp.Members {
			sub := field + "." + m.Key
			if ap.Get(m.Key) == nil {
				add(sub, "BREAKING", "Property "+strconv.Quote(m.Key)+" of "+label+" was removed", m.Value, nil)
				continue
			}
			if ar[m.Key] && !br[m.Key] {
				add(sub, "BREAKING", "Property "+strconv.Quote(m.Key)+" of "+label+" is now required", nil, nil)
			} else if br[m.Key] && !ar[m.Key] {
				add(sub, "SAFE", "Property "+strconv.Quote(m.Key)+" of "+label+" is no longer required", nil, nil)
			}
			s.compare(sub, strconv.Quote(m.Key), m.Value, ap.Get(m.Key), depth+1)
		}
	}
	if ap != nil {
		for _, m := range ap.Members {
			if bp.Get(m.Key) != nil {
				continue
			}
			if ar[m.Key] {
				add(field+"."+m.Key, "BREAKING", "Required property "+strconv.Quote(m.Key)+" was added to "+label, nil, m.Value)
			} else {
				add(field+"."+m.Key, "SAFE", "Optional property "+strconv.Quote(m.Key)+" was added to "+label, nil, m.Value)
			}
		}
	}
	for name := range ar {
		if !br[name] && bp.Get(name) == nil && ap.Get(name) == nil {
			add(field+"."+name, "BREAKING", "Property "+strconv.Quote(name)+" of "+label+" is now required", nil, nil)
		}
	}
	if closed(after) && !closed(before) {
		add(field+".additionalProperties", "BREAKING", "Unknown properties of "+label+" are no longer accepted", before.Get("additionalProperties"), after.Get("additionalProperties"))
	} else if closed(before) && !closed(after) {
		add(field+".additionalProperties", "SAFE", "Unknown properties of "+label+" are now accepted", before.Get("additionalProperties"), after.Get("additionalProperties"))
	}

	// Values.
	s.enum(field, label, before.Get("enum"), after.Get("enum"))
	if b, a := before.Get("const"), after.Get("const"); !sameValue(b, a) {
		severity := "BREAKING"
		if a == nil {
			severity = "SAFE"
		}
		add(field+".const", severity, "Constant value of "+label+" changed", b, a)
	}

	// Bounds: a raised minimum or a lowered maximum tightens.
	for _, kw := range []string{"minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"} {
		s.bound(field, label, kw, before.Get(kw), after.Get(kw), true)
	}
	for _, kw := range []string{"maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"} {
		s.bound(field, label, kw, before.Get(kw), after.Get(kw), false)
	}
	for _, kw := range []string{"pattern", "format", "multipleOf"} {
		if b, a := before.Get(kw), after.Get(kw); !sameValue(b, a) {
			severity := "RISKY"
			verb := "changed"
			if a == nil {
				severity, verb = "SAFE", "was removed"
			} else if b == nil {
				verb = "was added"
			}
			add(field+"."+kw, severity, strings.ToUpper(kw[:1])+kw[1:]+" of "+label+" "+verb, b, a)
		}
	}
	if b, a := before.Get("default"), after.Get("default"); !sameValue(b, a) {
		add(field+".default", "RISKY", "Default of "+label+" changed", b, a)
	}
	for _, kw := range []string{"title", "description"} {
		if b, a := before.Get(kw), after.Get(kw); depth > 0 && !sameValue(b, a) {
			add(field+"."+kw, "COSMETIC", strings.ToUpper(kw[:1])+kw[1:]+" of "+label+" changed", b, a)
		}
	}

	// Nested schemas.
	if bi, ai := before.Get("items"), after.Get("items"); bi != nil && ai != nil {
		s.compare(field+".items", "the items of "+label, bi, ai, depth+1)
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		b, a := before.Get(kw), after.Get(kw)
		if b == nil || a == nil || b.Kind != jsonv.KindArray || a.Kind != jsonv.KindArray {
			if !sameValue(b, a) {
				add(field+"."+kw, "RISKY", strings.ToUpper(kw[:1])+kw[1:]+" of "+label+" changed", b, a)
			}
			continue
		}
		if len(b.Arr) != len(a.Arr) {
			add(field+"."+kw, "RISKY", "Alternatives of "+label+" changed", b, a)
			continue
		}
		for i := range b.Arr {
			s.compare(field+"."+kw+"."+strconv.Itoa(i), label, b.Arr[i], a.Arr[i], depth+1)
		}
	}
}

func (s *schemaDiff) enum(field, label string, before, after *jsonv.Value) {
	if sameValue(before, after) {
		return
	}
	switch {
	case after == nil:
		s.d.add(s.category, field+".enum", "SAFE", "Allowed values of "+label+" are no longer restricted", before, nil)
		return
	case before == nil || before.Kind != jsonv.KindArray || after.Kind != jsonv.KindArray:
		s.d.add(s.category, field+".enum", "BREAKING", "Allowed values of "+label+" are now restricted", before, after)
		return
	}
	in := func(set *jsonv.Value, v *jsonv.Value) bool {
		for _, x := range set.Arr {
			if sameValue(x, v) {
				return true
			}
		}
		return false
	}
	for _, v := range before.Arr {
		if !in(after, v) {
			s.d.add(s.category, field+".enum", "BREAKING", "Value "+string(jsonv.AppendValue(nil, v))+" of "+label+" is no longer allowed", v, nil)
		}
	}
	for _, v := range after.Arr {
		if !in(before, v) {
			s.d.add(s.category, field+".enum", "SAFE", "Value "+string(jsonv.AppendValue(nil, v))+" of "+label+" is now allowed", nil, v)
		}
	}
}

// bound compares a numeric keyword; lower says a larger value tightens.
func (s *schemaDiff) bound(field, label, kw string, before, after *jsonv.Value, lower bool) {
	if sameValue(before, after) {
		return
	}
	num := numOK
	b, bok := num(before)
	a, aok := num(after)
	var tightened bool
	switch {
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
	s.d.add(s.category, field+"."+kw, severity, upper(desc), before, after)
}

func upper(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// numOK returns v's number, and false when v is not a number.
func numOK(v *jsonv.Value) (float64, bool) {
	if v == nil || v.Kind != jsonv.KindNumber {
		return 0, false
	}
	return v.Num, true
}

// MaxSeverity is the first delta's severity (they are sorted), or "".
func MaxSeverity(deltas []Delta) string {
	if len(deltas) == 0 {
		return ""
	}
	return deltas[0].Severity
}

// diffCache keeps diffs by the digests of their two contracts.
var diffCache = struct {
	sync.Mutex
	byDigests map[[2]string][]Delta
}{byDigests: map[[2]string][]Delta{}}

// cloneDeltas copies the strings of deltas, which may be views of a
// request's decoded strings, so that a cached entry holds on to its own
// text and not to the request it came from.
func cloneDeltas(deltas []Delta) []Delta {
	clonePtr := func(s *string) *string {
		if s == nil {
			return nil
		}
		c := strings.Clone(*s)
		return &c
	}
	for i := range deltas {
		d := &deltas[i]
		d.Category, d.Field, d.Severity = strings.Clone(d.Category), strings.Clone(d.Field), strings.Clone(d.Severity)
		d.Description, d.Before, d.After = strings.Clone(d.Description), clonePtr(d.Before), clonePtr(d.After)
	}
	return deltas
}

// CachedDiff is the diff of two contracts, from the cache when the same
// pair of digests was diffed before; the deltas it returns are shared and
// must not be changed.
func CachedDiff(before, after *Lockfile) []Delta {
	key := [2]string{before.digest, after.digest}
	diffCache.Lock()
	deltas, ok := diffCache.byDigests[key]
	diffCache.Unlock()
	if ok {
		return deltas
	}
	deltas = cloneDeltas(diffContracts(before, after))
	diffCache.Lock()
	if len(diffCache.byDigests) >= 64 {
		diffCache.byDigests = map[[2]string][]Delta{}
	}
	diffCache.byDigests[key] = deltas
	diffCache.Unlock()
	return deltas
}
