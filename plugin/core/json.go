package core

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON types.
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

func (k Kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// Value is a decoded JSON value that keeps the order of object members.
//
// # Notes
//   - Numbers are float64, as in JavaScript; an overflowing literal is ±Inf.
//   - A repeated key keeps its first position and its last value, as
//     JSON.parse does.
//   - Invalid UTF-8 and lone surrogate escapes decode to U+FFFD.
type Value struct {
	Kind    Kind
	Bool    bool
	Num     float64
	Str     string
	Arr     []*Value
	Members []Member
}

// Member is one key of a JSON object.
type Member struct {
	Key   string
	Value *Value
}

// Get returns the member named key, or nil when v is not an object or has
// no such member.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != KindObject {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// syntaxError is a JSON syntax failure at a byte offset.
type syntaxError struct {
	msg    string
	offset int
}

func (e *syntaxError) Error() string {
	return e.msg + " at offset " + strconv.Itoa(e.offset)
}

// depthError reports nesting deeper than the limit.
type depthError struct{ limit int }

func (e *depthError) Error() string {
	return "nesting deeper than " + strconv.Itoa(e.limit) + " levels"
}

type decoder struct {
	data     []byte
	pos      int
	maxDepth int

	// Values come from chunks, and members and items collect on shared
	// stacks until their container ends: a document costs a few
	// allocations instead of one per value, which matters most inside
	// the module, where allocation and garbage collection are slow.
	vals    []Value
	members []Member
	items   []*Value
	count   int // values decoded so far
	// maxValues bounds count; 0 means no bound.
	maxValues int
}

// countError reports more values than the limit.
type countError struct{ limit int }

func (e *countError) Error() string {
	return "more than " + strconv.Itoa(e.limit) + " JSON values"
}

const valueChunk = 64

// newValue returns a pointer to a copy of v from the current chunk.
func (d *decoder) newValue(v Value) *Value {
	if len(d.vals) == cap(d.vals) {
		d.vals = make([]Value, 0, valueChunk)
	}
	d.vals = append(d.vals, v)
	return &d.vals[len(d.vals)-1]
}

// ParseJSON decodes one JSON document. Nesting deeper than maxDepth is an
// error; so is anything after the value but whitespace.
func ParseJSON(data []byte, maxDepth int) (*Value, error) {
	return parseJSONLimited(data, maxDepth, 0)
}

// parseJSONLimited is ParseJSON that also refuses more than maxValues
// values (0: no limit).
func parseJSONLimited(data []byte, maxDepth, maxValues int) (*Value, error) {
	d := decoder{data: data, maxDepth: maxDepth, maxValues: maxValues}
	d.skipSpace()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, d.fail("unexpected data after the JSON value")
	}
	return v, nil
}

func (d *decoder) fail(msg string) error { return &syntaxError{msg, d.pos} }

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (*Value, error) {
	if d.pos >= len(d.data) {
		return nil, d.fail("unexpected end of input")
	}
	if d.count++; d.maxValues > 0 && d.count > d.maxValues {
		return nil, &countError{d.maxValues}
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return d.newValue(Value{Kind: KindString, Str: s}), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	default:
		for _, lit := range [...]struct {
			word string
			v    Value
		}{{"true", Value{Kind: KindBool, Bool: true}}, {"false", Value{Kind: KindBool}}, {"null", Value{}}} {
			if len(d.data)-d.pos >= len(lit.word) && string(d.data[d.pos:d.pos+len(lit.word)]) == lit.word {
				d.pos += len(lit.word)
				return d.newValue(lit.v), nil
			}
		}
		return nil, d.fail("unexpected character " + quoteByte(c))
	}
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return "0x" + strconv.FormatUint(uint64(c), 16)
}

func (d *decoder) object(depth int) (*Value, error) {
	if depth > d.maxDepth {
		return nil, &depthError{d.maxDepth}
	}
	d.pos++ // {
	v := d.newValue(Value{Kind: KindObject})
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return v, nil
	}
	start := len(d.members)
	defer func() { d.members = d.members[:start] }()
	var index map[string]int // built only for larger objects
	for {
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.fail("unexpected end of input in an object")
		}
		if d.data[d.pos] != '"' {
			return nil, d.fail("expected a string key")
		}
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.fail("expected ':' after an object key")
		}
		d.pos++
		d.skipSpace()
		member, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		own := d.members[start:]
		if i, dup := lookupMember(own, index, key); dup {
			own[i].Value = member
		} else {
			d.members = append(d.members, Member{key, member})
			n := len(d.members) - start
			if index != nil {
				index[key] = n - 1
			} else if n > 16 {
				index = make(map[string]int, 2*n)
				for i, m := range d.members[start:] {
					index[m.Key] = i
				}
			}
		}
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.fail("unexpected end of input in an object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			v.Members = append([]Member(nil), d.members[start:]...)
			return v, nil
		default:
			return nil, d.fail("expected ',' or '}' in an object")
		}
	}
}

func lookupMember(members []Member, index map[string]int, key string) (int, bool) {
	if index != nil {
		i, ok := index[key]
		return i, ok
	}
	for i := range members {
		if members[i].Key == key {
			return i, true
		}
	}
	return 0, false
}

func (d *decoder) array(depth int) (*Value, error) {
	if depth > d.maxDepth {
		return nil, &depthError{d.maxDepth}
	}
	d.pos++ // [
	v := d.newValue(Value{Kind: KindArray})
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return v, nil
	}
	start := len(d.items)
	defer func() { d.items = d.items[:start] }()
	for {
		d.skipSpace()
		item, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		d.items = append(d.items, item)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.fail("unexpected end of input in an array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			v.Arr = append([]*Value(nil), d.items[start:]...)
			return v, nil
		default:
			return nil, d.fail("expected ',' or ']' in an array")
		}
	}
}

func (d *decoder) number() (*Value, error) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else if digits() == 0 {
		return nil, d.fail("invalid number")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return nil, d.fail("invalid number")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return nil, d.fail("invalid number")
		}
	}
	// The grammar is checked above, so the only possible error is a range
	// error, and then ParseFloat returns ±Inf or ±0 as JSON.parse does.
	f, _ := strconv.ParseFloat(string(d.data[start:d.pos]), 64)
	return d.newValue(Value{Kind: KindNumber, Num: f}), nil
}

// str decodes a string literal starting at the opening quote.
func (d *decoder) str() (string, error) {
	d.pos++ // "
	start := d.pos
	// Fast path: plain ASCII without escapes.
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			s := string(d.data[start:d.pos])
			d.pos++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		d.pos++
	}
	buf := make([]byte, 0, d.pos-start+16)
	buf = append(buf, d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), nil
		case c < 0x20:
			return "", d.fail("control character in a string")
		case c == '\\':
			d.pos++
			if d.pos >= len(d.data) {
				return "", d.fail("unexpected end of input in a string")
			}
			e := d.data[d.pos]
			d.pos++
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", d.fail("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if r < 0xdc00 && d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
						save := d.pos
						d.pos += 2
						if lo, ok := d.hex4(); ok {
							r2 = utf16.DecodeRune(r, lo)
						}
						if r2 < 0 || r2 == utf8.RuneError {
							d.pos = save // the next escape stands on its own
						}
					}
					if r2 < 0 {
						r2 = utf8.RuneError
					}
					r = r2
				}
				buf = utf8.AppendRune(buf, r)
			default:
				d.pos--
				return "", d.fail("invalid escape character " + quoteByte(e))
			}
		case c < 0x80:
			buf = append(buf, c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			buf = utf8.AppendRune(buf, r) // RuneError for invalid bytes
			d.pos += size
		}
	}
	return "", d.fail("unexpected end of input in a string")
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.data)-d.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	d.pos += 4
	return r, true
}
