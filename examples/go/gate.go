package main

// The stdio gate: a filter on the client's lines between stdin and the MCP
// SDK. The four billing servers (Go, Node, Python, Rust) run the same gate,
// line for line the same rules, so that arguments no SDK can hand over
// intact reach every server's handler in the same form, and a line the SDK
// would choke on never reaches it:
//
//   - A line that is not UTF-8 JSON, or not a JSON-RPC 2.0 message (an
//     object with "jsonrpc": "2.0" and a method, a result or an error, no
//     member among those the gate reads given twice), is ignored, with a note
//     on stderr. (The Go SDK closes the connection on such a line, ending
//     the server; rmcp answers some with an error that has no id.)
//   - A lone surrogate escape (\ud800 not in a pair) anywhere in a string
//     becomes \ufffd, as the module reads it. (Pydantic's and serde_json's
//     parsers refuse the whole message, which then gets no answer.)
//   - The arguments of a tools/call that no SDK reads intact are replaced by
//     a marker, {"toolerr.gate": KIND}, which the handler answers with a
//     <validation_error> rendered by the module: over 4 MiB of JSON
//     ("too_large"), nested more than 64 levels ("too_deep": serde_json
//     stops at 128 levels of the whole message, pydantic's parser near 200,
//     encoding/json at 10,000), or holding a number beyond a 64-bit float,
//     such as 1e309 ("out_of_range": serde_json refuses the message,
//     JavaScript and Python read Infinity). Arguments that are not an object
//     are wrapped, {"toolerr.gate": "not_object", "arguments": VALUE}, and
//     validated as they are (the Node, Python and Rust SDKs refuse them with
//     three different protocol errors); null arguments become {}.
//
// Every other line passes byte for byte.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Limits of the arguments the gate hands over.
const (
	gateMaxArgumentBytes = 4 << 20 // the module's request limit
	gateMaxArgumentDepth = 64
	// gateMarker is the key of the marker that replaces arguments.
	gateMarker = "toolerr.gate"
)

// gateReader passes the gated lines of r.
type gateReader struct {
	r   *bufio.Reader
	out []byte // what is left of the current line
}

func newGate(r io.Reader) *gateReader { return &gateReader{r: bufio.NewReader(r)} }

func (g *gateReader) Read(p []byte) (int, error) {
	for len(g.out) == 0 {
		line, err := g.r.ReadBytes('\n')
		if len(line) > 0 {
			if out, why := admit(bytes.TrimSuffix(line, []byte("\n"))); why != "" {
				log.Printf("ignored a line of %d bytes from the client: %s", len(line), why)
			} else if _, decodeErr := jsonrpc.DecodeMessage(out); decodeErr != nil {
				// What the SDK cannot decode ends its connection.
				log.Printf("ignored a line of %d bytes from the client: %v", len(line), decodeErr)
			} else {
				g.out = append(out, '\n')
			}
		}
		if err != nil && len(g.out) == 0 {
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	return n, nil
}

func (g *gateReader) Close() error { return nil }

// admit returns the line to hand to the SDK, or why it is ignored.
func admit(line []byte) ([]byte, string) {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, "blank"
	}
	if !utf8.Valid(line) {
		return nil, "not UTF-8"
	}
	s := scanLine(line)
	switch {
	case !s.ok:
		return nil, "not JSON"
	case !s.message:
		return nil, "not a JSON-RPC 2.0 message"
	}
	var edits []edit
	cut := span{-1, -1} // arguments replaced whole: their own edits go
	if s.method == "tools/call" && s.args.end > 0 {
		a := s.args
		switch kind := s.argumentsKind(); kind {
		case "":
		case "null":
			edits, cut = append(edits, edit{a, []byte("{}")}), a
		case "not_object":
			edits = append(edits,
				edit{span{a.start, a.start}, []byte(`{"` + gateMarker + `":"not_object","arguments":`)},
				edit{span{a.end, a.end}, []byte("}")})
		default:
			edits, cut = append(edits, edit{a, []byte(`{"` + gateMarker + `":"` + kind + `"}`)}), a
		}
	}
	for _, sp := range s.surrogates {
		if sp.start < cut.start || sp.start >= cut.end {
			edits = append(edits, edit{sp, []byte(`\ufffd`)})
		}
	}
	if len(edits) == 0 {
		return line, ""
	}
	sortEdits(edits)
	out := make([]byte, 0, len(line))
	at := 0
	for _, e := range edits {
		out = append(out, line[at:e.at.start]...)
		out = append(out, e.text...)
		at = e.at.end
	}
	return append(out, line[at:]...), ""
}

type span struct{ start, end int }

type edit struct {
	at   span
	text []byte
}

// sortEdits orders edits by position (an insertion before a replacement at
// the same place); they never overlap.
func sortEdits(edits []edit) {
	slices.SortStableFunc(edits, func(a, b edit) int { return a.at.start - b.at.start })
}

// lineScan is what the gate reads of one line.
type lineScan struct {
	ok         bool   // the line is one JSON value
	message    bool   // a JSON-RPC 2.0 message
	method     string // its method, if a string
	args       span   // params.arguments (end 0: absent)
	argsFirst  byte   // the first byte of the arguments
	argsDepth  int    // their nesting: {} is 1, a scalar 0
	argsHuge   bool   // a number in them is beyond a 64-bit float
	surrogates []span // lone surrogate escapes
}

// argumentsKind classifies the arguments: "" for ones the SDKs read intact.
func (s lineScan) argumentsKind() string {
	switch {
	case s.args.end-s.args.start > gateMaxArgumentBytes:
		return "too_large"
	case s.argsDepth > gateMaxArgumentDepth:
		return "too_deep"
	case s.argsHuge:
		return "out_of_range"
	case s.argsFirst == 'n':
		return "null"
	case s.argsFirst != '{':
		return "not_object"
	}
	return ""
}

// frame is an open array or object; for the top-level object and params,
// the member being read.
type frame struct {
	object bool
	key    string
	seen   map[string]bool // members read twice make the message ambiguous
}

// scanLine reads line as JSON without recursion (any depth), keeping what
// the gate needs.
func scanLine(b []byte) lineScan {
	const (
		stValue      = iota // a value is expected
		stValueOrEnd        // after '['
		stKeyOrEnd          // after '{'
		stKey               // after ',' in an object
		stColon
		stAfter // after a value
	)
	var s lineScan
	var stack []frame
	state := stValue
	// While the arguments are read: where they start, and the stack height
	// they start at (-1 otherwise).
	argsStart, argsLevel := 0, -1
	version, hasMethod, hasResult, hasError, dup := false, false, false, false, false
	// ended finishes a value that ends at end: the arguments end with theirs.
	ended := func(end int) {
		if argsLevel >= 0 && len(stack) == argsLevel {
			s.args = span{argsStart, end}
			argsLevel = -1
		}
		state = stAfter
	}
	i := 0
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
			i++
		}
		if i == len(b) {
			break
		}
		c := b[i]
		switch state {
		case stKeyOrEnd, stKey:
			if c == '}' && state == stKeyOrEnd {
				stack = stack[:len(stack)-1]
				i++
				ended(i)
				continue
			}
			if c != '"' {
				return lineScan{}
			}
			end, ok := scanString(b, i, &s)
			if !ok {
				return lineScan{}
			}
			if len(stack) <= 2 {
				top := &stack[len(stack)-1]
				top.key = decodeString(b[i:end])
				inParams := len(stack) == 2 && stack[0].key == "params"
				if tracked(len(stack), inParams, top.key) {
					if top.seen == nil {
						top.seen = map[string]bool{}
					}
					dup = dup || top.seen[top.key]
					top.seen[top.key] = true
				}
			}
			i = end
			state = stColon
			continue
		case stColon:
			if c != ':' {
				return lineScan{}
			}
			i++
			state = stValue
			continue
		case stAfter:
			if len(stack) == 0 {
				return lineScan{} // more after the value
			}
			top := stack[len(stack)-1]
			switch {
			case c == ',' && top.object:
				state = stKey
			case c == ',':
				state = stValue
			case (c == '}' && top.object) || (c == ']' && !top.object):
				stack = stack[:len(stack)-1]
				i++
				ended(i)
				continue
			default:
				return lineScan{}
			}
			i++
			continue
		}
		// A value starts at i (or an empty array ends).
		if c == ']' && state == stValueOrEnd {
			stack = stack[:len(stack)-1]
			i++
			ended(i)
			continue
		}
		if len(stack) == 1 && stack[0].object {
			switch stack[0].key {
			case "result":
				hasResult = true
			case "error":
				hasError = true
			}
		}
		if len(stack) == 2 && stack[0].object && stack[0].key == "params" && stack[1].object && stack[1].key == "arguments" {
			argsStart, argsLevel, s.argsFirst = i, 2, c
		}
		inArgs := argsLevel >= 0
		switch c {
		case '{', '[':
			stack = append(stack, frame{object: c == '{'})
			if inArgs {
				s.argsDepth = max(s.argsDepth, len(stack)-argsLevel)
			}
			i++
			if c == '{' {
				state = stKeyOrEnd
			} else {
				state = stValueOrEnd
			}
			continue
		case '"':
			end, ok := scanString(b, i, &s)
			if !ok {
				return lineScan{}
			}
			if len(stack) == 1 && stack[0].object {
				switch stack[0].key {
				case "jsonrpc":
					version = decodeString(b[i:end]) == "2.0"
				case "method":
					s.method, hasMethod = decodeString(b[i:end]), true
				}
			}
			i = end
		case 't', 'f', 'n':
			word := map[byte]string{'t': "true", 'f': "false", 'n': "null"}[c]
			if !bytes.HasPrefix(b[i:], []byte(word)) {
				return lineScan{}
			}
			i += len(word)
		default:
			end, ok := scanNumber(b, i)
			if !ok {
				return lineScan{}
			}
			if inArgs {
				if f, _ := strconv.ParseFloat(string(b[i:end]), 64); math.IsInf(f, 0) {
					s.argsHuge = true
				}
			}
			i = end
		}
		ended(i)
	}
	if state != stAfter || len(stack) != 0 {
		return lineScan{}
	}
	s.ok = true
	s.message = firstByte(b) == '{' && version && (hasMethod || hasResult || hasError) && !dup
	return s
}

// tracked says whether key, a member of the top-level object (height 1) or
// of params, is one a repeat of makes the message ambiguous to the gate.
func tracked(height int, inParams bool, key string) bool {
	if height == 1 {
		return key == "jsonrpc" || key == "method" || key == "params" || key == "id" || key == "result" || key == "error"
	}
	return inParams && (key == "arguments" || key == "name")
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

// scanString reads the string starting at b[i] == '"' and returns the index
// after it, recording its lone surrogate escapes.
func scanString(b []byte, i int, s *lineScan) (int, bool) {
	i++
	pendingHigh := -1 // the start of a high surrogate escape not yet paired
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			if pendingHigh >= 0 {
				s.surrogates = append(s.surrogates, span{pendingHigh, pendingHigh + 6})
			}
			return i + 1, true
		case c < 0x20:
			return 0, false
		case c != '\\':
			if pendingHigh >= 0 {
				s.surrogates = append(s.surrogates, span{pendingHigh, pendingHigh + 6})
				pendingHigh = -1
			}
			i++
			continue
		}
		if i+1 >= len(b) {
			return 0, false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			if pendingHigh >= 0 {
				s.surrogates = append(s.surrogates, span{pendingHigh, pendingHigh + 6})
				pendingHigh = -1
			}
			i += 2
		case 'u':
			if i+6 > len(b) {
				return 0, false
			}
			u, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
			if err != nil {
				return 0, false
			}
			switch {
			case u >= 0xD800 && u <= 0xDBFF:
				if pendingHigh >= 0 {
					s.surrogates = append(s.surrogates, span{pendingHigh, pendingHigh + 6})
				}
				pendingHigh = i
			case u >= 0xDC00 && u <= 0xDFFF:
				if pendingHigh >= 0 && pendingHigh+6 == i {
					pendingHigh = -1 // a pair
				} else {
					if pendingHigh >= 0 {
						s.surrogates = append(s.surrogates, span{pendingHigh, pendingHigh + 6})
						pendingHigh = -1
					}
					s.surrogates = append(s.surrogates, span{i, i + 6})
				}
			default:
				if pendingHigh >= 0 {
					s.surrogates = append(s.surrogates, span{pendingHigh, pendingHigh + 6})
					pendingHigh = -1
				}
			}
			i += 6
		default:
			return 0, false
		}
	}
	return 0, false
}

// scanNumber reads a JSON number starting at b[i].
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
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return 0, false
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
			return 0, false
		}
		i = j
	}
	return i, true
}

// decodeString decodes a JSON string token that scanString accepted (lone
// surrogates as U+FFFD, which match no name the gate looks for).
func decodeString(tok []byte) string {
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1])
	}
	var s string
	_ = json.Unmarshal(tok, &s) // cannot fail on a scanned token
	return s
}

// gateMessages are the messages of the <validation_error> that answers a
// marker, the same text in every billing server.
var gateMessages = map[string]string{
	"too_large":    "The arguments are too large: this tool reads at most 4194304 bytes of JSON and 200000 values.",
	"too_deep":     "The arguments are nested too deeply: this tool reads at most 64 levels of objects and arrays.",
	"out_of_range": "A number in the arguments is beyond the range of a 64-bit float (such as 1e309): send finite numbers.",
}

// gateMarkerOf reads the gate's marker in a call's arguments: its kind, and
// for "not_object" the arguments themselves.
func gateMarkerOf(raw json.RawMessage) (kind string, arguments json.RawMessage, ok bool) {
	if !bytes.Contains(raw, []byte(`"`+gateMarker+`"`)) {
		return "", nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || json.Unmarshal(m[gateMarker], &kind) != nil {
		return "", nil, false
	}
	if _, known := gateMessages[kind]; known && len(m) == 1 {
		return kind, nil, true
	}
	if inner, has := m["arguments"]; kind == "not_object" && has && len(m) == 2 {
		return kind, inner, true
	}
	return "", nil, false
}
