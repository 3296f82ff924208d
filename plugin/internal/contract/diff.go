package contract

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"

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
	// text holds the deltas' fields and descriptions, and texts their
	// before and after, in chunks: a diff of many deltas keeps a few large
	// objects rather than several small ones per delta, which the module's
	// collector, which never moves an object, leaves scattered over its
	// heap (a diff of 45,000 deltas needed more than 5376 pages of memory).
	text    []byte
	texts   []string
	scratch []byte // a value's JSON, before it is kept
}

// keep copies s into the deltas' text chunk.
func (d *differ) keep(s string) string {
	if s == "" {
		return ""
	}
	if cap(d.text)-len(d.text) < len(s) {
		d.text = make([]byte, 0, max(len(s), 64<<10))
	}
	start := len(d.text)
	d.text = append(d.text, s...)
	return unsafe.String(&d.text[start], len(s))
}

// keepText returns a pointer to s, kept in the deltas' chunk of texts.
func (d *differ) keepText(s string) *string {
	if len(d.texts) == cap(d.texts) {
		d.texts = make([]string, 0, 1024)
	}
	d.texts = append(d.texts, s)
	return &d.texts[len(d.texts)-1]
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
		Category: category, Field: d.keep(field), Severity: severity, Description: d.keep(description),
		Before: d.valueText(before), After: d.valueText(after),
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
func (d *differ) valueText(v *jsonv.Value) *string {
	switch {
	case v == nil:
		return nil
	case v.Kind == jsonv.KindString:
		return d.keepText(v.Str) // the request's own string
	}
	d.scratch = jsonv.AppendValue(d.scratch[:0], v)
	return d.keepText(d.keep(unsafe.String(unsafe.SliceData(d.scratch), len(d.scratch))))
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
	s := newSchemaDiff(d, "surface.input", get(before, "inputSchema"), get(after, "inputSchema"))
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
	// A binary search written out: sort.Search's closure would be made at
	// every lookup.
	lo, hi := 0, len(ms)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if lessUTF16(ms[mid].Key, key) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(ms) && ms[lo].Key == key {
		return ms[lo].Value
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

// maxCachedDeltaBytes is the most text the deltas of a cached diff may
// hold; a larger diff is answered and not kept, which also saves copying
// it.
const maxCachedDeltaBytes = 256 << 10

// deltaBytes is the text the deltas hold.
func deltaBytes(deltas []Delta) int {
	n := 0
	for _, d := range deltas {
		n += len(d.Category) + len(d.Field) + len(d.Severity) + len(d.Description)
		if d.Before != nil {
			n += len(*d.Before)
		}
		if d.After != nil {
			n += len(*d.After)
		}
	}
	return n
}

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
	if deltaBytes(deltas) > maxCachedDeltaBytes {
		return deltas, nil // not kept: a large diff would hold its memory for the instance's life
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
