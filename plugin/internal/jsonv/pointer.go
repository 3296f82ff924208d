package jsonv

import (
	"strconv"
	"strings"
)

// SegmentText is a path segment as a property key: a number as NUM.
func SegmentText(seg *Value) string {
	if seg.Kind == KindNumber {
		return FormatNumber(seg.Num)
	}
	return seg.Str
}

// LookupPath resolves path inside args the way property access does in
// JavaScript; nil means absent. The root path is always absent, as in the
// reference.
func LookupPath(args *Value, path []*Value) *Value {
	if len(path) == 0 {
		return nil
	}
	cur := args
	for _, seg := range path {
		if cur == nil {
			return nil
		}
		key := SegmentText(seg)
		switch cur.Kind {
		case KindObject:
			cur = cur.Get(key)
		case KindArray:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(cur.Arr) || strconv.Itoa(i) != key {
				return nil
			}
			cur = cur.Arr[i]
		default:
			return nil
		}
	}
	return cur
}

// PointerPath turns a JSON Pointer ("/a/0/b", or a "#/..." fragment) into
// path segments; "" is the root.
func PointerPath(p string) []*Value {
	p = strings.TrimPrefix(p, "#")
	if p == "" {
		return nil
	}
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return []*Value{{Kind: KindString, Str: ""}}
	}
	parts := strings.Split(p, "/")
	out := make([]*Value, len(parts))
	for i, part := range parts {
		out[i] = &Value{Kind: KindString, Str: UnescapeToken(part)}
	}
	return out
}

// UnescapeToken decodes one JSON Pointer reference token (~1 is /, ~0 is ~).
func UnescapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

// LookupPointer resolves a JSON Pointer inside doc; nil when absent.
func LookupPointer(doc *Value, pointer string) *Value {
	if doc == nil {
		return nil
	}
	cur := doc
	for _, seg := range PointerPath(pointer) {
		cur = LookupPath(cur, []*Value{seg})
		if cur == nil {
			return nil
		}
	}
	return cur
}
