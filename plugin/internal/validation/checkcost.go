package validation

// The cost of the JSON Schema library's own check, counted by toolerr
// before the library runs (SECURITY.md, "Linear time").
//
// checkCost walks the compiled schema and the arguments together, the way
// github.com/santhosh-tekuri/jsonschema/v6 (v6.0.2, validator.go) does:
// every subschema that the library applies to a value is visited, with the
// value, and every keyword is charged what the library's check of it
// costs. Where the library's work depends on the result of a check (the
// first anyOf branch that matches, then or else, a pattern property that
// matches) the walk takes every branch, so the count is an upper bound of
// the library's work, never less. The walk stops the moment the count
// passes the budget, so the walk itself costs at most the budget. Its order
// is fixed (the arguments' members in order, patterns in sorted order), so
// where it stops, and the message, are the same on every engine.

import (
	"reflect"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// Steps of the library's check, each about 10 ns of native work.
const (
	// stepVisit is one subschema applied to one value: the library makes
	// a validator, a scope and an evaluation record for it.
	stepVisit = 8
	// stepNumber is a number compared or checked: the library writes it
	// with fmt and reads it as a big.Rat, for each keyword.
	stepNumber = 48
	// stepName is a name of a required (or dependentRequired) list
	// checked: a lookup, and a copy into the error's list when missing.
	stepName = 8
	// stepEntry is an entry of a map of the schema's (dependentSchemas,
	// dependentRequired, dependencies) that the library walks once per
	// object, looking its name up in the object.
	stepEntry = 3
	// stepRegexp is what a match of a pattern costs besides its length
	// times the string's.
	stepRegexp = 8
)

// checkScope is the library's scope: the subschemas applied so far on the
// way to a value, with the depth of the value they apply to (vid).
type checkScope struct {
	sch    *jsonschema.Schema
	vid    int
	parent *checkScope
	depth  int
}

type checkCost struct {
	steps, limit int
	idx          *jsonv.Index
	// sizes of the arguments' values (sizeOf), each found once per call,
	// and what the subschemas hold, found once per compiled schema.
	sizes    map[*jsonv.Value]int
	memo     *schemaMemo
	overAt   string // the keyword and subschema the count passed the budget at
	overWhat string
}

// schemaMemo is what checkCost finds of a compiled schema's subschemas:
// their keyword sizes and sorted patterns (info) and the program size of
// each pattern (regexps). They are the same on every call, so they are
// kept with the compiled schema (compiled.memo) and found once, not once
// per call (a pattern parsed again on every call was a tenth of validate's
// allocations). The lock lets the native core's concurrent callers share
// it; it is held only to read or add an entry.
type schemaMemo struct {
	mu      sync.Mutex
	info    map[*jsonschema.Schema]*schemaInfo
	regexps map[string]int
}

func newSchemaMemo() *schemaMemo {
	return &schemaMemo{info: map[*jsonschema.Schema]*schemaInfo{}, regexps: map[string]int{}}
}

// schemaInfo is what checkCost reads of one subschema, once.
type schemaInfo struct {
	constSize, enumSize int
	patterns            []patternSchema
}

type patternSchema struct {
	re   jsonschema.Regexp
	text string
	sch  *jsonschema.Schema
	size int
}

// spend counts n steps; false once the count is past the limit, with
// what is charged and where remembered for the message.
func (c *checkCost) spend(n int, what string, s *jsonschema.Schema) bool {
	if c.steps > c.limit {
		return false
	}
	c.steps += n
	if c.steps > c.limit {
		c.overWhat = what
		if s != nil {
			c.overAt = s.Location
		}
		return false
	}
	return true
}

// checkWithin reports whether the library's check of args against sch
// takes at most limit steps; when it does not, err says what was too
// costly.
func checkWithin(sch *jsonschema.Schema, memo *schemaMemo, args *jsonv.Value, idx *jsonv.Index, limit int) error {
	c := &checkCost{limit: limit, idx: idx, sizes: map[*jsonv.Value]int{}, memo: memo}
	if c.walk(sch, args, nil, 0, 0, false) {
		return nil
	}
	at := c.overAt
	if i := strings.IndexByte(at, '#'); i >= 0 {
		at = at[i:]
	}
	if len(at) > 120 {
		at = at[:120] + "..."
	}
	if at == "" {
		at = "#"
	}
	return &TooMuchWorkError{"checking the arguments against the schema would take the JSON Schema validator more than " + strconv.Itoa(limit) +
		" steps (16 per byte of the request, plus 8 Mi): the count passed it at " + c.overWhat + " of the subschema at " + strconv.Quote(at)}
}

// sizeOf is the steps of comparing v with an equal value: a step per
// value, one per 8 bytes of strings and keys, stepNumber per number.
func (c *checkCost) sizeOf(v *jsonv.Value) int {
	if n, ok := c.sizes[v]; ok {
		return n
	}
	n := 1
	switch v.Kind {
	case jsonv.KindString:
		n += len(v.Str) / 8
	case jsonv.KindNumber:
		n += stepNumber
	case jsonv.KindArray:
		for _, item := range v.Arr {
			n += c.sizeOf(item)
		}
	case jsonv.KindObject:
		for _, m := range v.Members {
			n += 1 + len(m.Key)/8 + c.sizeOf(m.Value)
		}
	}
	c.sizes[v] = n
	return n
}

// sizeOfAny is sizeOf of a value of the library's (a const or enum item).
func sizeOfAny(v any) int {
	n := 1
	switch x := v.(type) {
	case string:
		n += len(x) / 8
	case []any:
		for _, item := range x {
			n += sizeOfAny(item)
		}
	case map[string]any:
		for k, item := range x {
			n += 1 + len(k)/8 + sizeOfAny(item)
		}
	case nil, bool:
	default:
		n += stepNumber
	}
	return n
}

// memoized is table[key] of c's schemaMemo, found by find the first time:
// the lock is held to read or add the entry, not while find runs (it may
// look up another entry), so two callers may both find it and the first
// one kept is the one every caller gets. find takes c and key rather than
// closing over them: a closure would be a heap allocation on every call in
// TinyGo's build, found entry or not.
func memoized[K comparable, V any](c *checkCost, table map[K]V, key K, find func(*checkCost, K) V) V {
	m := c.memo
	m.mu.Lock()
	v, ok := table[key]
	m.mu.Unlock()
	if ok {
		return v
	}
	v = find(c, key)
	m.mu.Lock()
	defer m.mu.Unlock()
	if kept, ok := table[key]; ok {
		return kept
	}
	table[key] = v
	return v
}

func (c *checkCost) infoOf(s *jsonschema.Schema) *schemaInfo {
	return memoized(c, c.memo.info, s, (*checkCost).findInfo)
}

func (c *checkCost) findInfo(s *jsonschema.Schema) *schemaInfo {
	in := &schemaInfo{}
	if s.Const != nil {
		in.constSize = sizeOfAny(*s.Const)
	}
	if s.Enum != nil {
		for _, v := range s.Enum.Values {
			in.enumSize += sizeOfAny(v)
		}
	}
	for re, sch := range s.PatternProperties {
		text := re.String()
		in.patterns = append(in.patterns, patternSchema{re, text, sch, c.regexpSize(text)})
	}
	sort.Slice(in.patterns, func(i, j int) bool { return in.patterns[i].text < in.patterns[j].text })
	return in
}

// regexpSize is the size of the program Go's regexp compiles pattern to,
// at least its length: a match costs about that many steps per byte of
// the string, and compiling it about that many.
func (c *checkCost) regexpSize(pattern string) int {
	return memoized(c, c.memo.regexps, pattern, func(_ *checkCost, pattern string) int { return regexpSize(pattern) })
}

// regexpSize is the size of the program of pattern, counted on its parse
// tree with every repetition expanded, as regexp.Compile does (Simplify),
// and at least the pattern's length. An unparsable pattern counts its
// length (the library refuses it when compiling).
func regexpSize(pattern string) int {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return len(pattern) + 1
	}
	return satAdd(max(len(pattern), progSize(re)), 1)
}

func progSize(re *syntax.Regexp) int {
	n := 1
	switch re.Op {
	case syntax.OpLiteral:
		n = satAdd(n, len(re.Rune))
	case syntax.OpRepeat:
		sub := 0
		for _, s := range re.Sub {
			sub = satAdd(sub, progSize(s))
		}
		times := re.Max
		if times < 0 {
			times = re.Min + 1
		}
		n = satAdd(n, satMul(sub, max(1, times)))
	default:
		for _, s := range re.Sub {
			n = satAdd(n, progSize(s))
		}
	}
	return n
}

// matchCost is the steps of matching a pattern of program size size
// against a string of n bytes: Go's regexp runs in time linear in the
// product.
func matchCost(size, n int) int {
	return satAdd(stepRegexp, satMul(size, n+1))
}

// walk counts the library's check of v against s (validator.validate):
// parent is the scope s is applied in, vid the depth of v, vdepth the
// length of v's location, track whether the caller needs the evaluated
// properties or items of v. It returns false once past the budget.
func (c *checkCost) walk(s *jsonschema.Schema, v *jsonv.Value, parent *checkScope, vid, vdepth int, track bool) bool {
	sc := &checkScope{sch: s, vid: vid, parent: parent}
	if parent != nil {
		sc.depth = parent.depth + 1
	}
	// A visit, and the copy of the location an error would take.
	if !c.spend(stepVisit+vdepth/4, "a subschema applied to a value", s) {
		return false
	}
	if s.Bool != nil {
		return true
	}
	// The library's cycle check walks back the scopes of the same value:
	// a $ref chain costs its square.
	n := 0
	for p := parent; p != nil && p.vid == vid; p = p.parent {
		n++
		if p.sch == s {
			return c.spend(n, "a $ref cycle", s)
		}
	}
	if !c.spend(n, "a $ref chain", s) {
		return false
	}
	// The evaluated properties and items the library tracks for
	// unevaluatedProperties and unevaluatedItems: a copy and a merge of
	// the object's keys (or the array's indexes) per subschema.
	track = track || s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil
	if track {
		switch v.Kind {
		case jsonv.KindObject:
			if !c.spend(2*len(v.Members), "unevaluatedProperties", s) {
				return false
			}
		case jsonv.KindArray:
			if !c.spend(2*len(v.Arr), "unevaluatedItems", s) {
				return false
			}
		}
	}
	if s.Const != nil && !c.spend(1+min(c.sizeOf(v), c.infoOf(s).constSize), "const", s) {
		return false
	}
	if s.Enum != nil {
		k := len(s.Enum.Values)
		if !c.spend(satAdd(k, min(satMul(k, c.sizeOf(v)), c.infoOf(s).enumSize)), "enum", s) {
			return false
		}
	}
	if s.Format != nil && v.Kind == jsonv.KindString {
		cost := 1 + len(v.Str)
		if s.Format.Name == "regex" {
			// The library compiles the string as a regexp.
			if !c.spend(cost, "format", s) {
				return false
			}
			cost = regexpSize(v.Str)
		}
		if !c.spend(cost, "format", s) {
			return false
		}
	}
	// at walks the subschemas that apply to v itself (self) and to its
	// members and items (child); a value, not two closures over this
	// call's state, which the module allocated on every walk.
	at := walkAt{c: c, v: v, sc: sc, vid: vid, vdepth: vdepth, track: track}
	if s.Ref != nil {
		if !at.self(s.Ref) {
			return false
		}
		if s.DraftVersion < 2019 {
			return true
		}
	}
	switch v.Kind {
	case jsonv.KindObject:
		if !c.object(s, v, sc, &at) {
			return false
		}
	case jsonv.KindArray:
		if !c.array(s, v, &at) {
			return false
		}
	case jsonv.KindString:
		if s.MinLength != nil || s.MaxLength != nil {
			if !c.spend(1+len(v.Str)/16, "minLength", s) {
				return false
			}
		}
		if s.Pattern != nil && !c.spend(matchCost(c.regexpSize(s.Pattern.String()), len(v.Str)), "pattern", s) {
			return false
		}
		if s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil {
			// Not compiled without AssertContent (toolerr does not ask
			// for it); counted as the whole budget if it ever is.
			return c.spend(c.limit+1, "contentSchema", s)
		}
	case jsonv.KindNumber:
		k := 0
		for _, r := range [...]bool{s.Minimum != nil, s.Maximum != nil, s.ExclusiveMinimum != nil, s.ExclusiveMaximum != nil, s.MultipleOf != nil, s.MultipleOf != nil} {
			if r {
				k++
			}
		}
		if !c.spend(k*stepNumber, "a number keyword", s) {
			return false
		}
	}
	if s.DraftVersion >= 2019 {
		if s.RecursiveRef != nil {
			target, ok := c.recursiveTarget(s.RecursiveRef, sc)
			if !ok || !at.self(target) {
				return false
			}
		}
		if s.DynamicRef != nil {
			target, ok := c.dynamicTarget(s.DynamicRef, sc)
			if !ok || !at.self(target) {
				return false
			}
		}
	}
	if !at.self(s.Not) {
		return false
	}
	for _, group := range [...][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, sub := range group {
			if !at.self(sub) {
				return false
			}
		}
	}
	if !at.self(s.If) || !at.self(s.Then) || !at.self(s.Else) {
		return false
	}
	if s.DraftVersion >= 2019 {
		if s.UnevaluatedProperties != nil && v.Kind == jsonv.KindObject {
			for _, m := range v.Members {
				if !at.child(s.UnevaluatedProperties, m.Value) {
					return false
				}
			}
		}
		if s.UnevaluatedItems != nil && v.Kind == jsonv.KindArray {
			for _, item := range v.Arr {
				if !at.child(s.UnevaluatedItems, item) {
					return false
				}
			}
		}
	}
	return true
}

// walkAt is where a walk stands: the value v of scope sc.
type walkAt struct {
	c           *checkCost
	v           *jsonv.Value
	sc          *checkScope
	vid, vdepth int
	track       bool
}

// self walks sub applied to the value itself.
func (w *walkAt) self(sub *jsonschema.Schema) bool {
	return sub == nil || w.c.walk(sub, w.v, w.sc, w.vid, w.vdepth, w.track)
}

// child walks sub applied to item, a member or item of the value.
func (w *walkAt) child(sub *jsonschema.Schema, item *jsonv.Value) bool {
	return sub == nil || w.c.walk(sub, item, w.sc, w.vid+1, w.vdepth+1, false)
}

// object counts validator.objValidate.
func (c *checkCost) object(s *jsonschema.Schema, v *jsonv.Value, sc *checkScope, at *walkAt) bool {
	if len(s.Required) > 0 {
		if !c.spend(stepName*len(s.Required), "required", s) {
			return false
		}
		n := 0
		for _, name := range s.Required {
			n += len(name)
		}
		if !c.spend(n/8, "required", s) {
			return false
		}
	}
	// The library walks its maps of dependencies, dependentSchemas and
	// dependentRequired once per object, checking each name in the
	// object; here each member of the object is looked up in them instead
	// (the same subschemas, in the object's order).
	if !c.spend(stepEntry*len(s.Dependencies), "dependencies", s) ||
		!c.spend(stepEntry*len(s.DependentSchemas), "dependentSchemas", s) ||
		!c.spend(stepEntry*len(s.DependentRequired), "dependentRequired", s) {
		return false
	}
	var patterns []patternSchema
	if len(s.PatternProperties) > 0 {
		patterns = c.infoOf(s).patterns
	}
	// Every member, repeated keys too (the library sees the last value of
	// a repeated key: counting each is an upper bound).
	for _, m := range v.Members {
		if !c.spend(1+len(m.Key)/8, "properties", s) {
			return false
		}
		if dep, ok := s.Dependencies[m.Key]; ok {
			switch dep := dep.(type) {
			case []string:
				if !c.spend(stepName*len(dep), "dependencies", s) {
					return false
				}
			case *jsonschema.Schema:
				if !at.self(dep) {
					return false
				}
			}
		}
		evaluated := false
		if sub, ok := s.Properties[m.Key]; ok {
			evaluated = true
			if !at.child(sub, m.Value) {
				return false
			}
		}
		for _, p := range patterns {
			if !c.spend(matchCost(p.size, len(m.Key)), "patternProperties", s) {
				return false
			}
			if p.re.MatchString(m.Key) {
				evaluated = true
				if !at.child(p.sch, m.Value) {
					return false
				}
			}
		}
		if !evaluated {
			if sub, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && !at.child(sub, m.Value) {
				return false
			}
		}
		if s.PropertyNames != nil && s.DraftVersion > 4 {
			// A validation of its own, of the name as a string.
			name := &jsonv.Value{Kind: jsonv.KindString, Str: m.Key}
			if !c.walk(s.PropertyNames, name, nil, 0, 0, false) {
				return false
			}
		}
		if s.DraftVersion > 6 {
			if sub, ok := s.DependentSchemas[m.Key]; ok && !at.self(sub) {
				return false
			}
			if names, ok := s.DependentRequired[m.Key]; ok && !c.spend(stepName*len(names), "dependentRequired", s) {
				return false
			}
		}
	}
	return true
}

// array counts validator.arrValidate.
func (c *checkCost) array(s *jsonschema.Schema, v *jsonv.Value, at *walkAt) bool {
	n := len(v.Arr)
	if s.UniqueItems && n > 1 {
		// Up to 20 items compared pairwise, more hashed (object keys
		// sorted) and compared where hashes meet.
		cost := 4*c.sizeOf(v) + n
		if n <= 20 {
			cost = n * c.sizeOf(v)
		}
		if !c.spend(cost, "uniqueItems", s) {
			return false
		}
	}
	items := func(sub *jsonschema.Schema, from int) bool {
		for _, item := range v.Arr[min(from, n):] {
			if !at.child(sub, item) {
				return false
			}
		}
		return true
	}
	if s.DraftVersion < 2020 {
		evaluated := 0
		switch it := s.Items.(type) {
		case *jsonschema.Schema:
			if !items(it, 0) {
				return false
			}
			evaluated = n
		case []*jsonschema.Schema:
			for i := 0; i < len(it) && i < n; i++ {
				if !at.child(it[i], v.Arr[i]) {
					return false
				}
			}
			evaluated = min(n, len(it))
		}
		if sub, ok := s.AdditionalItems.(*jsonschema.Schema); ok && !items(sub, evaluated) {
			return false
		}
	} else {
		for i := 0; i < len(s.PrefixItems) && i < n; i++ {
			if !at.child(s.PrefixItems[i], v.Arr[i]) {
				return false
			}
		}
		if s.Items2020 != nil && !items(s.Items2020, len(s.PrefixItems)) {
			return false
		}
	}
	if s.Contains != nil && !items(s.Contains, 0) {
		return false
	}
	return true
}

// The library resolves $recursiveRef and $dynamicRef through the resource
// each scope's subschema belongs to, which it keeps in unexported fields
// of Schema ("resource", "dynamicAnchors"); they are read, never written,
// through reflection. Should a later version of the library not have them,
// a schema using either keyword is refused (the count cannot follow it).
var (
	schemaType           = reflect.TypeOf(jsonschema.Schema{})
	resourceField, resOK = schemaType.FieldByName("resource")
	anchorsField, ancOK  = schemaType.FieldByName("dynamicAnchors")
	reflectOK            = resOK && ancOK &&
		resourceField.Type == reflect.TypeOf((*jsonschema.Schema)(nil)) &&
		anchorsField.Type == reflect.TypeOf(map[string]*jsonschema.Schema(nil))
)

func resourceOf(s *jsonschema.Schema) *jsonschema.Schema {
	f := reflect.ValueOf(s).Elem().FieldByIndex(resourceField.Index)
	if f.IsNil() {
		return nil
	}
	return (*jsonschema.Schema)(f.UnsafePointer())
}

func dynamicAnchorOf(res *jsonschema.Schema, name string) *jsonschema.Schema {
	m := reflect.ValueOf(res).Elem().FieldByIndex(anchorsField.Index)
	if m.IsNil() {
		return nil
	}
	v := m.MapIndex(reflect.ValueOf(name))
	if !v.IsValid() || v.IsNil() {
		return nil
	}
	return (*jsonschema.Schema)(v.UnsafePointer())
}

// recursiveTarget is validator.resolveRecursiveAnchor; it walks every
// scope back to the first, and so costs the depth.
func (c *checkCost) recursiveTarget(sch *jsonschema.Schema, sc *checkScope) (*jsonschema.Schema, bool) {
	if !sch.RecursiveAnchor {
		return sch, true
	}
	if !reflectOK {
		return nil, c.spend(c.limit+1, "$recursiveRef", sc.sch)
	}
	if !c.spend(1+sc.depth, "$recursiveRef", sc.sch) {
		return nil, false
	}
	for p := sc; p != nil; p = p.parent {
		if res := resourceOf(p.sch); res != nil && res.RecursiveAnchor {
			sch = p.sch
		}
	}
	return sch, true
}

// dynamicTarget is the target validator.validateRefs finds for a
// $dynamicRef (resolveDynamicAnchor).
func (c *checkCost) dynamicTarget(dref *jsonschema.DynamicRef, sc *checkScope) (*jsonschema.Schema, bool) {
	sch := dref.Ref
	if dref.Anchor == "" || sch.DynamicAnchor != dref.Anchor {
		return sch, true
	}
	if !reflectOK {
		return nil, c.spend(c.limit+1, "$dynamicRef", sc.sch)
	}
	if !c.spend(satAdd(1, satMul(sc.depth, 2+len(dref.Anchor)/8)), "$dynamicRef", sc.sch) {
		return nil, false
	}
	for p := sc; p != nil; p = p.parent {
		if res := resourceOf(p.sch); res != nil {
			if d := dynamicAnchorOf(res, dref.Anchor); d != nil {
				sch = d
			}
		}
	}
	return sch, true
}
