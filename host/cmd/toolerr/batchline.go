package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// The line framing of the batch protocol (docs/CONTRACT.md, "Batch
// protocol"), which the Node, Python and Rust batch commands apply too: a
// line ends at LF only; JSON whitespace (space, tab, CR) around it is
// dropped and nothing else is whitespace; a line left empty gets no
// answer; any other line must be one JSON object, of any depth, whose
// strings may hold any bytes but control characters and any \u escape
// (the module reads those); of its members "op" and "input" count, the
// last of each when repeated.

// errNotObject is a line that is not one JSON object.
var errNotObject = errors.New(`is not a JSON object {"op","input"}`)

// jsonSpace is JSON's whitespace, and nothing else is.
const jsonSpace = " \t\r\n"

// trimJSONSpace drops the JSON whitespace around line.
func trimJSONSpace(line []byte) []byte { return bytes.Trim(line, jsonSpace) }

// batchRequest is what a line asks: the export, and the request bytes (nil
// when the line has no "input").
type batchRequest struct {
	op, input []byte // op as written, a JSON string (nil when absent)
	opSet     bool
	inputSet  bool
}

// lineScanner reads one line as a JSON object, without a depth limit and
// without reading the strings' contents as text.
type lineScanner struct {
	b   []byte
	pos int
}

func (s *lineScanner) space() {
	s.pos = len(s.b) - len(bytes.TrimLeft(s.b[s.pos:], jsonSpace))
}

func (s *lineScanner) peek() int {
	if s.pos < len(s.b) {
		return int(s.b[s.pos])
	}
	return -1
}

// str reads a string from its opening quote.
func (s *lineScanner) str() bool {
	if s.peek() != '"' {
		return false
	}
	end := s.pos + 1
	for end < len(s.b) && s.b[end] != '"' {
		if s.b[end] == '\\' {
			end++ // what it escapes
		}
		end++
	}
	if end >= len(s.b) {
		return false
	}
	return s.token(end + 1)
}

// number reads a number: the bytes a number may hold, which must make one.
func (s *lineScanner) number() bool {
	end := s.pos
	for end < len(s.b) && strings.IndexByte("+-.0123456789Ee", s.b[end]) >= 0 {
		end++
	}
	return s.token(end)
}

// token reads the string or number up to end, which encoding/json checks:
// no control character in a string, every escape valid, a number's
// grammar. (It would check a whole line, but only to a depth of 10000.)
func (s *lineScanner) token(end int) bool {
	ok := json.Valid(s.b[s.pos:end])
	s.pos = end
	return ok
}

func (s *lineScanner) literal(word string) bool {
	if len(s.b)-s.pos < len(word) || string(s.b[s.pos:s.pos+len(word)]) != word {
		return false
	}
	s.pos += len(word)
	return true
}

// value reads one JSON value of any depth, iteratively.
func (s *lineScanner) value() bool {
	var open []byte // the containers around the value being read
	for {
		// A value starts here.
		s.space()
		switch c := s.peek(); {
		case c == '{' || c == '[':
			s.pos++
			s.space()
			if e := s.peek(); c == '{' && e == '}' || c == '[' && e == ']' {
				s.pos++
				break
			}
			open = append(open, byte(c))
			if c == '{' && !s.key() {
				return false
			}
			continue
		case c == '"':
			if !s.str() {
				return false
			}
		case c == 't':
			if !s.literal("true") {
				return false
			}
		case c == 'f':
			if !s.literal("false") {
				return false
			}
		case c == 'n':
			if !s.literal("null") {
				return false
			}
		case c == '-' || c >= '0' && c <= '9':
			if !s.number() {
				return false
			}
		default:
			return false
		}
		// A value ended: close what it ends, or go on to the next one.
		for {
			if len(open) == 0 {
				return true
			}
			s.space()
			top := open[len(open)-1]
			c := s.peek()
			if c == ',' {
				s.pos++
				if top == '{' && !s.key() {
					return false
				}
				break
			}
			if top == '{' && c == '}' || top == '[' && c == ']' {
				s.pos++
				open = open[:len(open)-1]
				continue
			}
			return false
		}
	}
}

// key reads a member's key and its colon.
func (s *lineScanner) key() bool {
	s.space()
	if !s.str() {
		return false
	}
	s.space()
	if s.peek() != ':' {
		return false
	}
	s.pos++
	return true
}

// readBatchLine reads a trimmed, non-empty line.
func readBatchLine(line []byte) (batchRequest, error) {
	var req batchRequest
	s := &lineScanner{b: line}
	if s.peek() != '{' {
		return req, errNotObject
	}
	s.pos++
	s.space()
	if s.peek() == '}' {
		s.pos++
	} else {
		for {
			s.space()
			start := s.pos
			if !s.str() {
				return req, errNotObject
			}
			key := decodeJSONString(line[start:s.pos])
			s.space()
			if s.peek() != ':' {
				return req, errNotObject
			}
			s.pos++
			s.space()
			vstart := s.pos
			if !s.value() {
				return req, errNotObject
			}
			switch string(key) {
			case "op":
				req.op, req.opSet = line[vstart:s.pos], true
			case "input":
				req.input, req.inputSet = line[vstart:s.pos], true
			}
			s.space()
			if s.peek() == ',' {
				s.pos++
				continue
			}
			if s.peek() == '}' {
				s.pos++
				break
			}
			return req, errNotObject
		}
	}
	s.space()
	if s.pos != len(line) {
		return req, errNotObject
	}
	return req, nil
}

// decodeJSONString decodes a JSON string literal, quotes included, that
// lineScanner.str accepted: escapes decoded (a \u escape of a lone
// surrogate as U+FFFD, as the module reads one), every other byte as it is
// (encoding/json would make invalid UTF-8 U+FFFD too, so it decodes only
// the runs of escapes, which are ASCII).
func decodeJSONString(lit []byte) []byte {
	lit = lit[1 : len(lit)-1]
	out := make([]byte, 0, len(lit))
	for {
		i := bytes.IndexByte(lit, '\\')
		if i < 0 {
			return append(out, lit...)
		}
		out = append(out, lit[:i]...)
		end := i // the end of the run of escapes from i
		for end < len(lit) && lit[end] == '\\' {
			if lit[end+1] == 'u' {
				end += 6
			} else {
				end += 2
			}
		}
		var run string
		json.Unmarshal(append(append([]byte{'"'}, lit[i:end]...), '"'), &run) // str checked each escape
		out = append(out, run...)
		lit = lit[end:]
	}
}
