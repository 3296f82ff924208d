// Package jsonv is the JSON of toolerr's contract: a decoder that keeps
// object members in the order of the request's text and reads numbers with
// JavaScript's semantics, a writer that writes JSON the way JSON.stringify
// does (numbers as Number.prototype.toString), and lookups inside decoded
// values by property path and JSON Pointer.
//
// The decoder pools its memory for the call that owns it: decoded values
// and strings live until its next document.
package jsonv

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/toolerr/toolerr/plugin/internal/scan"
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

// GetString returns the string member key of v, and false when v has no such
// member or it is not a string.
func GetString(v *Value, key string) (string, bool) {
	if f := v.Get(key); f != nil && f.Kind == KindString {
		return f.Str, true
	}
	return "", false
}

// syntaxError is a JSON syntax failure at a byte offset.
type syntaxError struct {
	msg    string
	offset int
}

func (e *syntaxError) Error() string {
	return e.msg + " at offset " + strconv.Itoa(e.offset)
}

// DepthError reports nesting deeper than the limit.
type DepthError struct{ limit int }

func (e *DepthError) Error() string {
	return "nesting deeper than " + strconv.Itoa(e.limit) + " levels"
}

// Decoder decodes JSON documents into Values. A Decoder used again reuses
// its memory, so the values of one document live only until the next.
type Decoder struct {
	data     []byte
	pos      int
	maxDepth int

	// Values, members and items come from chunks, and members and items
	// collect on shared stacks until their container ends: a document
	// costs a few allocations instead of one per value, which matters
	// most inside the module, where allocation and garbage collection are
	// slow. A decoder used again (each pooled call has one) reuses its
	// chunks, so a small request decodes without allocating them at all:
	// its values are valid only until the decoder's next document.
	vals      []Value
	memArena  []Member
	itemArena []*Value
	members   []Member
	items     []*Value
	// strs holds the bytes of every decoded string of this document; the
	// strings are views of it. Like the values, they are valid until the
	// decoder's next document, which reuses strs: a pooled call's strings
	// die with the call, and whatever keeps one longer (the schema and diff
	// caches) clones it first.
	strs  []byte
	count int // values decoded so far
	// maxValues bounds count; 0 means no bound.
	maxValues int
	// top is the document when it is an object, and texts where the
	// value of each of its members is in data, in the order of its
	// members (TopText).
	top   *Value
	texts []span
	// knownKey and known, for one ParseKnowing, the value that stood for
	// a member known, and what known found for it (Deferred).
	knownKey string
	known    Known
	deferred *Value
	found    any
}

// span is a byte range of the document, [start, end).
type span struct{ start, end int }

// Chunk sizes: the first chunk of a kind, and the largest a pooled decoder
// keeps (so a huge request does not pin its memory in the pool).
const (
	firstChunk = 64
	MaxChunk   = 1024
	maxStrings = 64 << 10 // bytes of strings
)

// start readies d for data.
func (d *Decoder) start(data []byte, maxDepth, maxValues int) {
	d.data, d.pos, d.maxDepth, d.maxValues, d.count = data, 0, maxDepth, maxValues, 0
	d.vals, d.memArena, d.itemArena = d.vals[:0], d.memArena[:0], d.itemArena[:0]
	d.members, d.items = d.members[:0], d.items[:0]
	d.strs = d.strs[:0]
	d.top, d.texts = nil, d.texts[:0]
	d.knownKey, d.known, d.deferred, d.found = "", nil, nil, nil
}

// TopText is the JSON text of member key of top, which must be the
// decoder's last document, as that document wrote it (the last of the
// same name, whose value the member holds); nil when top has no such
// member or is not an object the decoder's last document is. Valid while
// the document's data is.
func (d *Decoder) TopText(top *Value, key string) []byte {
	if top == nil || top != d.top || len(top.Members) != len(d.texts) {
		return nil
	}
	for i := range top.Members {
		if top.Members[i].Key == key {
			t := d.texts[i]
			return d.data[t.start:t.end]
		}
	}
	return nil
}

// strChunk is the size of a new chunk of string bytes.
const strChunk = 16 << 10

// room makes d.strs able to take n more bytes without moving: when it
// cannot, strings continue in a new chunk, and the strings in the old one
// stay where they are.
func (d *Decoder) room(n int) {
	if cap(d.strs)-len(d.strs) < n {
		d.strs = make([]byte, 0, max(n, strChunk))
	}
}

// trim drops what a large document grew, so that a pooled decoder does not
// pin it, and forgets the data.
func (d *Decoder) Trim() {
	d.data, d.top = nil, nil
	d.texts = KeepUpTo(d.texts, MaxChunk)[:0]
	d.strs = KeepUpTo(d.strs, maxStrings)
	d.vals = KeepUpTo(d.vals, MaxChunk)
	d.memArena, d.members = KeepUpTo(d.memArena, MaxChunk), KeepUpTo(d.members, MaxChunk)
	d.itemArena, d.items = KeepUpTo(d.itemArena, MaxChunk), KeepUpTo(d.items, MaxChunk)
}

// KeepUpTo returns s, or nil when its capacity is over limit.
func KeepUpTo[T any](s []T, limit int) []T {
	if cap(s) > limit {
		return nil
	}
	return s
}

// chunkCap is the capacity of the next chunk after one of capacity old,
// when n elements must fit.
func chunkCap(old, n int) int {
	return max(n, min(max(2*old, firstChunk), MaxChunk))
}

// CountError reports more values than the limit.
type CountError struct{ limit int }

func (e *CountError) Error() string {
	return "more than " + strconv.Itoa(e.limit) + " JSON values"
}

// newValue returns a new value of kind k, zero otherwise, from the current
// chunk.
func (d *Decoder) newValue(k Kind) *Value {
	if len(d.vals) == cap(d.vals) {
		d.vals = make([]Value, 0, chunkCap(cap(d.vals), 1))
	}
	d.vals = d.vals[:len(d.vals)+1]
	v := &d.vals[len(d.vals)-1]
	*v = Value{Kind: k}
	return v
}

// ParseJSON decodes one JSON document. Nesting deeper than maxDepth is an
// error; so is anything after the value but whitespace.
func ParseJSON(data []byte, maxDepth int) (*Value, error) {
	return parseJSONLimited(data, maxDepth, 0)
}

// parseJSONLimited is ParseJSON that also refuses more than maxValues
// values (0: no limit).
func parseJSONLimited(data []byte, maxDepth, maxValues int) (*Value, error) {
	var d Decoder
	return d.Parse(data, maxDepth, maxValues)
}

// Parse decodes data with d.
func (d *Decoder) Parse(data []byte, maxDepth, maxValues int) (*Value, error) {
	return d.parse(data, maxDepth, maxValues, "", nil)
}

// Known says whether text, the value of a member of a document's top
// object, is one decoded before as that member's value of a document read
// with the same limits: what the caller keeps for it (nil: unknown), and
// how many values it holds.
type Known func(text []byte) (found any, values int)

// ParseKnowing is Parse, except that the value of the top object's member
// key is not decoded when known knows its text: what the member holds is
// then Deferred, a value of the text's kind and nothing more (an object
// without members, or a boolean; known may know only those), and the
// values the text holds count towards maxValues all at once. The outcome
// is Parse's otherwise, errors included: a known text decoded once
// without an error, at the same place and within the same limits.
func (d *Decoder) ParseKnowing(data []byte, maxDepth, maxValues int, key string, known Known) (*Value, error) {
	return d.parse(data, maxDepth, maxValues, key, known)
}

// Count is how many values the last document held (so far, after an
// error).
func (d *Decoder) Count() int { return d.count }

// Deferred is the value that stood for the known member of the last
// ParseKnowing (the last of the same name), and what known found for its
// text; nil, nil when its text was decoded.
func (d *Decoder) Deferred() (*Value, any) { return d.deferred, d.found }

func (d *Decoder) parse(data []byte, maxDepth, maxValues int, key string, known Known) (*Value, error) {
	d.start(data, maxDepth, maxValues)
	d.knownKey, d.known = key, known
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

func (d *Decoder) fail(msg string) error { return &syntaxError{msg, d.pos} }

func (d *Decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *Decoder) value(depth int) (*Value, error) {
	if d.pos >= len(d.data) {
		return nil, d.fail("unexpected end of input")
	}
	if d.count++; d.maxValues > 0 && d.count > d.maxValues {
		return nil, &CountError{d.maxValues}
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
		v := d.newValue(KindString)
		v.Str = s
		return v, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	default:
		rest := d.data[d.pos:]
		switch {
		case len(rest) >= 4 && View(rest[:4]) == "true":
			d.pos += 4
			v := d.newValue(KindBool)
			v.Bool = true
			return v, nil
		case len(rest) >= 5 && View(rest[:5]) == "false":
			d.pos += 5
			return d.newValue(KindBool), nil
		case len(rest) >= 4 && View(rest[:4]) == "null":
			d.pos += 4
			return d.newValue(KindNull), nil
		}
		return nil, d.fail("unexpected character " + quoteByte(c))
	}
}

// View is b as a string without a copy, for comparing it or reading it at
// once (never to keep: b's bytes may change): TinyGo allocates a copy for
// string(b) even there, where the Go compiler does not.
func View(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return "0x" + strconv.FormatUint(uint64(c), 16)
}

// Not inlined: a function of its own in the module, one JVM method under
// HotSpot's compile limit on Chicory (RATIONALE.md, "The module's
// functions and HotSpot").
//
//go:noinline
func (d *Decoder) object(depth int) (*Value, error) {
	if depth > d.maxDepth {
		return nil, &DepthError{d.maxDepth}
	}
	d.pos++ // {
	v := d.newValue(KindObject)
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return v, nil
	}
	// On an error the document is abandoned, so only success unwinds the
	// member stack.
	start := len(d.members)
	var index map[string]int // built only for larger objects
	for closed := false; !closed; {
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
		at := d.pos
		var member *Value
		if depth == 1 && d.known != nil && key == d.knownKey {
			if member, err = d.skipKnown(); err != nil {
				return nil, err
			}
			if member == nil {
				d.deferred, d.found = nil, nil // this one, the last so far, is decoded
			}
		}
		if member == nil {
			if member, err = d.value(depth); err != nil {
				return nil, err
			}
		}
		own := d.members[start:]
		if i, dup := lookupMember(own, index, key); dup {
			own[i].Value = member
			if depth == 1 {
				d.texts[i] = span{at, d.pos}
			}
		} else {
			if depth == 1 {
				d.texts = append(d.texts, span{at, d.pos})
			}
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
		if closed, err = d.next('}', "unexpected end of input in an object", "expected ',' or '}' in an object"); err != nil {
			return nil, err
		}
	}
	v.Members = keep(&d.memArena, &d.members, start)
	if depth == 1 {
		d.top = v
	}
	return v, nil
}

// skipKnown stands in for the value at d.pos when d.known knows its text:
// nil (and nothing read) when it does not.
func (d *Decoder) skipKnown() (*Value, error) {
	end, ok := skipValue(d.data, d.pos)
	if !ok {
		return nil, nil
	}
	found, n := d.known(d.data[d.pos:end])
	if found == nil {
		return nil, nil
	}
	if d.count += n; d.maxValues > 0 && d.count > d.maxValues {
		return nil, &CountError{d.maxValues}
	}
	var v *Value
	switch d.data[d.pos] {
	case '{':
		v = d.newValue(KindObject)
	case 't', 'f':
		v = d.newValue(KindBool)
		v.Bool = d.data[d.pos] == 't'
	default:
		return nil, nil
	}
	d.pos = end
	d.deferred, d.found = v, found
	return v, nil
}

// skipValue returns where the object, array, true or false at data[i]
// ends, matching brackets and skipping strings, without checking more:
// for a text that is not JSON it finds some end or none.
func skipValue(data []byte, i int) (int, bool) {
	rest := View(data[i:])
	switch {
	case strings.HasPrefix(rest, "true"):
		return i + 4, true
	case strings.HasPrefix(rest, "false"):
		return i + 5, true
	case rest == "" || rest[0] != '{' && rest[0] != '[':
		return 0, false
	}
	open := 0
	for ; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			open++
		case '}', ']':
			if open--; open == 0 {
				return i + 1, true
			}
		case '"':
			for i = scan.SkipJSONPlainBytes(data, i+1); i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if i >= len(data) {
				return 0, false
			}
		}
	}
	return 0, false
}

// next reads what follows a member or an item: a comma (false) or end,
// which closes the object or array (true); truncated and unexpected name
// the errors for either.
func (d *Decoder) next(end byte, truncated, unexpected string) (bool, error) {
	d.skipSpace()
	if d.pos >= len(d.data) {
		return false, d.fail(truncated)
	}
	switch d.data[d.pos] {
	case ',':
		d.pos++
		return false, nil
	case end:
		d.pos++
		return true, nil
	}
	return false, d.fail(unexpected)
}

// keep moves the members or items of the object or array being closed,
// those on *stack from start, into their chunk, *arena (a new chunk when
// they do not fit in what is left of it), and returns them there.
func keep[T any](arena, stack *[]T, start int) []T {
	xs := (*stack)[start:]
	if cap(*arena)-len(*arena) < len(xs) {
		*arena = make([]T, 0, chunkCap(cap(*arena), len(xs)))
	}
	i := len(*arena)
	*arena = append(*arena, xs...)
	*stack = (*stack)[:start]
	return (*arena)[i:len(*arena):len(*arena)]
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

// Not inlined: a function of its own in the module, one JVM method under
// HotSpot's compile limit on Chicory (RATIONALE.md, "The module's
// functions and HotSpot").
//
//go:noinline
func (d *Decoder) array(depth int) (*Value, error) {
	if depth > d.maxDepth {
		return nil, &DepthError{d.maxDepth}
	}
	d.pos++ // [
	v := d.newValue(KindArray)
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return v, nil
	}
	start := len(d.items) // unwound on success, as in object
	for closed := false; !closed; {
		d.skipSpace()
		item, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		d.items = append(d.items, item)
		if closed, err = d.next(']', "unexpected end of input in an array", "expected ',' or ']' in an array"); err != nil {
			return nil, err
		}
	}
	v.Arr = keep(&d.itemArena, &d.items, start)
	return v, nil
}

func (d *Decoder) number() (*Value, error) {
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
	v := d.newValue(KindNumber)
	v.Num = parseNumber(d.data[start:d.pos])
	return v, nil
}

// parseNumber converts a checked number literal. Integers of up to 15
// digits are exact in a float64 and skip ParseFloat, which is slow inside
// the module.
func parseNumber(lit []byte) float64 {
	digits, neg := lit, false
	if len(digits) > 0 && digits[0] == '-' {
		digits, neg = digits[1:], true
	}
	if len(digits) <= 15 {
		var n int64 // 15 digits need more than 32 bits (int, under TinyGo)
		for _, c := range digits {
			if c < '0' || c > '9' {
				goto general
			}
			n = n*10 + int64(c-'0')
		}
		if neg {
			return -float64(n) // -0 for "-0", as JSON.parse gives
		}
		return float64(n)
	}
general:
	// ParseFloat keeps nothing of its argument, so it reads lit in place.
	f, _ := strconv.ParseFloat(unsafe.String(unsafe.SliceData(lit), len(lit)), 64)
	return f
}

// str decodes a string literal starting at the opening quote.
func (d *Decoder) str() (string, error) {
	d.pos++ // "
	start := d.pos
	// Fast path: plain ASCII without escapes.
	d.pos = scan.SkipJSONPlainBytes(d.data, d.pos)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			d.room(d.pos - start)
			mark := len(d.strs)
			d.strs = append(d.strs, d.data[start:d.pos]...)
			d.pos++
			return d.strFrom(mark), nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		d.pos++
	}
	d.room(d.pos - start + 16)
	mark := len(d.strs)
	buf := append(d.strs, d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		if plain := scan.SkipJSONPlainBytes(d.data, d.pos); plain > d.pos {
			buf = append(buf, d.data[d.pos:plain]...) // plain words at once
			if d.pos = plain; d.pos == len(d.data) {
				break
			}
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			d.strs = buf
			return d.strFrom(mark), nil
		case c < 0x20:
			return "", d.fail("control character in a string")
		case c == '\\':
			d.pos++
			if d.pos >= len(d.data) {
				return "", d.fail("unexpected end of input in a string")
			}
			var ok bool
			if buf, d.pos, ok = AppendEscape(buf, d.data, d.pos); !ok {
				if e := d.data[d.pos]; e != 'u' {
					return "", d.fail("invalid escape character " + quoteByte(e))
				}
				d.pos++
				return "", d.fail("invalid \\u escape")
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

// strFrom returns the string decoded into d.strs from mark on. Those bytes
// are not written again during this document: later strings only append,
// and a full d.strs moves to new memory, leaving earlier strings where they
// are.
func (d *Decoder) strFrom(mark int) string {
	if len(d.strs) == mark {
		return ""
	}
	return unsafe.String(&d.strs[mark], len(d.strs)-mark)
}

// unescaped is the byte a two-byte escape stands for, by the letter after
// its backslash; 0 for a letter that makes no such escape ('u' begins a
// longer one).
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// AppendEscape appends to b the text of the escape whose letter (the byte
// after its backslash) is s[i], and returns b and the index after the
// escape. A high surrogate escape followed by a low one is one character;
// any other surrogate escape stands alone and gives U+FFFD. ok is false,
// with b and i as they came, when the escape is not valid JSON: an unknown
// letter, or a \u not followed by four hexadecimal digits.
func AppendEscape(b, s []byte, i int) (_ []byte, next int, ok bool) {
	e := s[i]
	if c := unescaped[e]; c != 0 {
		return append(b, c), i + 1, true
	}
	if e != 'u' {
		return b, i, false
	}
	r, ok := hex4(s, i+1)
	if !ok {
		return b, i, false
	}
	next = i + 5
	if r >= 0xd800 && r < 0xdc00 && next+1 < len(s) && s[next] == '\\' && s[next+1] == 'u' {
		if lo, ok := hex4(s, next+2); ok {
			if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
				r = pair
				next += 6
			}
		}
	}
	return utf8.AppendRune(b, r), next, true // a lone surrogate: U+FFFD
}

// hex4 reads the four hexadecimal digits at s[i:].
func hex4(s []byte, i int) (rune, bool) {
	if len(s)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
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
	return r, true
}
