// Package xmlesc escapes text for the envelopes: element content,
// double-quoted attributes, and the four characters the reference escapes
// inside <contract_awareness>. Characters XML 1.0 forbids become U+FFFD, so
// every envelope is well-formed XML (docs/CONTRACT.md, "Escaping").
package xmlesc

import (
	"strings"
	"unicode/utf8"

	"github.com/toolerr/toolerr/plugin/internal/scan"
)

// EscapeContent escapes text for an XML element body: '&' and '<' as the
// reference does, plus the '>' of "]]>" so the output stays well-formed.
// Characters XML 1.0 forbids become U+FFFD.
func EscapeContent(s string) string {
	return string(AppendContent(nil, s))
}

// EscapeAttribute escapes text for a double-quoted XML attribute: & < > " '.
// Characters XML 1.0 forbids become U+FFFD.
func EscapeAttribute(s string) string {
	return string(AppendAttribute(nil, s))
}

// EscapeContract escapes the four characters the reference escapes inside
// <contract_awareness> (& < > "), with the same U+FFFD rule.
func EscapeContract(s string) string {
	return string(appendEscaped(nil, s, modeContract))
}

type escapeMode uint8

const (
	modeContent escapeMode = iota
	modeAttribute
	modeContract
)

// AppendContent is EscapeContent writing after b; AppendAttribute is
// EscapeAttribute writing after b.
func AppendContent(b []byte, s string) []byte   { return appendEscaped(b, s, modeContent) }
func AppendAttribute(b []byte, s string) []byte { return appendEscaped(b, s, modeAttribute) }

// Forbidden reports whether r may not appear in an XML 1.0 document.
func Forbidden(r rune) bool {
	if r < 0x20 {
		return r != '\t' && r != '\n' && r != '\r'
	}
	return r == 0xfffe || r == 0xffff || (r >= 0xd800 && r <= 0xdfff)
}

func appendEscaped(b []byte, s string, mode escapeMode) []byte {
	start := 0
	for i := 0; i < len(s); {
		if i = scan.SkipXMLPlain(s, i); i == len(s) {
			break
		}
		c := s[i]
		var rep string
		size := 1
		switch {
		case c == '&':
			rep = "&amp;"
		case c == '<':
			rep = "&lt;"
		case c == '>':
			if mode != modeContent || strings.HasSuffix(s[:i], "]]") {
				rep = "&gt;"
			}
		case c == '"':
			if mode != modeContent {
				rep = "&quot;"
			}
		case c == '\'':
			if mode == modeAttribute {
				rep = "&apos;"
			}
		case c < 0x20:
			if c != '\t' && c != '\n' && c != '\r' {
				rep = "\ufffd"
			}
		case c >= utf8.RuneSelf:
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && size == 1) || Forbidden(r) {
				rep = "\ufffd"
			}
		}
		if rep != "" {
			b = append(b, s[start:i]...)
			b = append(b, rep...)
			start = i + size
		}
		i += size
	}
	return append(b, s[start:]...)
}
