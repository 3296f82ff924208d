package jsonv

import "strconv"

// Index finds the members of decoded objects by key in constant time, so
// that many lookups into one large object (an issue path per issue, say)
// cost one pass over it, not one pass per lookup. An object's map is built
// the first time it is searched, and only for objects of more than
// indexFrom members; smaller ones are scanned. The zero Index is ready to
// use; an Index must not outlive the values it indexes.
type Index struct {
	byObject map[*Value]map[string]int
}

// indexFrom is the member count from which an object gets a map.
const indexFrom = 8

// Position returns the position of key among obj's members, or -1 when obj
// is not an object or has no such member.
func (x *Index) Position(obj *Value, key string) int {
	if obj == nil || obj.Kind != KindObject {
		return -1
	}
	if len(obj.Members) <= indexFrom {
		for i := range obj.Members {
			if obj.Members[i].Key == key {
				return i
			}
		}
		return -1
	}
	m, ok := x.byObject[obj]
	if !ok {
		if x.byObject == nil {
			x.byObject = map[*Value]map[string]int{}
		}
		m = make(map[string]int, len(obj.Members))
		for i := len(obj.Members) - 1; i >= 0; i-- {
			m[obj.Members[i].Key] = i // the first of repeated keys, as Get
		}
		x.byObject[obj] = m
	}
	if i, ok := m[key]; ok {
		return i
	}
	return -1
}

// Get is Value.Get through the index.
func (x *Index) Get(obj *Value, key string) *Value {
	if i := x.Position(obj, key); i >= 0 {
		return obj.Members[i].Value
	}
	return nil
}

// LookupPath is the package's LookupPath through the index.
func (x *Index) LookupPath(args *Value, path []*Value) *Value {
	if len(path) == 0 {
		return nil
	}
	cur := args
	for _, seg := range path {
		if cur = x.Step(cur, seg); cur == nil {
			return nil
		}
	}
	return cur
}

// Step resolves one path segment inside cur, as property access does in
// JavaScript: an object member by key, an array item by a canonical index.
func (x *Index) Step(cur, seg *Value) *Value {
	if cur == nil {
		return nil
	}
	switch cur.Kind {
	case KindObject:
		return x.Get(cur, SegmentText(seg))
	case KindArray:
		key := SegmentText(seg)
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(cur.Arr) || strconv.Itoa(i) != key {
			return nil
		}
		return cur.Arr[i]
	}
	return nil
}

// LookupPointer is the package's LookupPointer through the index.
func (x *Index) LookupPointer(doc *Value, pointer string) *Value {
	if doc == nil {
		return nil
	}
	cur := doc
	for _, seg := range PointerPath(pointer) {
		if cur = x.Step(cur, seg); cur == nil {
			return nil
		}
	}
	return cur
}
