package jsonv

import (
	"unicode/utf8"

	"github.com/toolerr/toolerr/plugin/internal/scan"
)

// Writer builds a JSON document into a byte slice. Strings are written
// as JSON.stringify writes them (only '"', '\\' and control characters are
// escaped), numbers with FormatNumber (non-finite ones as null).
type Writer struct {
	B []byte // the document so far
}

// Raw writes s as it is: JSON text the caller has written.
func (w *Writer) Raw(s string) { w.B = append(w.B, s...) }

// Byte writes one byte of JSON text.
func (w *Writer) Byte(c byte) { w.B = append(w.B, c) }

// Str writes s as a JSON string.
func (w *Writer) Str(s string) { w.B = appendJSONString(w.B, s) }

// Num writes f as a JSON number, or null when it is not finite.
func (w *Writer) Num(f float64) { w.B = appendJSONNumber(w.B, f) }

// RawStr writes raw, then s as a JSON string: an object member's key (with
// what comes before it) and its value, in one line of the caller's.
func (w *Writer) RawStr(raw, s string) { w.B = appendJSONString(append(w.B, raw...), s) }

// RawNum writes raw, then f as a JSON number, as RawStr does a string.
func (w *Writer) RawNum(raw string, f float64) { w.B = appendJSONNumber(append(w.B, raw...), f) }

// Boolean writes true or false.
func (w *Writer) Boolean(v bool) {
	if v {
		w.Raw("true")
	} else {
		w.Raw("false")
	}
}

// Key writes a member key and its colon, preceded by a comma unless first.
func (w *Writer) Key(k string, first bool) {
	if !first {
		w.Byte(',')
	}
	w.Str(k)
	w.Byte(':')
}

// Comma writes the comma that comes before element i of an array (or
// member i of an object): none before the first.
func (w *Writer) Comma(i int) { w.B = appendComma(w.B, i) }

// Strings writes ss as an array of JSON strings.
func (w *Writer) Strings(ss []string) {
	w.Byte('[')
	for i, s := range ss {
		w.Comma(i)
		w.Str(s)
	}
	w.Byte(']')
}

func appendComma(b []byte, i int) []byte {
	if i > 0 {
		return append(b, ',')
	}
	return b
}

// value writes a decoded JSON value back, keeping member order.
func (w *Writer) value(v *Value) {
	w.B = AppendValue(w.B, v)
}

const hexDigits = "0123456789abcdef"

// escapeLetter is the letter after the backslash of the two-byte escape
// JSON.stringify writes for a byte; 0 for a control character it writes
// as \u00XX. It is unescaped (json.go) the other way round, less '/'.
var escapeLetter = [256]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i = scan.SkipJSONPlain(s, i); i == len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, "\ufffd"...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		if e := escapeLetter[c]; e != 0 {
			b = append(b, '\\', e)
		} else {
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendJSONNumber(b []byte, f float64) []byte {
	if f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308 {
		return append(b, "null"...)
	}
	return AppendNumber(b, f)
}

// AppendValue writes v compactly, as JSON.stringify(v) does.
func AppendValue(b []byte, v *Value) []byte {
	switch v.Kind {
	case KindNull:
		return append(b, "null"...)
	case KindBool:
		if v.Bool {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case KindNumber:
		return appendJSONNumber(b, v.Num)
	case KindString:
		return appendJSONString(b, v.Str)
	case KindArray:
		b = append(b, '[')
		for i, item := range v.Arr {
			b = AppendValue(appendComma(b, i), item)
		}
		return append(b, ']')
	default:
		b = append(b, '{')
		for i, m := range v.Members {
			b = appendJSONString(appendComma(b, i), m.Key)
			b = append(b, ':')
			b = AppendValue(b, m.Value)
		}
		return append(b, '}')
	}
}

// AppendValuePrefix writes the beginning of AppendValue(v): all of it, or
// a prefix of at least limit bytes (possibly more). Its time is bounded by
// limit, not by the size of v, so a value echoed in part many times costs
// each time only the part that is shown.
func AppendValuePrefix(b []byte, v *Value, limit int) []byte {
	p := prefixWriter{b: b, stop: len(b) + limit}
	p.value(v)
	return p.b
}

type prefixWriter struct {
	b    []byte
	stop int
}

func (p *prefixWriter) full() bool { return len(p.b) >= p.stop }

// next begins element i of an array or member i of an object: false when
// the stop is reached (nothing is written then), else true, after the
// comma that comes before all but the first.
func (p *prefixWriter) next(i int) bool {
	if p.full() {
		return false
	}
	p.b = appendComma(p.b, i)
	return true
}

// value writes v, or as much of it as reaches the stop.
func (p *prefixWriter) value(v *Value) {
	switch v.Kind {
	case KindString:
		p.str(v.Str)
	case KindArray:
		p.b = append(p.b, '[')
		for i, item := range v.Arr {
			if !p.next(i) {
				return
			}
			p.value(item)
		}
		p.b = append(p.b, ']')
	case KindObject:
		p.b = append(p.b, '{')
		for i, m := range v.Members {
			if !p.next(i) {
				return
			}
			p.str(m.Key)
			if p.full() {
				return
			}
			p.b = append(p.b, ':')
			p.value(m.Value)
		}
		p.b = append(p.b, '}')
	default:
		p.b = AppendValue(p.b, v)
	}
}

// str writes s as a JSON string, or its beginning up to the stop. A string
// cut at a rune start (never inside a UTF-8 sequence) escapes to a prefix
// of the whole string's escape.
func (p *prefixWriter) str(s string) {
	if room := p.stop - len(p.b); len(s) > room {
		i := max(room, 0)
		for i < len(s) && !utf8.RuneStart(s[i]) {
			i++
		}
		p.b = appendJSONString(p.b, s[:i])
		p.b = p.b[:len(p.b)-1] // not closed: the string goes on
		return
	}
	p.b = appendJSONString(p.b, s)
}
