package gate

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// span is a byte range of the line, [start, end).
type span struct{ start, end int }

// valueKind is the kind of a JSON value the scan records, from its first
// byte.
type valueKind uint8

const (
	kindNone valueKind = iota // absent
	kindString
	kindNumber
	kindObject
	kindArray
	kindBool
	kindNull
)

func kindOf(c byte) valueKind {
	switch c {
	case '"':
		return kindString
	case '{':
		return kindObject
	case '[':
		return kindArray
	case 't', 'f':
		return kindBool
	case 'n':
		return kindNull
	}
	return kindNumber
}

// member is what the scan keeps of one member of the message or of its
// params: where its value is, its kind, and (for a string) its text.
type member struct {
	kind  valueKind
	at    span
	text  string // a string value, decoded (only for the members read as names)
	twice bool   // given more than once: the message is ambiguous
}

// scan is what the gate reads of one line, in one pass without recursion.
type scan struct {
	// ok: the line is one JSON value; cut: it ended before that value did
	// (the head of a longer line) without a syntax error before its end.
	ok, cut bool
	// object: the value is an object (what a JSON-RPC message is).
	object bool

	jsonrpc, id, method, params, result, errorMember member
	// other is the first member of the message that is none of those.
	other     member
	otherName string
	// name, arguments, _meta and cursor of params, when params is an
	// object, and the progress token of its _meta.
	name, arguments, meta, cursor, progressToken member
	// relatedTask is _meta's "io.modelcontextprotocol/related-task", and
	// taskID its "taskId".
	relatedTask, taskID member
	// protocolVersion is _meta's "io.modelcontextprotocol/protocolVersion",
	// which only a request of the stateless protocol (2026-07-28) carries.
	protocolVersion member
	// code and message of the error, when it is an object.
	errorCode, errorMessage member

	depth        int  // the deepest nesting of the whole message ({} is 1)
	hugeOutside  bool // a number beyond a float64 outside the arguments
	argsDepth    int  // the arguments' own nesting ({} is 1, a scalar 0)
	argsValues   int  // the values the arguments hold, themselves included
	argsHuge     bool // a number beyond a float64 in the arguments
	argsHugeText span // the first such number

	// edits that make the line one an SDK reads intact: lone surrogate
	// escapes and bytes that are not UTF-8, inside strings, become U+FFFD.
	fixes []span
	// fixEscapes says, for each fix, whether it is an escape (\ud800)
	// rather than raw bytes.
	fixEscapes []bool
}

// frame is an open object or array down to the level below params (the
// members of _meta); below it only the kind is kept, one bit a level.
type frame struct {
	object bool
	key    string // the member being read (objects of the first two levels)
}

// scanner reads one line.
type scanner struct {
	b     []byte
	s     scan
	top   [4]frame // the message, its params (or result, error, ...), their members and theirs
	deep  []uint64 // a bit per level below the second: 1 for an object
	level int      // the open levels
	// argsLevel is the level the arguments' value is at while it is read
	// (3), or 0.
	argsLevel int
}

func (sc *scanner) push(object bool) {
	if sc.level < len(sc.top) {
		sc.top[sc.level] = frame{object: object}
	} else {
		i := sc.level - len(sc.top)
		if i/64 >= len(sc.deep) {
			sc.deep = append(sc.deep, 0)
		}
		if object {
			sc.deep[i/64] |= 1 << (i % 64)
		} else {
			sc.deep[i/64] &^= 1 << (i % 64)
		}
	}
	sc.level++
	sc.s.depth = max(sc.s.depth, sc.level)
	if sc.argsLevel > 0 {
		sc.s.argsDepth = max(sc.s.argsDepth, sc.level-sc.argsLevel+1)
	}
}

// isObject reports whether the innermost open level is an object.
func (sc *scanner) isObject() bool {
	l := sc.level - 1
	if l < len(sc.top) {
		return sc.top[l].object
	}
	i := l - len(sc.top)
	return sc.deep[i/64]&(1<<(i%64)) != 0
}

// scanLine reads b. With cut set, b is the head of a longer line: running
// out of input is not a syntax error. The scan is returned by pointer (to
// the scanner's own): in the module a scan passed or returned by value is
// copied field by field, and passed to a function of its own it becomes
// dozens of arguments, a call HotSpot cannot compile on Chicory, which
// left the gate interpreted there. The scanner starts over: what it held
// of a line before is gone (the first scan's fixes are applied before a
// line is scanned again).
func (sc *scanner) scanLine(b []byte, cut bool) *scan {
	*sc = scanner{b: b, deep: sc.deep[:0]}
	if !sc.run() {
		if !cut || !sc.s.cut {
			sc.s = scan{}
		}
		return &sc.s
	}
	if cut {
		// A head that is a whole value is not what the host said it is.
		sc.s = scan{}
		return &sc.s
	}
	sc.s.ok = true
	return &sc.s
}

// run reads the line; false on a syntax error (or, with s.cut set, at the
// end of the input before the value's).
func (sc *scanner) run() bool {
	const (
		stValue      = iota // a value is expected
		stValueOrEnd        // after '['
		stKeyOrEnd          // after '{'
		stKey               // after ',' in an object
		stColon
		stAfter // after a value
	)
	b := sc.b
	state := stValue
	started := false
	i := 0
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
			i++
		}
		if i == len(b) {
			if state == stAfter && sc.level == 0 {
				return true
			}
			sc.s.cut = started
			return false
		}
		c := b[i]
		switch state {
		case stKeyOrEnd, stKey:
			if c == '}' && state == stKeyOrEnd {
				i++
				sc.end(i)
				state = stAfter
				continue
			}
			if c != '"' {
				return false
			}
			end, ok := sc.str(i)
			if !ok {
				return false
			}
			// Keys are read down to the members of params, and of its _meta
			// and related task (never those of the arguments, which may be
			// many).
			if sc.level <= 2 || sc.level == 3 && sc.inMeta() || sc.level == 4 && sc.inRelatedTask() {
				sc.top[sc.level-1].key = decode(b[i:end])
			}
			i = end
			state = stColon
			continue
		case stColon:
			if c != ':' {
				return false
			}
			i++
			state = stValue
			continue
		case stAfter:
			if sc.level == 0 {
				return false // more after the value
			}
			switch {
			case c == ',' && sc.isObject():
				state = stKey
			case c == ',':
				state = stValue
			case (c == '}' && sc.isObject()) || (c == ']' && !sc.isObject()):
				i++
				sc.end(i)
				continue
			default:
				return false
			}
			i++
			continue
		}
		if c == ']' && state == stValueOrEnd {
			i++
			sc.end(i)
			state = stAfter
			continue
		}
		// A value starts at i.
		if !started {
			started = true
			sc.s.object = c == '{'
		}
		m := sc.memberAt(i, c)
		if sc.argsLevel > 0 {
			sc.s.argsValues++
		}
		switch c {
		case '{', '[':
			sc.push(c == '{')
			i++
			if c == '{' {
				state = stKeyOrEnd
			} else {
				state = stValueOrEnd
			}
			continue
		case '"':
			end, ok := sc.str(i)
			if !ok {
				return false
			}
			if m != nil && (m == &sc.s.jsonrpc || m == &sc.s.method || m == &sc.s.name) {
				m.text = decode(b[i:end])
			}
			i = end
		case 't', 'f', 'n':
			word := "null"
			if c == 't' {
				word = "true"
			} else if c == 'f' {
				word = "false"
			}
			if len(b)-i < len(word) {
				if jsonv.View(b[i:]) == word[:len(b)-i] {
					sc.s.cut = true
				}
				return false
			}
			if jsonv.View(b[i:i+len(word)]) != word {
				return false
			}
			i += len(word)
		default:
			end, ok := scanNumber(b, i)
			if !ok {
				sc.s.cut = end == len(b)
				return false
			}
			if beyondFloat64(b[i:end]) {
				if sc.argsLevel > 0 {
					if !sc.s.argsHuge {
						sc.s.argsHugeText = span{i, end}
					}
					sc.s.argsHuge = true
				} else {
					sc.s.hugeOutside = true
				}
			}
			i = end
		}
		sc.endScalar(i, m)
		state = stAfter
	}
}

// memberAt notes the value starting at i, first byte c, when it is one
// the gate reads, and returns it.
func (sc *scanner) memberAt(i int, c byte) *member {
	m := sc.member()
	switch {
	case m == &sc.s.arguments:
		sc.argsLevel = 3
	case m == nil && sc.level == 1 && sc.top[0].object && sc.s.other.kind == kindNone:
		m, sc.s.otherName = &sc.s.other, sc.top[0].key
	case m == nil:
		return nil
	}
	if m.kind != kindNone {
		m.twice = true
	}
	m.kind = kindOf(c)
	m.at = span{i, -1}
	return m
}

// member returns the member the gate reads whose value is at the current
// level (the value of the innermost key), or nil.
func (sc *scanner) member() *member {
	switch {
	case sc.level == 1 && sc.top[0].object:
		switch sc.top[0].key {
		case "jsonrpc":
			return &sc.s.jsonrpc
		case "id":
			return &sc.s.id
		case "method":
			return &sc.s.method
		case "params":
			return &sc.s.params
		case "result":
			return &sc.s.result
		case "error":
			return &sc.s.errorMember
		}
	case sc.level == 2 && sc.top[0].object && sc.top[0].key == "params" && sc.top[1].object:
		switch sc.top[1].key {
		case "name":
			return &sc.s.name
		case "arguments":
			return &sc.s.arguments
		case "_meta":
			return &sc.s.meta
		case "cursor":
			return &sc.s.cursor
		}
	case sc.level == 3 && sc.inMeta() && sc.top[2].key == "progressToken":
		return &sc.s.progressToken
	case sc.level == 3 && sc.inMeta() && sc.top[2].key == relatedTaskKey:
		return &sc.s.relatedTask
	case sc.level == 3 && sc.inMeta() && sc.top[2].key == protocolVersionKey:
		return &sc.s.protocolVersion
	case sc.level == 4 && sc.inRelatedTask() && sc.top[3].key == "taskId":
		return &sc.s.taskID
	case sc.level == 2 && sc.top[0].object && sc.top[0].key == "error" && sc.top[1].object:
		switch sc.top[1].key {
		case "code":
			return &sc.s.errorCode
		case "message":
			return &sc.s.errorMessage
		}
	}
	return nil
}

// inMeta reports whether the level below params is an object read as
// params._meta.
func (sc *scanner) inMeta() bool {
	return sc.top[0].object && sc.top[0].key == "params" && sc.top[1].object && sc.top[1].key == "_meta" && sc.top[2].object
}

// relatedTaskKey is the member of _meta that ties a message to a task.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// protocolVersionKey is the member of _meta by which a request of the
// stateless protocol (MCP 2026-07-28 and later) names its version.
const protocolVersionKey = "io.modelcontextprotocol/protocolVersion"

// inRelatedTask reports whether the level below _meta is an object read as
// its related task.
func (sc *scanner) inRelatedTask() bool {
	return sc.inMeta() && sc.top[2].key == relatedTaskKey && sc.top[3].object
}

// endScalar finishes a scalar that ended at end.
func (sc *scanner) endScalar(end int, m *member) {
	if m != nil {
		m.at.end = end
	}
	if m == &sc.s.arguments {
		sc.argsLevel = 0
	}
}

// end closes the innermost level, whose last byte is at end-1: the value
// of the innermost key below it. Where the gate reads a scalar (jsonrpc,
// method, the tool's name, the error's code and message), an object or an
// array there fails its kind check before its end is read.
func (sc *scanner) end(end int) {
	sc.level--
	if m := sc.member(); m != nil {
		m.at.end = end
		if m == &sc.s.arguments {
			sc.argsLevel = 0
		}
	}
}

// str reads the string starting at b[i] == '"' and returns the index after
// it, recording lone surrogate escapes and bytes that are not UTF-8.
func (sc *scanner) str(i int) (int, bool) {
	b := sc.b
	i++
	// pendingHigh is the start of a high surrogate escape not yet paired;
	// flush (a method, not a closure: a closure over it is two allocations
	// per string in the module) records it as lone once something else follows.
	pendingHigh := -1
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			pendingHigh = sc.flush(pendingHigh)
			return i + 1, true
		case c < 0x20:
			return 0, false
		case c >= 0x80:
			pendingHigh = sc.flush(pendingHigh)
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				if !utf8.FullRune(b[i:]) {
					sc.s.cut = true // the input ends inside a character
					return 0, false
				}
				sc.fix(span{i, i + 1}, false)
			}
			i += size
			continue
		case c != '\\':
			pendingHigh = sc.flush(pendingHigh)
			i++
			continue
		}
		if i+1 >= len(b) {
			sc.s.cut = true
			return 0, false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			pendingHigh = sc.flush(pendingHigh)
			i += 2
		case 'u':
			if i+6 > len(b) {
				sc.s.cut = isHex(b[i+2:])
				return 0, false
			}
			if !isHex(b[i+2 : i+6]) {
				return 0, false
			}
			u, _ := strconv.ParseUint(jsonv.View(b[i+2:i+6]), 16, 16)
			switch {
			case u >= 0xD800 && u <= 0xDBFF:
				pendingHigh = sc.flush(pendingHigh)
				pendingHigh = i
			case u >= 0xDC00 && u <= 0xDFFF:
				if pendingHigh >= 0 && pendingHigh+6 == i {
					pendingHigh = -1 // a pair
				} else {
					pendingHigh = sc.flush(pendingHigh)
					sc.fix(span{i, i + 6}, true)
				}
			default:
				pendingHigh = sc.flush(pendingHigh)
			}
			i += 6
		default:
			return 0, false
		}
	}
	sc.s.cut = true
	return 0, false
}

// flush records the high surrogate escape at pendingHigh, if any (>= 0), as
// lone, and returns -1: no escape is pending any more.
func (sc *scanner) flush(pendingHigh int) int {
	if pendingHigh >= 0 {
		sc.fix(span{pendingHigh, pendingHigh + 6}, true)
	}
	return -1
}

func (sc *scanner) fix(at span, escape bool) {
	sc.s.fixes = append(sc.s.fixes, at)
	sc.s.fixEscapes = append(sc.s.fixEscapes, escape)
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// scanNumber reads a JSON number starting at b[i]; on failure the index
// where it failed (len(b) when the input ran out).
func scanNumber(b []byte, i int) (int, bool) {
	digits := func(j int) int {
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

// beyondFloat64 reports whether a JSON number the scan accepted is beyond
// the range of a 64-bit float. One without an exponent and with fewer
// than 309 digits is not (the largest float64 is about 1.8e308), and
// most are such: they are decided without parsing.
func beyondFloat64(num []byte) bool {
	if len(num) < 309 && bytes.IndexAny(num, "eE") < 0 {
		return false
	}
	f, _ := strconv.ParseFloat(jsonv.View(num), 64)
	return math.IsInf(f, 0)
}

// decode decodes a JSON string token the scan accepted, without its
// quotes. Only names are decoded (jsonrpc, method, the tool's name, keys
// of the first two levels); their escapes are rare, and a lone surrogate
// or a byte that is not UTF-8 there matches no name the gate looks for.
// A token without escapes is returned as a view of the line, not a copy
// (most lines hold a dozen names, and every copy is an allocation in the
// module): what decode returns lives only as long as the call on the line.
func decode(tok []byte) string {
	s := tok[1 : len(tok)-1]
	plain := true
	for _, c := range s {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return jsonv.View(s)
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			out = append(out, s[i])
			i++
			continue
		}
		out, i, _ = jsonv.AppendEscape(out, s, i+1) // the scan accepted it
	}
	return string(out)
}
