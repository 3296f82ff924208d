// Package gate is the stdio gate: the rule a host applies to each line a
// client sends before an MCP SDK (or the server behind a proxy) reads it,
// so that no line ends a session and every request gets an answer.
//
// A line gets one of four verdicts:
//   - pass: hand it on as it is;
//   - rewrite: hand on the line the gate wrote instead (lone surrogate
//     escapes and bytes that are not UTF-8 inside strings outside tool
//     arguments become U+FFFD, as the module itself reads them; null
//     params, _meta and tool arguments become {});
//   - answer: do not hand it on; the gate wrote the JSON-RPC response the
//     client gets instead (a request some SDK cannot read intact or drops:
//     an invalid JSON-RPC request with a usable id, an id that is not a
//     string or a safe integer, a member JSON-RPC does not have, params,
//     _meta, a progress token or a cursor of the wrong kind or holding what
//     no SDK reads, tool arguments that are too large, too deep, out of
//     range, not valid Unicode or not an object);
//   - ignore: do not hand it on, and note why (a line that is not JSON, or
//     not a JSON-RPC message with an id to answer).
//
// The rules are the same for every host, since every host runs this code
// in the module: a line gets the same verdict in Go, Node, Python and Rust.
package gate

import (
	"strconv"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// Limits of what the gate hands on.
const (
	// MaxArgumentBytes is the most JSON text a tool call's arguments may
	// be: the module's request limit.
	MaxArgumentBytes = abi.MaxRequestBytes
	// MaxArgumentValues is the most values they may hold.
	MaxArgumentValues = abi.MaxValues
	// MaxArgumentDepth is the deepest nesting of arguments handed on
	// (serde_json stops at 128 levels of a whole message, pydantic's
	// parser near 200, the Go SDK at 1,000).
	MaxArgumentDepth = 64
	// MaxMessageDepth is the deepest nesting of a whole message: the
	// arguments' 64 levels, two levels down.
	MaxMessageDepth = MaxArgumentDepth + 2
)

// JSON-RPC error codes the gate answers with.
const (
	CodeInvalidRequest = -32600
	CodeInvalidParams  = -32602
)

// Verdict is what the host does with a line.
type Verdict uint8

const (
	Pass Verdict = iota
	Rewrite
	Answer
	Ignore
)

func (v Verdict) String() string {
	switch v {
	case Pass:
		return "pass"
	case Rewrite:
		return "rewrite"
	case Answer:
		return "answer"
	}
	return "ignore"
}

// Problem is what is wrong with a tool call's arguments, when the gate
// answers the call with a validation error.
type Problem uint8

const (
	NoProblem   Problem = iota
	TooLarge            // over MaxArgumentBytes or MaxArgumentValues
	TooDeep             // nested over MaxArgumentDepth
	OutOfRange          // a number beyond a float64
	NotUnicode          // a lone surrogate escape or bytes that are not UTF-8
	NotAnObject         // a string, number, boolean or array
)

// Decision is the gate's verdict on one line, with what the host needs to
// act on it.
type Decision struct {
	Verdict Verdict
	// Line is the line to hand on, for Rewrite.
	Line []byte
	// Reason says why a line is ignored, or is the message of an Answer
	// that is a JSON-RPC error.
	Reason string
	// ID is the JSON text of the id an Answer goes to.
	ID []byte
	// ErrorCode is the JSON-RPC error code of an Answer, or 0 for an
	// answer that is a tool result (a validation error).
	ErrorCode int
	// Tool, Problem and the fields below describe a tool call answered
	// with a validation error.
	Tool    string
	Problem Problem
	// Arguments is the arguments' JSON text (NotAnObject), the number that
	// is out of range (OutOfRange), or the first lone surrogate escape or
	// byte that is not UTF-8 as sent (NotUnicode).
	Arguments []byte
	// Bytes, Values and Depth are what was measured of the arguments:
	// their size, the values they hold and their nesting. For a line over
	// the limit (Cut), Bytes is the line's size.
	Bytes, Values, Depth int
	Cut                  bool
	// Stateless is a call that names its protocol version in _meta, as a
	// request of the stateless protocol (MCP 2026-07-28) does: its tool
	// result says "resultType":"complete", which that protocol requires.
	Stateless bool
}

// Check decides what becomes of input, one line from the client without
// its line feed. A line over the module's request limit is given as its
// length in bytes (decimal), a line feed, and its first bytes: no line
// holds a line feed, so the two forms cannot be confused.
func Check(input []byte) (Decision, error) {
	var c Checker
	return c.Check(input)
}

// Checker is Check with a scanner kept from line to line: the module's
// pooled call state holds one, so that a line allocates no scanner (a
// kilobyte on every line otherwise, and the collector's work with it).
// The zero value is ready; one Checker checks one line at a time.
type Checker struct {
	sc scanner
}

// Forget drops what the checker holds of the last line (the line itself,
// the names decoded from it), keeping only a small buffer (the levels of a
// line nested deeper than 4,100 levels are not kept).
func (c *Checker) Forget() {
	c.sc = scanner{deep: jsonv.KeepUpTo(c.sc.deep, 64)[:0]}
}

// Check is the package's Check, on c's scanner.
func (c *Checker) Check(input []byte) (Decision, error) {
	total, head, cut, err := splitCut(input)
	if err != nil {
		return Decision{}, err
	}
	if blank(head) {
		return ignore("blank"), nil
	}
	s := c.sc.scanLine(head, cut)
	if !s.ok && !s.cut {
		return ignore("not JSON"), nil
	}
	fixed, changed := head, len(s.fixes) > 0
	var unreadable []byte // what of the arguments is not Unicode, as sent
	if changed {
		unreadable = s.firstFixInArguments(head)
		// The decision is made on the line as the SDK will read it.
		fixed = applyFixes(head, s.fixes, s.fixEscapes)
		s = c.sc.scanLine(fixed, cut)
	}
	if cut {
		return checkCut(s, fixed, total), nil
	}
	d := decide(s, fixed, unreadable)
	if d.Verdict == Pass && changed {
		d.Verdict, d.Line = Rewrite, fixed
	}
	return d, nil
}

// splitCut reads the length header of a line over the limit.
func splitCut(input []byte) (total int, head []byte, cut bool, err error) {
	for i, c := range input {
		if c != '\n' {
			continue
		}
		n, perr := strconv.Atoi(string(input[:i]))
		if perr != nil || n <= len(input)-i-1 {
			return 0, nil, false, abi.Errorf(abi.CodeInvalidRequest,
				"gate: a request holding a line feed must start with the line's length in bytes, greater than the bytes that follow it")
		}
		return n, input[i+1:], true, nil
	}
	return len(input), input, false, nil
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

func ignore(why string) Decision { return Decision{Verdict: Ignore, Reason: why} }

// checkCut decides on the head of a line over the limit: a request whose
// id the head shows is answered, a tool call (whose name it shows) with a
// validation error; anything else is ignored.
func checkCut(s *scan, head []byte, total int) Decision {
	tooLong := "the message is " + strconv.Itoa(total) + " bytes, over the limit of " + strconv.Itoa(abi.MaxRequestBytes)
	if !s.cut || !s.object || !s.requestShape() || s.jsonrpc.text != "2.0" || !usableID(s.id) {
		return ignore(tooLong)
	}
	id := head[s.id.at.start:s.id.at.end]
	if s.method.text == "tools/call" && s.name.kind == kindString && s.name.at.end > 0 && !s.name.twice {
		return Decision{Verdict: Answer, ID: id, Tool: s.name.text, Problem: TooLarge, Bytes: total, Cut: true,
			Stateless: s.protocolVersion.kind == kindString}
	}
	return Decision{Verdict: Answer, ID: id, ErrorCode: CodeInvalidRequest, Reason: "Invalid Request: " + tooLong}
}

// requestShape: the head read so far holds a string method, and the
// members it read are complete and given once.
func (s *scan) requestShape() bool {
	for _, m := range []member{s.jsonrpc, s.id, s.method} {
		if m.kind == kindNone || m.at.end < 0 || m.twice {
			return false
		}
	}
	return s.method.kind == kindString && s.result.kind == kindNone && s.errorMember.kind == kindNone
}

// usableID reports whether id can be answered: a string or a number,
// given once.
func usableID(id member) bool {
	return (id.kind == kindString || id.kind == kindNumber) && !id.twice && id.at.end > 0
}

// firstFixInArguments returns the first lone surrogate escape or byte that
// is not UTF-8 inside the arguments of line, as sent; nil for none.
func (s *scan) firstFixInArguments(line []byte) []byte {
	a := s.arguments.at
	if s.arguments.kind == kindNone || a.end < 0 {
		return nil
	}
	for _, f := range s.fixes {
		if f.start >= a.start && f.end <= a.end {
			return line[f.start:f.end]
		}
	}
	return nil
}

// decide gives the verdict on a whole line, one JSON value that needs no
// fixes; unreadable is what of its arguments was not Unicode before the
// fixes (nil for none).
func decide(s *scan, line, unreadable []byte) Decision {
	if !s.object {
		if firstByte(line) == '[' {
			return ignore("a batch (a JSON array): MCP sends one message a line")
		}
		return ignore("not a JSON-RPC 2.0 message: not an object")
	}
	answerable := usableID(s.id)
	// refuse answers a request whose id is usable, and ignores the rest.
	// (A value with a method, not a closure: in the module a closure over
	// s is an allocation of the whole scan on every line.)
	refuse := refusal{answerable: answerable, line: line, id: s.id.at}
	if name := givenTwice(s); name != "" {
		if name == "id" {
			refuse.answerable = false
		}
		return refuse.of(CodeInvalidRequest, strconv.Quote(name)+" is given twice")
	}
	if s.id.kind != kindNone && !answerable && !(s.id.kind == kindNull && s.errorMember.kind != kindNone) {
		return ignore("not a JSON-RPC 2.0 message: an id must be a string or a number")
	}
	if s.jsonrpc.kind != kindString || s.jsonrpc.text != "2.0" {
		return refuse.of(CodeInvalidRequest, `"jsonrpc" must be "2.0"`)
	}
	hasMethod := s.method.kind != kindNone
	isResponse := s.result.kind != kindNone || s.errorMember.kind != kindNone
	switch {
	case hasMethod && isResponse:
		return refuse.of(CodeInvalidRequest, "a message holds a method, or a result or an error, not both")
	case isResponse && s.result.kind != kindNone && s.errorMember.kind != kindNone:
		return ignore("not a JSON-RPC 2.0 message: a response holds a result or an error, not both")
	case isResponse && s.id.kind == kindNone:
		return ignore("not a JSON-RPC 2.0 message: a response without an id")
	case isResponse && s.id.kind == kindNull:
		// It answers a request the server cannot name: no SDK routes it,
		// and the Go SDK ends the session on it.
		return ignore("an error with a null id answers no request of the server")
	case s.errorMember.kind != kindNone && (s.errorMember.kind != kindObject || s.errorCode.twice || s.errorMessage.twice ||
		s.errorCode.kind != kindNumber || !safeInteger(line[s.errorCode.at.start:s.errorCode.at.end]) || s.errorMessage.kind != kindString):
		return ignore(`not a JSON-RPC 2.0 message: an error is an object with an integer "code" and a string "message"`)
	case isResponse && s.other.kind != kindNone:
		return ignore("not a JSON-RPC 2.0 message: " + strconv.Quote(shortName(s.otherName)) + " is not a member of a JSON-RPC response")
	case s.result.kind != kindNone && s.result.kind != kindObject:
		return ignore("not a JSON-RPC 2.0 message: a result is an object")
	case isResponse:
		if s.depth > MaxMessageDepth || s.hugeOutside || s.argsHuge {
			return ignore("a response no SDK reads intact: nested over " + strconv.Itoa(MaxMessageDepth) + " levels, or a number beyond a 64-bit float")
		}
		return Decision{Verdict: Pass}
	case !hasMethod:
		return refuse.of(CodeInvalidRequest, "a message holds a method, a result or an error")
	case s.method.kind != kindString:
		return refuse.of(CodeInvalidRequest, `"method" must be a string`)
	}
	switch {
	case s.other.kind != kindNone:
		return refuse.of(CodeInvalidRequest, strconv.Quote(shortName(s.otherName))+" is not a member of a JSON-RPC request")
	case s.id.kind == kindNumber && !safeInteger(line[s.id.at.start:s.id.at.end]):
		return refuse.of(CodeInvalidRequest, `"id" must be a string or an integer (no fraction, no exponent, at most 2^53-1 either side of 0)`)
	}
	isCall := s.method.text == "tools/call" && answerable
	if isCall {
		if d, done := decideCall(s, line, unreadable); done {
			return d
		}
	}
	switch {
	case s.params.kind != kindNone && s.params.kind != kindObject && s.params.kind != kindNull:
		return refuse.of(CodeInvalidParams, `"params" must be an object`)
	case s.depth > MaxMessageDepth:
		return refuse.of(CodeInvalidParams, "the message is nested more than "+strconv.Itoa(MaxMessageDepth)+" levels deep")
	case s.hugeOutside:
		return refuse.of(CodeInvalidParams, "a number is beyond the range of a 64-bit float")
	case s.meta.twice, s.cursor.twice, s.progressToken.twice:
		return refuse.of(CodeInvalidParams, `"_meta", "cursor" or "progressToken" is given twice`)
	case s.meta.kind != kindNone && s.meta.kind != kindObject && s.meta.kind != kindNull:
		return refuse.of(CodeInvalidParams, `"_meta" must be an object`)
	case s.progressToken.kind != kindNone && s.progressToken.kind != kindString &&
		!(s.progressToken.kind == kindNumber && safeInteger(line[s.progressToken.at.start:s.progressToken.at.end])):
		return refuse.of(CodeInvalidParams, `"progressToken" must be a string or an integer`)
	case s.cursor.kind != kindNone && s.cursor.kind != kindString:
		return refuse.of(CodeInvalidParams, `"cursor" must be a string`)
	case s.relatedTask.kind != kindNone && (s.relatedTask.kind != kindObject || s.relatedTask.twice || s.taskID.kind != kindString || s.taskID.twice):
		return refuse.of(CodeInvalidParams, strconv.Quote(relatedTaskKey)+` must be an object with a string "taskId"`)
	}
	// A null where MCP has an object reads as an empty one: params, _meta,
	// and a tool call's arguments.
	var found [3]span
	nulls := found[:0]
	if s.params.kind == kindNull {
		nulls = append(nulls, s.params.at)
	}
	if s.meta.kind == kindNull {
		nulls = append(nulls, s.meta.at)
	}
	if isCall && s.arguments.kind == kindNull {
		nulls = append(nulls, s.arguments.at)
	}
	if len(nulls) == 0 {
		return Decision{Verdict: Pass}
	}
	if len(nulls) == 2 && nulls[1].start < nulls[0].start {
		nulls[0], nulls[1] = nulls[1], nulls[0]
	}
	out := make([]byte, 0, len(line)+2*len(nulls))
	at := 0
	for _, n := range nulls {
		out = append(append(out, line[at:n.start]...), "{}"...)
		at = n.end
	}
	return Decision{Verdict: Rewrite, Line: append(out, line[at:]...)}
}

// refusal is how decide turns down a message: an answer when its id is
// usable, else an ignored line.
type refusal struct {
	answerable bool
	line       []byte
	id         span
}

func (r refusal) of(code int, message string) Decision {
	if !r.answerable {
		return ignore("not a JSON-RPC 2.0 message: " + message)
	}
	prefix := "Invalid Request: "
	if code == CodeInvalidParams {
		prefix = "Invalid params: "
	}
	return Decision{Verdict: Answer, ID: r.line[r.id.start:r.id.end], ErrorCode: code, Reason: prefix + message}
}

// givenTwice names the first member of the message given twice, in the
// order jsonrpc, id, method, params, result, error, or is empty.
func givenTwice(s *scan) string {
	for i, twice := range [...]bool{s.jsonrpc.twice, s.id.twice, s.method.twice, s.params.twice, s.result.twice, s.errorMember.twice} {
		if twice {
			return topMembers[i]
		}
	}
	return ""
}

// topMembers names the members of a message givenTwice reads, in its order.
var topMembers = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// maxSafeInteger is the largest integer every SDK reads exactly (a
// JavaScript number's 2^53-1).
const maxSafeInteger = 1<<53 - 1

// safeInteger reports whether a JSON number's text is an integer every SDK
// reads as the same value and writes back as the same text: no fraction,
// no exponent, not -0, at most maxSafeInteger either side of 0.
func safeInteger(text []byte) bool {
	digits := text
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 16 || (digits[0] == '0' && len(text) > 1) {
		return false
	}
	var n uint64 // 16 digits fit: the module's int is 32 bits wide
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + uint64(c-'0')
	}
	return n <= maxSafeInteger
}

// shortName is a member's name for a message: at most 64 bytes, cut on a
// character boundary and marked.
func shortName(name string) string {
	if len(name) <= 64 {
		return name
	}
	cut := 61
	for cut > 0 && name[cut]&0xC0 == 0x80 {
		cut--
	}
	return name[:cut] + "..."
}

// decideCall answers a tools/call request whose params or arguments no
// SDK reads intact; done is false for one the other rules decide.
func decideCall(s *scan, line, unreadable []byte) (Decision, bool) {
	id := line[s.id.at.start:s.id.at.end]
	if s.params.kind != kindObject || s.name.kind != kindString || s.name.twice || s.arguments.twice {
		return Decision{Verdict: Answer, ID: id, ErrorCode: CodeInvalidParams,
			Reason: `Invalid params: tools/call needs "params", an object with "name", a string`}, true
	}
	a := s.arguments
	if a.kind == kindNone || a.kind == kindNull {
		return Decision{}, false
	}
	call := Decision{Verdict: Answer, ID: id, Tool: s.name.text, Bytes: a.at.end - a.at.start, Values: s.argsValues, Depth: s.argsDepth,
		Stateless: s.protocolVersion.kind == kindString}
	switch {
	case call.Bytes > MaxArgumentBytes || call.Values > MaxArgumentValues:
		call.Problem = TooLarge
	case call.Depth > MaxArgumentDepth:
		call.Problem = TooDeep
	case s.argsHuge:
		call.Problem, call.Arguments = OutOfRange, line[s.argsHugeText.start:s.argsHugeText.end]
	case unreadable != nil:
		// The U+FFFD an SDK would read there is not what the model sent:
		// the model is told, instead of the handler getting other text.
		call.Problem, call.Arguments = NotUnicode, unreadable
	case a.kind != kindObject:
		call.Problem, call.Arguments = NotAnObject, line[a.at.start:a.at.end]
	default:
		return Decision{}, false
	}
	return call, true
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return c
		}
	}
	return 0
}

// applyFixes writes line with each fix replaced by U+FFFD: an escape by
// the escape \ufffd, raw bytes by the character itself.
func applyFixes(line []byte, fixes []span, escapes []bool) []byte {
	out := make([]byte, 0, len(line)+2*len(fixes))
	at := 0
	for i, f := range fixes {
		out = append(out, line[at:f.start]...)
		if escapes[i] {
			out = append(out, `\ufffd`...)
		} else {
			out = append(out, "\uFFFD"...)
		}
		at = f.end
	}
	return append(out, line[at:]...)
}
