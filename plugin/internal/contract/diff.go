package contract

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// severityRank orders delta severities, most severe first.
var severityRank = map[string]int{"BREAKING": 0, "RISKY": 1, "SAFE": 2, "COSMETIC": 3}

// differ collects the deltas between two contracts, within a budget of
// steps.
type differ struct {
	deltas []Delta
	// steps counts the work done: a step per schema member read, per value
	// compared, per byte of a property's field and of delta text. Past
	// limit the diff stops and fails with a *BudgetError.
	steps, limit int
	// over is set once steps passed limit: from then on every step of the
	// diff returns at once (see charge).
	over bool
}

// BudgetError reports a diff that needs more steps than the size of the two
// contracts allows.
type BudgetError struct{ Limit int }

func (e *BudgetError) Error() string {
	return "comparing these contracts takes more than " + strconv.Itoa(e.Limit) +
		" steps (16 per byte of their canonical JSON, plus 1 MiB): their schemas share subschemas or long names that the deltas would repeat"
}

// diffBudget is the steps a diff of contracts of size bytes of canonical
// JSON may take. Comparing two schemas reads each pair of subschemas once
// and writes each delta once, so a diff without shared subschemas stays far
// below it; only a subschema reached along many paths (through $ref) or a
// long name above many deltas can reach it.
func diffBudget(size int) int { return 16*size + 1<<20 }

// charge counts n steps. Past the limit it sets over, and every function
// of the diff returns at its next check of over, writing nothing more: the
// diff unwinds without a panic, since recover does not work in the TinyGo
// build (a panic traps the module there).
func (d *differ) charge(n int) {
	if d.steps += n; d.steps > d.limit {
		d.over = true
	}
}

func (d *differ) add(category, field, severity, description string, before, after *jsonv.Value) {
	if d.over {
		return
	}
	delta := Delta{
		Category: category, Field: field, Severity: severity, Description: description,
		Before: valueText(before), After: valueText(after),
	}
	n := len(category) + len(field) + len(severity) + len(description)
	if delta.Before != nil {
		n += len(*delta.Before)
	}
	if delta.After != nil {
		n += len(*delta.After)
	}
	if d.charge(n); d.over {
		return
	}
	d.deltas = append(d.deltas, delta)
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
// field, as the relevance rule of contract awareness expects them. It fails
// with a *BudgetError when the comparison takes more steps than diffBudget
// allows for the two contracts.
func diffContracts(before, after *Lockfile) (deltas []Delta, err error) {
	d := &differ{limit: diffBudget(before.size + after.size)}
	for _, b := range before.tools {
		if d.over {
			break
		}
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
		if d.over {
			break
		}
		if before.find(a.name) == nil {
			d.add("surface", "actions."+a.name, "SAFE", "Tool \""+a.name+"\" was added", nil, strValue(a.name))
		}
	}
	if d.over {
		return nil, &BudgetError{d.limit}
	}
	// Severity, field and description, then the rest of the delta: a total
	// order, so that the deltas come out in one order whatever order they
	// were found in.
	sort.SliceStable(d.deltas, func(i, j int) bool {
		x, y := d.deltas[i], d.deltas[j]
		if severityRank[x.Severity] != severityRank[y.Severity] {
			return severityRank[x.Severity] < severityRank[y.Severity]
		}
		if x.Field != y.Field {
			return x.Field < y.Field
		}
		if x.Description != y.Description {
			return x.Description < y.Description
		}
		if x.Category != y.Category {
			return x.Category < y.Category
		}
		if c := compareText(x.Before, y.Before); c != 0 {
			return c < 0
		}
		return compareText(x.After, y.After) < 0
	})
	return d.deltas, nil
}

// compareText orders optional texts, absent first.
func compareText(a, b *string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return strings.Compare(*a, *b)
}

func strValue(s string) *jsonv.Value { return &jsonv.Value{Kind: jsonv.KindString, Str: s} }

func (d *differ) tool(name string, before, after *jsonv.Value) {
	if d.over {
		return
	}
	field := "actions." + name
	for _, f := range []string{"title", "description"} {
		if b, a := get(before, f), get(after, f); !d.same(b, a) {
			d.add("surface", field+"."+f, "COSMETIC", "Tool \""+name+"\" "+f+" changed", b, a)
		}
	}
	d.annotations(name, get(before, "annotations"), get(after, "annotations"))
	s := &schemaDiff{d: d, category: "surface.input", beforeRoot: get(before, "inputSchema"), afterRoot: get(after, "inputSchema"), visited: map[[2]*jsonv.Value]bool{}}
	s.compare(field+".input", "input", s.beforeRoot, s.afterRoot, 0)
	if b, a := get(before, "outputSchema"), get(after, "outputSchema"); !d.same(b, a) {
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
		b, a := get(before, r.hint), get(after, r.hint)
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
	if b, a := get(before, "title"), get(after, "title"); !d.same(b, a) {
		d.add("surface.annotations", field+".title", "COSMETIC", "Tool \""+name+"\" annotation title changed", b, a)
	}
}

func boolOr(v *jsonv.Value, def bool) bool {
	if v != nil && v.Kind == jsonv.KindBool {
		return v.Bool
	}
	return def
}

// The values a diff compares are canonical (the lockfile's form: every
// object's keys sorted by UTF-16 code units, each once), which lets get
// search an object's keys and same compare two objects in one pass.

// get returns the member key of the canonical object v, or nil.
func get(v *jsonv.Value, key string) *jsonv.Value {
	if v == nil || v.Kind != jsonv.KindObject {
		return nil
	}
	ms := v.Members
	if len(ms) <= 8 {
		for i := range ms {
			if ms[i].Key == key {
				return ms[i].Value
			}
		}
		return nil
	}
	i := sort.Search(len(ms), func(i int) bool { return !lessUTF16(ms[i].Key, key) })
	if i < len(ms) && ms[i].Key == key {
		return ms[i].Value
	}
	return nil
}

// same reports whether the canonical values a and b are the same JSON
// value (nil for absent), a step per value compared.
func (d *differ) same(a, b *jsonv.Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if d.over {
		return true // nothing more is compared or written
	}
	d.charge(1)
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
		d.charge(len(a.Str) / 64)
		return a.Str == b.Str
	case jsonv.KindArray:
		if len(a.Arr) != len(b.Arr) {
			return false
		}
		for i := range a.Arr {
			if !d.same(a.Arr[i], b.Arr[i]) {
				return false
			}
		}
		return true
	}
	if len(a.Members) != len(b.Members) {
		return false
	}
	for i := range a.Members {
		if a.Members[i].Key != b.Members[i].Key || !d.same(a.Members[i].Value, b.Members[i].Value) {
			return false
		}
	}
	return true
}

// maxSchemaDepth bounds how deep two schemas are compared; a pair of
// subschemas below it that may differ is reported as a change.
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
func (d *differ) resolve(root, v *jsonv.Value) *jsonv.Value {
	if d.over {
		return nil
	}
	for i := 0; i < 32 && v != nil && v.Kind == jsonv.KindObject; i++ {
		r := get(v, "$ref")
		if r == nil || r.Kind != jsonv.KindString || !strings.HasPrefix(r.Str, "#") {
			return v
		}
		d.charge(1 + len(r.Str))
		target := lookupPointer(root, r.Str)
		if r.Str == "#" {
			target = root
		}
		if target == nil || target == v {
			return v
		}
		v = target
	}
	return v
}

// lookupPointer resolves a JSON Pointer fragment ("#/a/0") inside the
// canonical value doc; nil when absent.
func lookupPointer(doc *jsonv.Value, pointer string) *jsonv.Value {
	cur := doc
	for _, seg := range jsonv.PointerPath(pointer) {
		switch {
		case cur == nil:
			return nil
		case cur.Kind == jsonv.KindObject:
			cur = get(cur, seg.Str)
		case cur.Kind == jsonv.KindArray:
			i, err := strconv.Atoi(seg.Str)
			if err != nil || i < 0 || i >= len(cur.Arr) || strconv.Itoa(i) != seg.Str {
				return nil
			}
			cur = cur.Arr[i]
		default:
			return nil
		}
	}
	return cur
}

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

// required returns the names v requires, in order and each once, and
// them as a set.
func required(v *jsonv.Value) ([]string, map[string]bool) {
	var names []string
	set := map[string]bool{}
	if r := get(v, "required"); r != nil && r.Kind == jsonv.KindArray {
		for _, x := range r.Arr {
			if x.Kind == jsonv.KindString && !set[x.Str] {
				set[x.Str] = true
				names = append(names, x.Str)
			}
		}
	}
	return names, set
}

func closed(v *jsonv.Value) bool {
	ap := get(v, "additionalProperties")
	return ap != nil && ap.Kind == jsonv.KindBool && !ap.Bool
}

// size is the number of members or items of v (0 for nil and scalars).
func size(v *jsonv.Value) int {
	if v == nil {
		return 0
	}
	return len(v.Members) + len(v.Arr)
}

// hasRef reports whether v holds a "$ref" anywhere, a step per value.
func (d *differ) hasRef(v *jsonv.Value) bool {
	if v == nil || d.over {
		return false
	}
	d.charge(1)
	switch v.Kind {
	case jsonv.KindArray:
		for _, item := range v.Arr {
			if d.hasRef(item) {
				return true
			}
		}
	case jsonv.KindObject:
		for _, m := range v.Members {
			if m.Key == "$ref" || d.hasRef(m.Value) {
				return true
			}
		}
	}
	return false
}

func (s *schemaDiff) compare(field, label string, before, after *jsonv.Value, depth int) {
	d := s.d
	before, after = d.resolve(s.beforeRoot, before), d.resolve(s.afterRoot, after)
	if before == nil || after == nil || d.over {
		return
	}
	key := [2]*jsonv.Value{before, after}
	if s.visited[key] {
		return
	}
	s.visited[key] = true
	if d.charge(1 + size(before) + size(after)); d.over {
		return
	}
	add := func(field, severity, description string, b, a *jsonv.Value) {
		d.add(s.category, field, severity, description, b, a)
	}
	if depth > maxSchemaDepth {
		// Not compared: a change there is reported, never passed over as
		// compatible. Subschemas equal as written are unchanged, unless a
		// $ref in them may point at a definition that changed.
		if !d.same(before, after) || d.hasRef(before) || d.hasRef(after) {
			add(field, "BREAKING", "Schema of "+label+" is nested more than "+strconv.Itoa(maxSchemaDepth)+" levels deep and was not compared", nil, nil)
		}
		return
	}
	if before.Kind == jsonv.KindBool || after.Kind == jsonv.KindBool {
		if !d.same(before, after) {
			severity := "BREAKING"
			if after.Kind == jsonv.KindBool && after.Bool {
				severity = "SAFE"
			}
			add(field, severity, "Schema of "+label+" changed", before, after)
		}
		return
	}

	// A reference left unresolved (outside the schema, or to nowhere) is
	// compared as written: its target is not known here, so a new one may
	// accept less.
	if b, a := get(before, "$ref"), get(after, "$ref"); !d.same(b, a) {
		switch {
		case a == nil:
			add(field+".$ref", "SAFE", "Reference of "+label+" was removed", b, nil)
		case b == nil:
			add(field+".$ref", "BREAKING", "Reference of "+label+" was added", nil, a)
		default:
			add(field+".$ref", "BREAKING", "Reference of "+label+" changed", b, a)
		}
	}

	// Types.
	bt, at := d.typeSet(before), d.typeSet(after)
	if !d.same(get(before, "type"), get(after, "type")) {
		switch {
		case len(bt) == 0:
			add(field+".type", "BREAKING", "Type of "+label+" narrowed to "+strings.Join(at, " or "), nil, get(after, "type"))
		case len(at) == 0:
			add(field+".type", "SAFE", "Type of "+label+" no longer restricted", get(before, "type"), nil)
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
				add(field+".type", "BREAKING", "Type of "+label+" changed from "+strings.Join(bt, " or ")+" to "+strings.Join(at, " or "), get(before, "type"), get(after, "type"))
			case narrowed:
				add(field+".type", "BREAKING", "Type of "+label+" narrowed from "+strings.Join(bt, " or ")+" to "+strings.Join(at, " or "), get(before, "type"), get(after, "type"))
			default:
				add(field+".type", "SAFE", "Type of "+label+" widened from "+strings.Join(bt, " or ")+" to "+strings.Join(at, " or "), get(before, "type"), get(after, "type"))
			}
		}
	}

	// Object properties.
	bp, ap := get(before, "properties"), get(after, "properties")
	_, br := required(before)
	arNames, ar := required(after)
	d.charge(size(bp) + size(ap) + size(get(before, "required")) + size(get(after, "required")))
	if bp != nil {
		for _, m := range bp.Members {
			if d.charge(len(field)); d.over { // the field is written again for each
				return
			}
			sub := field + "." + m.Key
			if get(ap, m.Key) == nil {
				add(sub, "BREAKING", "Property "+strconv.Quote(m.Key)+" of "+label+" was removed", m.Value, nil)
				continue
			}
			if ar[m.Key] && !br[m.Key] {
				add(sub, "BREAKING", "Property "+strconv.Quote(m.Key)+" of "+label+" is now required", nil, nil)
			} else if br[m.Key] && !ar[m.Key] {
				add(sub, "SAFE", "Property "+strconv.Quote(m.Key)+" of "+label+" is no longer required", nil, nil)
			}
			s.compare(sub, strconv.Quote(m.Key), m.Value, get(ap, m.Key), depth+1)
		}
	}
	if ap != nil {
		for _, m := range ap.Members {
			if d.over {
				return
			}
			if get(bp, m.Key) != nil {
				continue
			}
			if ar[m.Key] {
				add(field+"."+m.Key, "BREAKING", "Required property "+strconv.Quote(m.Key)+" was added to "+label, nil, m.Value)
			} else {
				add(field+"."+m.Key, "SAFE", "Optional property "+strconv.Quote(m.Key)+" was added to "+label, nil, m.Value)
			}
		}
	}
	for _, name := range arNames {
		if !br[name] && get(bp, name) == nil && get(ap, name) == nil {
			add(field+"."+name, "BREAKING", "Property "+strconv.Quote(name)+" of "+label+" is now required", nil, nil)
		}
	}
	if closed(after) && !closed(before) {
		add(field+".additionalProperties", "BREAKING", "Unknown properties of "+label+" are no longer accepted", get(before, "additionalProperties"), get(after, "additionalProperties"))
	} else if closed(before) && !closed(after) {
		add(field+".additionalProperties", "SAFE", "Unknown properties of "+label+" are now accepted", get(before, "additionalProperties"), get(after, "additionalProperties"))
	}

	// Values.
	s.enum(field, label, get(before, "enum"), get(after, "enum"))
	if b, a := get(before, "const"), get(after, "const"); !d.same(b, a) {
		severity := "BREAKING"
		if a == nil {
			severity = "SAFE"
		}
		add(field+".const", severity, "Constant value of "+label+" changed", b, a)
	}

	// Bounds: a raised minimum or a lowered maximum tightens.
	for _, kw := range []string{"minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"} {
		s.bound(field, label, kw, get(before, kw), get(after, kw), true)
	}
	for _, kw := range []string{"maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"} {
		s.bound(field, label, kw, get(before, kw), get(after, kw), false)
	}
	for _, kw := range []string{"pattern", "format", "multipleOf"} {
		if b, a := get(before, kw), get(after, kw); !d.same(b, a) {
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
	if b, a := get(before, "default"), get(after, "default"); !d.same(b, a) {
		add(field+".default", "RISKY", "Default of "+label+" changed", b, a)
	}
	for _, kw := range []string{"title", "description"} {
		if b, a := get(before, kw), get(after, kw); depth > 0 && !d.same(b, a) {
			add(field+"."+kw, "COSMETIC", strings.ToUpper(kw[:1])+kw[1:]+" of "+label+" changed", b, a)
		}
	}

	// Nested schemas.
	if bi, ai := get(before, "items"), get(after, "items"); bi != nil && ai != nil {
		s.compare(field+".items", "the items of "+label, bi, ai, depth+1)
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		b, a := get(before, kw), get(after, kw)
		if b == nil || a == nil || b.Kind != jsonv.KindArray || a.Kind != jsonv.KindArray {
			if !d.same(b, a) {
				add(field+"."+kw, "RISKY", strings.ToUpper(kw[:1])+kw[1:]+" of "+label+" changed", b, a)
			}
			continue
		}
		if len(b.Arr) != len(a.Arr) {
			add(field+"."+kw, "RISKY", "Alternatives of "+label+" changed", b, a)
			continue
		}
		if d.charge(len(b.Arr)); d.over {
			return
		}
		for i := range b.Arr {
			if d.over {
				return
			}
			s.compare(field+"."+kw+"."+strconv.Itoa(i), label, b.Arr[i], a.Arr[i], depth+1)
		}
	}
}

func (s *schemaDiff) enum(field, label string, before, after *jsonv.Value) {
	d := s.d
	if d.same(before, after) {
		return
	}
	switch {
	case after == nil:
		d.add(s.category, field+".enum", "SAFE", "Allowed values of "+label+" are no longer restricted", before, nil)
		return
	case before == nil || before.Kind != jsonv.KindArray || after.Kind != jsonv.KindArray:
		d.add(s.category, field+".enum", "BREAKING", "Allowed values of "+label+" are now restricted", before, after)
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
			d.add(s.category, field+".enum", "BREAKING", "Value "+bt[i]+" of "+label+" is no longer allowed", v, nil)
		}
	}
	for i, v := range after.Arr {
		if d.over {
			return
		}
		if !bset[at[i]] {
			d.add(s.category, field+".enum", "SAFE", "Value "+at[i]+" of "+label+" is now allowed", nil, v)
		}
	}
}

// bound compares a numeric keyword; lower says a larger value tightens.
func (s *schemaDiff) bound(field, label, kw string, before, after *jsonv.Value, lower bool) {
	if s.d.same(before, after) {
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

// diffCache keeps diffs by the digests of their two contracts (a diff over
// its budget is not kept: it is refused again, after the same steps).
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
// must not be changed. It fails with a *BudgetError when the comparison
// needs more steps than the contracts' size allows.
func CachedDiff(before, after *Lockfile) ([]Delta, error) {
	key := [2]string{before.digest, after.digest}
	diffCache.Lock()
	deltas, ok := diffCache.byDigests[key]
	diffCache.Unlock()
	if ok {
		return deltas, nil
	}
	deltas, err := diffContracts(before, after)
	if err != nil {
		return nil, err
	}
	deltas = cloneDeltas(deltas)
	diffCache.Lock()
	if len(diffCache.byDigests) >= 64 {
		diffCache.byDigests = map[[2]string][]Delta{}
	}
	diffCache.byDigests[key] = deltas
	diffCache.Unlock()
	return deltas, nil
}
