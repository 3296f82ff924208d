package validation

// The cost of compiling a schema with the JSON Schema library, counted by
// toolerr on the schema's JSON before the library reads it (SECURITY.md,
// "Linear time").
//
// Compiling is linear in the schema but for these parts of the library
// (github.com/santhosh-tekuri/jsonschema/v6 v6.0.2), whose cost grows with
// a product of counts of the schema:
//   - the queue of subschemas to compile is searched by a scan for every
//     subschema queued and every reference followed (compiler.go, queue.get);
//   - every subschema looks for its resource, and every new resource for a
//     duplicate, among all the resources ($ids) so far (roots.go);
//   - every resource compares each of its anchors with its list of dynamic
//     anchors (compiler.go, compileValue);
//   - every $ref to a place that is not a subschema (not under a keyword the
//     library knows) copies the whole table of subschemas and anchors and
//     checks the target against the meta-schema (roots.go, ensureSubschema);
//   - every subschema's resource is found by a lookup of each prefix of its
//     location (root.go, resource);
//   - every pattern is compiled to a program whose size can be far more
//     than its length (a{1000}).
// compileWithin counts these, each an upper bound, and refuses a schema
// whose count is over 16 steps per byte of its JSON, plus 64 Mi (more than
// the 8 Mi of a check: a schema is compiled once, then cached, and
// ordinary schemas of several thousand subschemas must compile). The count
// depends on the schema alone, as the cache of compiled schemas requires.

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// CompileBudget is the steps compiling a schema of schemaBytes bytes of
// JSON may take in the parts of the library that grow faster than the
// schema: 16 per byte, plus 64 Mi.
func CompileBudget(schemaBytes int) int { return 16*schemaBytes + 64<<20 }

// Steps of the library's compiler, each about 10 ns of native work.
const (
	// scanPerStep is how many entries of the compile queue one step
	// scans (an entry is two string comparisons; measured, about 5 to
	// 15 ns each).
	scanPerStep = 1
	// stepClone is the copy of one entry of the subschema and anchor
	// tables (a map insertion).
	stepClone = 24
	// stepMeta is the meta-schema's check of one value of a $ref target.
	stepMeta = 64
)

// singleSchemaKeywords, arraySchemaKeywords and mapSchemaKeywords are the
// keywords whose values are subschemas, in every draft the library
// knows (draft.go).
var (
	singleSchemaKeywords = []string{"not", "if", "then", "else", "items", "additionalItems", "additionalProperties",
		"contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
	arraySchemaKeywords = []string{"allOf", "anyOf", "oneOf", "items", "prefixItems"}
	mapSchemaKeywords   = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
	refKeywords         = []string{"$ref", "$dynamicRef", "$recursiveRef"}
)

type resourceCount struct {
	node             *jsonv.Value
	anchors, dynamic int
}

type refAt struct {
	text string
	res  *resourceCount
}

type compileCount struct {
	schemas   map[*jsonv.Value]bool
	sizes     map[*jsonv.Value]int
	resources []*resourceCount
	refs      []refAt
	// subschemas, subschemas in resources other than the root, anchors
	// of all resources.
	subschemas, nonRoot, anchors int
	// dynamic anchors in all, and the sum over resources of anchors times
	// dynamic anchors.
	dynamic, pairs int
	// the steps of the prefix lookups, of compiling patterns, of $refs to
	// places that are not subschemas and of $refs to other resources.
	locations, patterns, outside, byURL int
}

// compileWithin refuses a schema whose compiling would take the library
// more than limit steps in the parts that grow faster than the schema.
func compileWithin(schema *jsonv.Value, limit int) error {
	c := &compileCount{schemas: map[*jsonv.Value]bool{}, sizes: map[*jsonv.Value]int{}}
	root := &resourceCount{node: schema}
	c.resources = append(c.resources, root)
	c.walk(schema, 0, 0, root, limit)
	for i := 0; i < len(c.refs) && c.total() <= limit; i++ {
		c.follow(schema, c.refs[i], limit)
	}
	total := c.total()
	if total <= limit {
		return nil
	}
	return &TooMuchWorkError{"compiling the schema would take the JSON Schema library more than " + strconv.Itoa(limit) +
		" steps (16 per byte of the schema, plus 64 Mi): " + c.costliest()}
}

// terms are the counted parts, with what each says in a refusal.
func (c *compileCount) terms() []struct {
	steps int
	what  string
} {
	s, r, dyn, pairs := c.subschemas, len(c.resources), c.dynamic, c.pairs
	// A new subschema is queued after a scan of the queue; a reference
	// followed, a subschema's resource (outside the root's, which the scan
	// finds first) and a dynamic anchor are each found by a scan.
	scans := satAdd(satMul(s, s)/2, satMul(len(c.refs)+c.nonRoot+dyn, s))
	return []struct {
		steps int
		what  string
	}{
		{scans / scanPerStep, strconv.Itoa(s) + " subschemas and " + strconv.Itoa(len(c.refs)) + " references, each queued or found by a scan of the compile queue"},
		{satAdd(satMul(s, r), satMul(r, r)), strconv.Itoa(s) + " subschemas, each looking for its resource among " + strconv.Itoa(r) + " resources ($id)"},
		{pairs, "anchors compared with the dynamic anchors ($dynamicAnchor) of their resource"},
		{c.outside, "$refs to places that are not subschemas, each copying the tables of the schema's " + strconv.Itoa(s) + " subschemas"},
		{satMul(c.byURL, r), "$refs by URL, each looking for its resource among " + strconv.Itoa(r) + " resources ($id)"},
		{c.locations, "long locations of subschemas"},
		{c.patterns, "patterns that compile to large programs"},
	}
}

func (c *compileCount) total() int {
	n := 0
	for _, t := range c.terms() {
		n = satAdd(n, t.steps)
	}
	return n
}

func (c *compileCount) costliest() string {
	best := c.terms()[0]
	for _, t := range c.terms()[1:] {
		if t.steps > best.steps {
			best = t
		}
	}
	return best.what
}

// walk counts v, in a subschema's place at a location of ptrLen bytes and
// depth tokens, and the subschemas under it, as the library collects them;
// res is its resource.
func (c *compileCount) walk(v *jsonv.Value, ptrLen, depth int, res *resourceCount, limit int) {
	if (v.Kind != jsonv.KindObject && v.Kind != jsonv.KindBool) || c.schemas[v] {
		return
	}
	c.schemas[v] = true
	c.subschemas++
	// The resource lookup hashes each prefix of the location.
	c.locations = satAdd(c.locations, satMul(ptrLen, depth+1)/16)
	if c.subschemas&1023 == 0 && c.total() > limit {
		return // stop counting: over the budget already
	}
	if v.Kind != jsonv.KindObject {
		if res != c.resources[0] {
			c.nonRoot++
		}
		return
	}
	for _, key := range []string{"$id", "id"} {
		if id, ok := jsonv.GetString(v, key); ok && id != "" {
			if strings.HasPrefix(id, "#") {
				c.anchor(res, false)
			} else if depth > 0 || res.node != v {
				res = &resourceCount{node: v}
				c.resources = append(c.resources, res)
			}
		}
	}
	if res != c.resources[0] {
		c.nonRoot++
	}
	if _, ok := jsonv.GetString(v, "$anchor"); ok {
		c.anchor(res, false)
	}
	if _, ok := jsonv.GetString(v, "$dynamicAnchor"); ok {
		c.anchor(res, true)
	}
	for _, key := range refKeywords {
		if ref, ok := jsonv.GetString(v, key); ok {
			c.refs = append(c.refs, refAt{ref, res})
		}
	}
	if p, ok := jsonv.GetString(v, "pattern"); ok {
		c.patterns = satAdd(c.patterns, regexpSize(p))
	}
	if pp := v.Get("patternProperties"); pp != nil && pp.Kind == jsonv.KindObject {
		for _, m := range pp.Members {
			c.patterns = satAdd(c.patterns, regexpSize(m.Key))
		}
	}
	for _, m := range v.Members {
		key, sub := m.Key, m.Value
		p := ptrLen + 1 + len(key)
		if contains(singleSchemaKeywords, key) {
			c.walk(sub, p, depth+1, res, limit)
		}
		if contains(arraySchemaKeywords, key) && sub.Kind == jsonv.KindArray {
			for i, item := range sub.Arr {
				c.walk(item, p+1+len(strconv.Itoa(i)), depth+2, res, limit)
			}
		}
		if contains(mapSchemaKeywords, key) && sub.Kind == jsonv.KindObject {
			for _, mm := range sub.Members {
				c.walk(mm.Value, p+1+len(mm.Key), depth+2, res, limit)
			}
		}
	}
}

// anchor counts an anchor of res, dynamic or not.
func (c *compileCount) anchor(res *resourceCount, dynamic bool) {
	c.anchors++
	res.anchors++
	c.pairs = satAdd(c.pairs, res.dynamic)
	if dynamic {
		c.dynamic++
		res.dynamic++
		c.pairs = satAdd(c.pairs, res.anchors)
	}
}

// follow counts a reference: one by URL looks among the resources; one
// to a place that is not a subschema copies the tables and checks its
// target against the meta-schema, and the subschemas under the target
// are compiled too.
func (c *compileCount) follow(doc *jsonv.Value, ref refAt, limit int) {
	base, frag, _ := strings.Cut(ref.text, "#")
	if base != "" {
		c.byURL++
	}
	if !strings.HasPrefix(frag, "/") {
		return // a resource or an anchor: a subschema
	}
	var target *jsonv.Value
	if base == "" {
		target = lookupFragment(ref.res.node, frag)
	}
	if target != nil && c.schemas[target] {
		return
	}
	size := 0
	if target == nil {
		// Another resource's place, or one toolerr cannot find: counted
		// as the whole schema.
		size = c.sizeOf(doc)
	} else {
		size = c.sizeOf(target)
	}
	copyCost := satMul(stepClone, c.subschemas+c.anchors+len(c.resources))
	c.outside = satAdd(c.outside, satAdd(copyCost, satMul(stepMeta, size)))
	if target != nil {
		c.walk(target, len(frag), strings.Count(frag, "/"), ref.res, limit)
	}
}

// lookupFragment finds the place a JSON Pointer fragment names under
// node, or nil.
func lookupFragment(node *jsonv.Value, frag string) *jsonv.Value {
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	} else {
		return nil
	}
	cur := node
	for _, tok := range strings.Split(frag, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch cur.Kind {
		case jsonv.KindObject:
			cur = cur.Get(tok)
		case jsonv.KindArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.Arr) {
				return nil
			}
			cur = cur.Arr[i]
		default:
			return nil
		}
		if cur == nil {
			return nil
		}
	}
	return cur
}

// sizeOf counts the values under v, once each.
func (c *compileCount) sizeOf(v *jsonv.Value) int {
	if n, ok := c.sizes[v]; ok {
		return n
	}
	n := 1
	for _, item := range v.Arr {
		n += c.sizeOf(item)
	}
	for _, m := range v.Members {
		n += 1 + c.sizeOf(m.Value)
	}
	c.sizes[v] = n
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// satMax is where every count saturates: far past any budget (at most
// 16 x 4 MiB + 64 Mi), and small enough that a sum of two saturated counts
// still fits a 32-bit int, where the TinyGo build runs.
const satMax = 1 << 29

func satAdd(a, b int) int { return min(satMax, a+b) }

func satMul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > satMax/b {
		return satMax
	}
	return a * b
}
