package validation

import (
	"strings"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// The suggestion sentences every dialect shares, so that the same failure
// heals the same way whichever validator reported it. Zod v3's own
// sentences are the reference's (docs/CONTRACT.md, "Validation errors");
// the others follow their pattern.

const (
	suggestUnion   = "Value didn't match any of the expected formats."
	suggestOneOf   = "Value must match exactly one of the expected formats."
	suggestPattern = "Value does not match the required pattern."
	suggestUnique  = "Remove duplicate items."
	suggestMissing = "Provide this required field."
	suggestDate    = "Expected a valid date string (ISO 8601)."
)

func suggestType(expected string) string { return "Expected type: " + expected + "." }

// suggestLength is "Minimum length: N character(s)." (or Maximum).
func suggestLength(n string, one, min bool) string {
	word := "Maximum"
	if min {
		word = "Minimum"
	}
	return word + " length: " + n + " " + pluralWord("character", one) + "."
}

// suggestItems is "Minimum N item(s)." (or Maximum).
func suggestItems(n string, one, min bool) string {
	word := "Maximum"
	if min {
		word = "Minimum"
	}
	return word + " " + n + " " + pluralWord("item", one) + "."
}

func pluralWord(word string, one bool) string {
	if one {
		return word
	}
	return word + "s"
}

// suggestBound is "Must be OP N." with OP one of >= > <= <, or a bound in
// words ("greater than or equal to", "a multiple of").
func suggestBound(op, n string) string { return "Must be " + op + " " + n + "." }

func suggestOptions(values []*jsonv.Value) string {
	return "Valid options: " + quotedList(values) + "."
}

func suggestExactly(v *jsonv.Value) string {
	return "Expected exactly: " + string(jsonv.AppendValue(nil, v)) + "."
}

// suggestUnrecognized lists fields to remove, as Zod's unrecognized_keys.
func suggestUnrecognized(keys []string) string {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = "'" + k + "'"
	}
	return "Remove or correct unrecognized fields: " + strings.Join(quoted, ", ") + ". Check for typos."
}

// formatSuggestions maps a canonical format name to its suggestion. Zod
// v3's string validations are the keys it started with.
var formatSuggestions = map[string]string{
	"email":    "Expected: a valid email address (e.g. user@example.com).",
	"url":      "Expected: a valid URL (e.g. https://example.com).",
	"uuid":     "Expected: a valid UUID (e.g. 123e4567-e89b-12d3-a456-426614174000).",
	"cuid":     "Expected: a valid CUID.",
	"datetime": "Expected: an ISO 8601 datetime (e.g. 2024-01-15T10:30:00Z).",
	"ip":       "Expected: a valid IP address.",
	"emoji":    "Expected: a valid emoji character.",
	"regex":    suggestPattern,
	"date":     "Expected: an ISO 8601 date (e.g. 2024-01-15).",
	"time":     "Expected: an ISO 8601 time (e.g. 10:30:00).",
	"hostname": "Expected: a valid hostname (e.g. example.com).",
	"duration": "Expected: an ISO 8601 duration (e.g. P3D).",
}

// formatAliases maps the names other validators use onto canonical ones.
var formatAliases = map[string]string{
	"idn-email": "email", "uri": "url", "iri": "url", "uri-reference": "url", "iri-reference": "url",
	"guid": "uuid", "date-time": "datetime", "ipv4": "ip", "ipv6": "ip", "idn-hostname": "hostname",
}

// suggestFormat gives the suggestion for a string format of any validator,
// or "" for a format it does not know.
//
// Not inlined: a function of its own in the module, one JVM method under
// HotSpot's compile limit on Chicory (RATIONALE.md, "The module's
// functions and HotSpot").
//
//go:noinline
func suggestFormat(format string) string {
	if alias, ok := formatAliases[format]; ok {
		format = alias
	}
	return formatSuggestions[format]
}

// suggestAnyFormat is suggestFormat with a generic sentence for formats it
// does not know (JSON Schema allows any name). JSON Schema's "regex" format
// asks for a valid regular expression, not a match: it is not Zod's regex.
func suggestAnyFormat(format string) string {
	if format == "regex" {
		return "Expected: a valid regex."
	}
	if s := suggestFormat(format); s != "" || format == "" {
		return s
	}
	return "Expected: a valid " + format + "."
}

// Toolerr's own dialects (Pydantic, JSON Schema and validate) state each
// constraint once: a validator's message that already names it, with its
// value, gets no hint that would only say it again, and every message
// ends as a sentence before " You sent:". Zod's lines stay the
// reference's bytes.

// sentence ends msg with a full stop unless it ends with one, or with "!"
// or "?".
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	switch msg[len(msg)-1] {
	case '.', '!', '?':
		return msg
	}
	return msg + "."
}

// unlessStated is suggestion, or "" when msg names word as a word of its
// own (ASCII case ignored).
func unlessStated(msg, suggestion, word string) string {
	if word == "" {
		return suggestion
	}
	lower, w := strings.ToLower(msg), strings.ToLower(word)
	for at := 0; ; {
		i := strings.Index(lower[at:], w)
		if i < 0 {
			return suggestion
		}
		start, end := at+i, at+i+len(w)
		if (start == 0 || !wordByte(lower[start-1])) && (end == len(lower) || !wordByte(lower[end])) {
			return ""
		}
		at = start + 1
	}
}

// unlessNumberStated is suggestion, or "" when msg holds the number n as a
// number of its own (not inside a longer one: "1" is not in "10" or
// "0.1").
func unlessNumberStated(msg, suggestion, n string) string {
	for at := 0; ; {
		i := strings.Index(msg[at:], n)
		if i < 0 {
			return suggestion
		}
		start, end := at+i, at+i+len(n)
		if (start == 0 || !numberByte(msg[start-1])) && (end == len(msg) || !numberByte(msg[end]) || msg[end] == '.' && (end+1 == len(msg) || !isDigitByte(msg[end+1]))) {
			return ""
		}
		at = start + 1
	}
}

// unlessValuesStated is suggestion, or "" when msg holds the text of every
// one of values (a string as it is, a number as NUM).
func unlessValuesStated(msg, suggestion string, values []*jsonv.Value) string {
	for _, v := range values {
		var text string
		switch v.Kind {
		case jsonv.KindString:
			text = v.Str
		case jsonv.KindNumber:
			text = jsonv.FormatNumber(v.Num)
		default:
			text = string(jsonv.AppendValue(nil, v))
		}
		if !strings.Contains(msg, text) {
			return suggestion
		}
	}
	return ""
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

func numberByte(c byte) bool { return isDigitByte(c) || c == '.' || c == '-' }

func wordByte(c byte) bool {
	return isDigitByte(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}
