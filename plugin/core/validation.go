package core

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unsafe"
)

// Issue is one validator finding, already mapped to the contract's terms:
// where it is (Path), what the validator said (Message) and what the model
// should do (Suggestion, "" for none).
type Issue struct {
	Path       []*Value // string and number segments
	Message    string
	Suggestion string
	// HasSent marks an issue that carries the sent value itself (Pydantic's
	// input); Sent is then echoed, nil meaning absent. Otherwise the value
	// is looked up in args at Path.
	HasSent bool
	Sent    *Value
}

// validationRecovery closes every <validation_error>.
const validationRecovery = "<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>"

// RenderValidationError writes the <validation_error> envelope: one <field>
// per issue with what was sent (looked up in args) and the suggestion, then
// the contract awareness block when awareness is non-nil.
func RenderValidationError(action string, issues []Issue, args *Value, awareness *ContractAwareness) string {
	var line []byte
	return string(appendValidationError(make([]byte, 0, 256), &line, action, issues, args, awareness))
}

// appendValidationError is RenderValidationError writing after b; *line is
// a scratch buffer it reuses for each field's text.
func appendValidationError(b []byte, line *[]byte, action string, issues []Issue, args *Value, awareness *ContractAwareness) []byte {
	b = append(b, `<validation_error action="`...)
	b = appendAttribute(b, action)
	b = append(b, "\">"...)
	ln := *line
	for _, is := range issues {
		b = append(b, "\n<field name=\""...)
		b = appendIssuePath(b, is.Path)
		b = append(b, "\">"...)
		ln = append(ln[:0], is.Message...)
		ln = append(ln, " You sent: "...)
		sent := is.Sent
		if !is.HasSent {
			sent = lookupPath(args, is.Path)
		}
		ln = appendSentValue(ln, sent)
		ln = append(ln, '.')
		if is.Suggestion != "" {
			ln = append(ln, ' ')
			ln = append(ln, is.Suggestion...)
		}
		b = appendContent(b, unsafe.String(unsafe.SliceData(ln), len(ln)))
		b = append(b, "</field>"...)
	}
	*line = ln
	b = append(b, '\n')
	b = append(b, validationRecovery...)
	if block := awareness.render(); block != "" {
		b = append(b, "\n\n\n"...) // two empty lines, as the reference inserts it
		b = append(b, block...)
	}
	return append(b, "\n</validation_error>"...)
}

// appendIssuePath writes issuePath(path) escaped for an attribute.
func appendIssuePath(b []byte, path []*Value) []byte { return appendPath(b, path, appendAttribute) }

// appendPath writes path's segments joined with '.', or "(root)" for none;
// appendText writes a string segment (numbers need no escaping).
func appendPath(b []byte, path []*Value, appendText func([]byte, string) []byte) []byte {
	if len(path) == 0 {
		return append(b, "(root)"...)
	}
	for i, seg := range path {
		if i > 0 {
			b = append(b, '.')
		}
		if seg.Kind == KindNumber {
			b = appendNumber(b, seg.Num)
		} else {
			b = appendText(b, seg.Str)
		}
	}
	return b
}

// issuePath joins path segments with '.', or gives "(root)" for none.
func issuePath(path []*Value) string {
	return string(appendPath(nil, path, func(b []byte, s string) []byte { return append(b, s...) }))
}

func segmentText(seg *Value) string {
	if seg.Kind == KindNumber {
		return FormatNumber(seg.Num)
	}
	return seg.Str
}

// lookupPath resolves path inside args the way property access does in
// JavaScript; nil means absent. The root path is always absent, as in the
// reference.
func lookupPath(args *Value, path []*Value) *Value {
	if len(path) == 0 {
		return nil
	}
	cur := args
	for _, seg := range path {
		if cur == nil {
			return nil
		}
		key := segmentText(seg)
		switch cur.Kind {
		case KindObject:
			cur = cur.Get(key)
		case KindArray:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(cur.Arr) || strconv.Itoa(i) != key {
				return nil
			}
			cur = cur.Arr[i]
		default:
			return nil
		}
	}
	return cur
}

// maxSentUnits bounds the "You sent" echo, in UTF-16 code units as the
// reference counts them.
const maxSentUnits = 50

// appendSentValue writes the "You sent:" echo of v (nil means absent).
func appendSentValue(b []byte, v *Value) []byte {
	if v == nil {
		return append(b, "(missing)"...)
	}
	switch v.Kind {
	case KindNull:
		return append(b, "null"...)
	case KindBool:
		if v.Bool {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case KindNumber:
		return appendNumber(b, v.Num)
	case KindString:
		b = append(b, '\'')
		if utf16Len(v.Str) > maxSentUnits {
			b = append(b, cutUTF16(v.Str, maxSentUnits-3)...)
			b = append(b, "..."...)
		} else {
			b = append(b, v.Str...)
		}
		return append(b, '\'')
	case KindArray:
		b = append(b, "array("...)
		b = strconv.AppendInt(b, int64(len(v.Arr)), 10)
		return append(b, ')')
	default:
		return append(b, cutUTF16(string(appendJSONValue(nil, v)), maxSentUnits)...)
	}
}

// utf16Len counts s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// cutUTF16 returns the longest prefix of s of at most units UTF-16 code
// units that does not split a surrogate pair (a deliberate fix: the
// reference can cut one in half).
func cutUTF16(s string, units int) string {
	n := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > units {
			return s[:i]
		}
		n += w
	}
	return s
}

// ZodIssue maps one Zod v3 issue, read leniently, to an Issue.
func ZodIssue(v *Value) Issue {
	is := Issue{Path: pathOf(v.Get("path"))}
	if m := v.Get("message"); m != nil && m.Kind == KindString {
		is.Message = m.Str
	}
	is.Suggestion = zodSuggestion(v)
	return is
}

// pathOf keeps the string and number segments of a path array.
func pathOf(p *Value) []*Value {
	if p == nil || p.Kind != KindArray {
		return nil
	}
	keep := func(seg *Value) bool { return seg.Kind == KindString || seg.Kind == KindNumber }
	all := true
	for _, seg := range p.Arr {
		all = all && keep(seg)
	}
	if all {
		return p.Arr // the usual path; it is only read
	}
	out := make([]*Value, 0, len(p.Arr))
	for _, seg := range p.Arr {
		if keep(seg) {
			out = append(out, seg)
		}
	}
	return out
}

func str(v *Value, key string) (string, bool) {
	if f := v.Get(key); f != nil && f.Kind == KindString {
		return f.Str, true
	}
	return "", false
}

// boundText renders a Zod bound: a number as NUM, a bigint carried as a
// string of digits as it is.
func boundText(v *Value) (string, bool) {
	switch {
	case v == nil:
		return "", false
	case v.Kind == KindNumber:
		return FormatNumber(v.Num), true
	case v.Kind == KindString && v.Str != "":
		return v.Str, true
	}
	return "", false
}

// isOne reports whether a bound is the number 1 (singular nouns).
func isOne(bound *Value) bool { return bound != nil && bound.Kind == KindNumber && bound.Num == 1 }

func truthy(v *Value) bool {
	if v == nil {
		return false
	}
	switch v.Kind {
	case KindBool:
		return v.Bool
	case KindNumber:
		return v.Num != 0 && !math.IsNaN(v.Num)
	case KindString:
		return v.Str != ""
	case KindNull:
		return false
	}
	return true
}

// zodV3Validations are the invalid_string validations the reference gives
// a suggestion; any other gets none, as there.
var zodV3Validations = map[string]bool{
	"email": true, "url": true, "uuid": true, "cuid": true, "datetime": true, "ip": true, "emoji": true, "regex": true,
}

func zodSuggestion(v *Value) string {
	code, _ := str(v, "code")
	switch code {
	case "invalid_type":
		if e, ok := str(v, "expected"); ok {
			return suggestType(e)
		}
	case "invalid_string":
		if val, ok := str(v, "validation"); ok && zodV3Validations[val] {
			return suggestFormat(val)
		}
	case "invalid_format": // Zod v4's invalid_string
		return zodFormatSuggestion(v)
	case "too_small":
		return boundSuggestion(v, "minimum", true)
	case "too_big":
		return boundSuggestion(v, "maximum", false)
	case "invalid_enum_value":
		if opts := v.Get("options"); opts != nil && opts.Kind == KindArray {
			return suggestOptions(opts.Arr)
		}
	case "invalid_value": // Zod v4's invalid_enum_value and invalid_literal
		if values := v.Get("values"); values != nil && values.Kind == KindArray {
			if len(values.Arr) == 1 {
				return suggestExactly(values.Arr[0])
			}
			return suggestOptions(values.Arr)
		}
	case "not_multiple_of":
		// Zod v3 (multipleOf) gets none, as in the reference; v4 names
		// the divisor.
		if n, ok := boundText(v.Get("divisor")); ok {
			return suggestMultipleOf(n)
		}
	case "invalid_key", "invalid_element": // Zod v4: the inner issues say why
		if inner := v.Get("issues"); inner != nil && inner.Kind == KindArray && len(inner.Arr) > 0 && inner.Arr[0].Kind == KindObject {
			return zodSuggestion(inner.Arr[0])
		}
	case "invalid_literal":
		if e := v.Get("expected"); e != nil {
			return suggestExactly(e)
		}
	case "invalid_union":
		return suggestUnion
	case "unrecognized_keys":
		if keys := v.Get("keys"); keys != nil && keys.Kind == KindArray {
			return "Remove or correct unrecognized fields: " + quotedList(keys.Arr) + ". Check for typos."
		}
	case "invalid_date":
		return suggestDate
	}
	return ""
}

// quotedList renders values as 'a', 'b' (strings as they are, numbers as NUM).
func quotedList(items []*Value) string {
	parts := make([]string, 0, len(items))
	for _, it := range items {
		switch it.Kind {
		case KindString:
			parts = append(parts, "'"+it.Str+"'")
		case KindNumber:
			parts = append(parts, "'"+FormatNumber(it.Num)+"'")
		case KindBool, KindNull:
			parts = append(parts, "'"+string(appendJSONValue(nil, it))+"'")
		}
	}
	return strings.Join(parts, ", ")
}

// boundSuggestion covers too_small (min) and too_big (!min) by issue type.
func boundSuggestion(v *Value, boundKey string, min bool) string {
	bound := v.Get(boundKey)
	n, ok := boundText(bound)
	if !ok {
		return ""
	}
	typ, ok := str(v, "type")
	if !ok {
		typ, _ = str(v, "origin") // Zod v4 names the type origin
	}
	switch typ {
	case "string":
		return suggestLength(n, isOne(bound), min)
	case "array":
		return suggestItems(n, isOne(bound), min)
	case "date":
		if min {
			if bound.Kind != KindNumber {
				return ""
			}
			iso, ok := isoString(bound.Num)
			if !ok {
				return ""
			}
			return "Must be after " + iso + "."
		}
	}
	// number, bigint and every other type (set, file, a too_big date) read
	// the bound with its inclusiveness, as the reference does.
	op := "<"
	if min {
		op = ">"
	}
	if truthy(v.Get("inclusive")) {
		op += "="
	}
	return "Must be " + op + " " + n + "."
}

// isoString is JavaScript's Date.prototype.toISOString for epoch
// milliseconds; ok is false where JavaScript throws a RangeError.
func isoString(ms float64) (string, bool) {
	if math.IsNaN(ms) || math.IsInf(ms, 0) || math.Abs(ms) > 8.64e15 {
		return "", false
	}
	ms = math.Trunc(ms)
	t := time.UnixMilli(int64(ms)).UTC()
	year := t.Year()
	var y string
	switch {
	case year >= 0 && year <= 9999:
		y = pad(year, 4)
	case year < 0:
		y = "-" + pad(-year, 6)
	default:
		y = "+" + pad(year, 6)
	}
	return y + t.Format("-01-02T15:04:05.000Z"), true
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// zodFormatSuggestion covers Zod v4's invalid_format, whose formats extend
// v3's string validations.
func zodFormatSuggestion(v *Value) string {
	format, _ := str(v, "format")
	switch format {
	case "starts_with":
		if p, ok := str(v, "prefix"); ok {
			return "Must start with '" + p + "'."
		}
	case "ends_with":
		if p, ok := str(v, "suffix"); ok {
			return "Must end with '" + p + "'."
		}
	case "includes":
		if p, ok := str(v, "includes"); ok {
			return "Must include '" + p + "'."
		}
	case "lowercase":
		return "Expected: lowercase text."
	case "uppercase":
		return "Expected: uppercase text."
	}
	return suggestFormat(format)
}
