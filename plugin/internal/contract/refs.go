package contract

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// refKeywords are the keywords that refer to another subschema, in the
// order a reference is looked for: a subschema that holds both a $ref and
// a $dynamicRef is resolved through its $ref, and its $dynamicRef is
// compared as written.
var refKeywords = []string{"$ref", "$dynamicRef", "$recursiveRef"}

// bookkeeping are the keywords beside a reference that say nothing about
// the values a schema accepts (identifiers, definitions, comments): a view
// leaves them out.
var bookkeeping = map[string]bool{
	"$id": true, "$schema": true, "$anchor": true, "$dynamicAnchor": true, "$recursiveAnchor": true,
	"$defs": true, "definitions": true, "$comment": true, "$vocabulary": true,
}

// annotations are the keywords that describe a schema without narrowing
// what it accepts: written both beside a reference and in its target, the
// one beside the reference stands, as the nearer annotation does in a
// validator's output.
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
}

// schemaView is what a subschema of a diff stands for.
type schemaView struct {
	// schema is the subschema, or, when it refers to another one through a
	// local reference, that target with the keywords written beside each
	// reference along the way merged in (from draft 2019-09 on they apply
	// beside the reference; draft-07 ignores them, where a delta for them
	// is cautious rather than wrong).
	schema *jsonv.Value
	// merged is set when schema was made by the diff rather than read from
	// the document.
	merged bool
	// beside holds the keywords beside a reference that its target also
	// holds (a maxLength on both, say): they are not merged, and a change
	// of them is reported as not compared.
	beside *jsonv.Value
}

// view returns the schemaView of v, whose document is root.
func (s *schemaDiff) view(root, v *jsonv.Value) schemaView {
	d := s.d
	var siblings []jsonv.Member // outermost first
	cur := v
	for i := 0; i < 32 && cur != nil && cur.Kind == jsonv.KindObject && !d.over; i++ {
		key, ref := "", (*jsonv.Value)(nil)
		for _, k := range refKeywords[:2] {
			if r := get(cur, k); r != nil && r.Kind == jsonv.KindString {
				key, ref = k, r
				break
			}
		}
		if ref == nil {
			break
		}
		d.charge(1 + len(ref.Str))
		target := s.lookupRef(root, ref.Str)
		if target == nil || target == cur {
			break
		}
		for _, m := range cur.Members {
			if m.Key != key && !bookkeeping[m.Key] {
				siblings = append(siblings, m)
			}
		}
		cur = target
	}
	if len(siblings) == 0 || cur == nil || d.over {
		return schemaView{schema: cur}
	}
	if cur.Kind == jsonv.KindBool {
		if !cur.Bool {
			return schemaView{schema: cur} // nothing beside false widens it
		}
		cur = &jsonv.Value{Kind: jsonv.KindObject}
	}
	if cur.Kind != jsonv.KindObject {
		return schemaView{schema: cur}
	}
	d.charge(len(cur.Members) + len(siblings))
	members := append([]jsonv.Member(nil), cur.Members...)
	var beside []jsonv.Member
	for i := len(siblings) - 1; i >= 0; i-- { // innermost first: the outer annotation stands
		m := siblings[i]
		j := slices.IndexFunc(members, func(x jsonv.Member) bool { return x.Key == m.Key })
		switch {
		case j < 0:
			members = append(members, m)
		case annotations[m.Key]:
			members[j] = m
		default:
			beside = append(beside, m)
		}
	}
	view := schemaView{schema: canonicalObject(members), merged: true}
	if len(beside) > 0 {
		view.beside = canonicalObject(beside)
	}
	return view
}

// canonicalObject is an object of members sorted as the lockfile sorts
// keys, which get relies on; a repeated key keeps its first member.
func canonicalObject(members []jsonv.Member) *jsonv.Value {
	sort.SliceStable(members, func(i, j int) bool { return lessUTF16(members[i].Key, members[j].Key) })
	out := members[:0]
	for i, m := range members {
		if i > 0 && m.Key == out[len(out)-1].Key {
			continue
		}
		out = append(out, m)
	}
	return &jsonv.Value{Kind: jsonv.KindObject, Members: out}
}

// lookupRef resolves a local reference inside the document root: "#" is
// the root, "#/a/b" a JSON Pointer and "#name" a plain-name fragment (an
// $anchor or $dynamicAnchor, or a draft-07 "$id": "#name"), each after
// percent-decoding, as a URI fragment is read. Anything else, and a
// fragment that leads nowhere, is nil: the reference is then compared as
// written.
func (s *schemaDiff) lookupRef(root *jsonv.Value, ref string) *jsonv.Value {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	fragment, ok := percentDecode(ref[1:])
	switch {
	case !ok:
		return nil
	case fragment == "":
		return root
	case fragment[0] == '/':
		return lookupPointer(root, fragment)
	}
	return s.anchors(root)[fragment]
}

// percentDecode decodes the %XX escapes of a URI fragment; false for a
// malformed one.
func percentDecode(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(n))
		i += 2
	}
	return b.String(), true
}

// lookupPointer resolves a JSON Pointer ("/a/0") inside the canonical
// value doc; nil when absent.
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

// notSchemas are the keywords whose values are data, not subschemas: an
// "$anchor" inside an enum value names nothing.
var notSchemas = map[string]bool{"enum": true, "const": true, "default": true, "examples": true}

// anchors returns the plain-name fragments of the document root, found in
// one walk of it the first time it is asked (a step per value). A name
// given twice resolves to nothing: the reference is compared as written.
func (s *schemaDiff) anchors(root *jsonv.Value) map[string]*jsonv.Value {
	if m, ok := s.anchorsOf[root]; ok {
		return m
	}
	m := map[string]*jsonv.Value{}
	seen := map[string]bool{}
	name := func(n string, v *jsonv.Value) {
		if seen[n] {
			m[n] = nil
			return
		}
		seen[n], m[n] = true, v
	}
	var walk func(v *jsonv.Value)
	walk = func(v *jsonv.Value) {
		if s.d.over {
			return
		}
		s.d.charge(1)
		switch v.Kind {
		case jsonv.KindArray:
			for _, item := range v.Arr {
				walk(item)
			}
		case jsonv.KindObject:
			for _, k := range []string{"$anchor", "$dynamicAnchor"} {
				if a := get(v, k); a != nil && a.Kind == jsonv.KindString && a.Str != "" {
					name(a.Str, v)
				}
			}
			if id := get(v, "$id"); id != nil && id.Kind == jsonv.KindString && len(id.Str) > 1 && id.Str[0] == '#' {
				name(id.Str[1:], v)
			}
			for _, mem := range v.Members {
				if !notSchemas[mem.Key] {
					walk(mem.Value)
				}
			}
		}
	}
	if root != nil {
		walk(root)
	}
	s.anchorsOf[root] = m
	return m
}

// hasRef reports whether v holds a reference anywhere, a step per value.
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
			if m.Key == "$ref" || m.Key == "$dynamicRef" || m.Key == "$recursiveRef" || d.hasRef(m.Value) {
				return true
			}
		}
	}
	return false
}
