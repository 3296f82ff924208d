package main

import (
	"errors"
	"unicode/utf8"
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

// trimJSONSpace drops the JSON whitespace around line.
func trimJSONSpace(line []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	for len(line) > 0 && isSpace(line[0]) {
		line = line[1:]
	}
	for len(line) > 0 && isSpace(line[len(line)-1]) {
		line = line[:len(line)-1]
	}
	return line
}

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
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
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
	s.pos++
	for s.pos < len(s.b) {
		c := s.b[s.pos]
		switch {
		case c == '"':
			s.pos++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.pos+1 >= len(s.b) {
				return false
			}
			switch s.b[s.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos += 2
			case 'u':
				if s.pos+6 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.pos+2 : s.pos+6] {
					if hexValue(h) < 0 {
						return false
					}
				}
				s.pos += 6
			default:
				return false
			}
		default:
			s.pos++
		}
	}
	return false
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *lineScanner) number() bool {
	digits := func() int {
		n := 0
		for s.pos < len(s.b) && s.b[s.pos] >= '0' && s.b[s.pos] <= '9' {
			s.pos++
			n++
		}
		return n
	}
	if s.peek() == '-' {
		s.pos++
	}
	switch c := s.peek(); {
	case c == '0':
		s.pos++
	case c >= '1' && c <= '9':
		digits()
	default:
		return false
	}
	if s.peek() == '.' {
		s.pos++
		if digits() == 0 {
			return false
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.pos++
		if c := s.peek(); c == '+' || c == '-' {
			s.pos++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
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
		case c == '{':
			s.pos++
			s.space()
			if s.peek() == '}' {
				s.pos++
				break
			}
			open = append(open, '{')
			if !s.key() {
				return false
			}
			continue
		case c == '[':
			s.pos++
			s.space()
			if s.peek() == ']' {
				s.pos++
				break
			}
			open = append(open, '[')
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
// surrogate as U+FFFD, as the module reads one), every other byte as it is.
func decodeJSONString(lit []byte) []byte {
	lit = lit[1 : len(lit)-1]
	out := make([]byte, 0, len(lit))
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch lit[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(lit[i+1 : i+5])
			i += 4
			if r >= 0xd800 && r < 0xdc00 && i+6 < len(lit) && lit[i+1] == '\\' && lit[i+2] == 'u' {
				if lo := hex4(lit[i+3 : i+7]); lo >= 0xdc00 && lo < 0xe000 {
					r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
					i += 6
				}
			}
			if r >= 0xd800 && r < 0xe000 {
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		default: // " \ /
			out = append(out, lit[i])
		}
	}
	return out
}

func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		r = r<<4 | rune(hexValue(c))
	}
	return r
}
