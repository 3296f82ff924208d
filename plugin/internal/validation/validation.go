// Package validation writes <validation_error> envelopes from every
// validator dialect (Zod v3 and v4 issues, Pydantic errors, JSON Schema
// errors) and from its own JSON Schema validator, validate: one <field>
// line per issue with what was sent and a suggestion
// (docs/CONTRACT.md, "Validation errors").
package validation

import (
	"math"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/toolerr/toolerr/plugin/internal/contract"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/xmlesc"
)

// Issue is one validator finding, already mapped to the contract's terms:
// where it is (Path), what the validator said (Message) and what the model
// should do (Suggestion, "" for none).
type Issue struct {
	Path       []*jsonv.Value // string and number segments
	Message    string
	Suggestion string
	// HasSent marks an issue that carries the sent value itself (Pydantic's
	// input); Sent is then echoed, nil meaning absent. Otherwise the value
	// is looked up in args at Path.
	HasSent bool
	Sent    *jsonv.Value
	// SentText, when set, is what "You sent" shows, as it is: a
	// measurement of a value too large to echo (the stdio gate's "70
	// levels", "4194320 bytes").
	SentText string
	// Keys are the unrecognized keys the issue reports, in the order they
	// were reported (Zod's unrecognized_keys, Pydantic's extra_forbidden,
	// JSON Schema's additionalProperties); at the root, "You sent" shows
	// those members of the arguments.
	Keys []string
}

// validationRecovery closes every <validation_error>.
const validationRecovery = "<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>"

// OutputLimit is the most text the validation error of a request of
// requestBytes bytes may carry: 16 times the request, plus 1 MiB. Each
// <field> line costs a bounded amount beyond the text of its issue, and an
// issue's own text is in the request, so only text that issues share (a
// long key above many issues, a long list of allowed values for many
// values) can reach the limit; the request is then refused at once,
// instead of rendered in time and memory that grow with the square of its
// size.
func OutputLimit(requestBytes int) int { return 16*requestBytes + 1<<20 }

// TooLongError reports a validation error whose text would be over the
// limit.
type TooLongError struct{ Limit int }

func (e *TooLongError) Error() string {
	return "the validation error would hold more than " + strconv.Itoa(e.Limit) +
		" bytes of text (16 times the request, plus 1 MiB): its issues repeat text the request holds once"
}

// textSize is what the limit counts: the bytes of every issue's path,
// message and suggestion before escaping, and 32 for each issue. It is
// known before anything is written, in time linear in the issues.
func textSize(issues []Issue) int {
	n := 0
	for _, is := range issues {
		n += 32 + len(is.Message) + len(is.Suggestion) + len(is.SentText)
		for _, seg := range is.Path {
			if seg.Kind == jsonv.KindNumber {
				n += 8
			} else {
				n += len(seg.Str) + 1
			}
		}
	}
	return n
}

// AppendValidationError writes the <validation_error> envelope after b: one
// <field> per issue with what was sent (looked up in args) and the
// suggestion, then the contract awareness block when awareness is
// non-nil. *line is a scratch buffer it reuses for each field's text, idx
// (nil for a new one) finds the sent values, and limit bounds textSize (a
// *TooLongError past it, and nothing written).
func AppendValidationError(b []byte, line *[]byte, action string, issues []Issue, args *jsonv.Value, awareness *contract.Awareness, idx *jsonv.Index, limit int) ([]byte, error) {
	if textSize(issues) > limit {
		return b, &TooLongError{limit}
	}
	if idx == nil {
		idx = &jsonv.Index{}
	}
	b = append(b, `<validation_error action="`...)
	b = xmlesc.AppendAttribute(b, action)
	b = append(b, "\">"...)
	ln := *line
	for _, is := range issues {
		b = append(b, "\n<field name=\""...)
		b = appendIssuePath(b, is.Path)
		b = append(b, "\">"...)
		ln = append(ln[:0], is.Message...)
		ln = append(ln, " You sent: "...)
		switch {
		case is.SentText != "":
			ln = append(ln, is.SentText...)
		case is.HasSent:
			ln = appendSentValue(ln, is.Sent)
		case len(is.Path) == 0:
			ln = appendSentValue(ln, rootSent(args, is.Keys))
		default:
			ln = appendSentValue(ln, idx.LookupPath(args, is.Path))
		}
		ln = append(ln, '.')
		if is.Suggestion != "" {
			ln = append(ln, ' ')
			ln = append(ln, is.Suggestion...)
		}
		b = xmlesc.AppendContent(b, unsafe.String(unsafe.SliceData(ln), len(ln)))
		b = append(b, "</field>"...)
	}
	*line = ln
	b = append(b, '\n')
	b = append(b, validationRecovery...)
	if block := awareness.Render(); block != "" {
		b = append(b, "\n\n\n"...) // two empty lines, as the reference inserts it
		b = append(b, block...)
	}
	return append(b, "\n</validation_error>"...), nil
}

// appendIssuePath writes issuePath(path) escaped for an attribute.
func appendIssuePath(b []byte, path []*jsonv.Value) []byte {
	return appendPath(b, path, xmlesc.AppendAttribute)
}

// appendPath writes path's segments joined with '.', or "(root)" for none;
// appendText writes a string segment (numbers need no escaping).
func appendPath(b []byte, path []*jsonv.Value, appendText func([]byte, string) []byte) []byte {
	if len(path) == 0 {
		return append(b, "(root)"...)
	}
	for i, seg := range path {
		if i > 0 {
			b = append(b, '.')
		}
		if seg.Kind == jsonv.KindNumber {
			b = jsonv.AppendNumber(b, seg.Num)
		} else {
			b = appendText(b, seg.Str)
		}
	}
	return b
}

// issuePath joins path segments with '.', or gives "(root)" for none.
func issuePath(path []*jsonv.Value) string {
	return string(appendPath(nil, path, func(b []byte, s string) []byte { return append(b, s...) }))
}

// rootSent is what was sent at the root of the arguments (a deliberate
// departure from the reference, which writes "(missing)" there whatever
// was sent: docs/CONTRACT.md, deviation 10): for an issue that reports
// unrecognized keys, the members of args under those keys, in the order
// args holds them; for any other, args itself. nil only when args is.
func rootSent(args *jsonv.Value, keys []string) *jsonv.Value {
	if len(keys) == 0 || args == nil || args.Kind != jsonv.KindObject {
		return args
	}
	named := make(map[string]bool, len(keys))
	for _, k := range keys {
		named[k] = true
	}
	members := make([]jsonv.Member, 0, len(keys))
	for _, m := range args.Members {
		if named[m.Key] {
			members = append(members, m)
		}
	}
	if len(members) == 0 {
		return args
	}
	return &jsonv.Value{Kind: jsonv.KindObject, Members: members}
}

// maxSentUnits bounds the "You sent" echo, in UTF-16 code units as the
// reference counts them.
const maxSentUnits = 50

// appendSentValue writes the "You sent:" echo of v (nil means absent).
func appendSentValue(b []byte, v *jsonv.Value) []byte {
	if v == nil {
		return append(b, "(missing)"...)
	}
	switch v.Kind {
	case jsonv.KindNull:
		return append(b, "null"...)
	case jsonv.KindBool:
		if v.Bool {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case jsonv.KindNumber:
		return jsonv.AppendNumber(b, v.Num)
	case jsonv.KindString:
		b = append(b, '\'')
		if utf16LongerThan(v.Str, maxSentUnits) {
			b = append(b, cutUTF16(v.Str, maxSentUnits-3)...)
			b = append(b, "..."...)
		} else {
			b = append(b, v.Str...)
		}
		return append(b, '\'')
	case jsonv.KindArray:
		b = append(b, "array("...)
		b = strconv.AppendInt(b, int64(len(v.Arr)), 10)
		return append(b, ')')
	default:
		// Only the first units are shown: the compact JSON is written up to
		// a prefix long enough for them (the JSON is valid UTF-8, at most
		// three bytes a unit), whatever the object's size.
		// Written onto b and cut there: a scratch array of its own went
		// to the heap on every call in TinyGo's build. The string view
		// of the bytes is read by cutUTF16 and dropped.
		start := len(b)
		b = jsonv.AppendValuePrefix(b, v, 3*maxSentUnits+4)
		written := b[start:]
		return b[:start+len(cutUTF16(unsafe.String(unsafe.SliceData(written), len(written)), maxSentUnits))]
	}
}

// utf16LongerThan reports whether s has more than units UTF-16 code units,
// reading no more of s than it takes to tell. A unit takes at least one
// byte of UTF-8 (an invalid byte reads as U+FFFD, one unit), so a string
// of at most units bytes is decided by its length. The loops here go byte
// by byte, decoding only what is not ASCII: TinyGo calls into its runtime
// for every character of a range over a string.
func utf16LongerThan(s string, units int) bool {
	if len(s) <= units {
		return false
	}
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			n++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			n += utf16.RuneLen(r)
		}
		if n > units {
			return true
		}
	}
	return false
}

// cutUTF16 returns the longest prefix of s of at most units UTF-16 code
// units that does not split a surrogate pair (a deliberate fix: the
// reference can cut one in half).
func cutUTF16(s string, units int) string {
	if len(s) <= units {
		return s
	}
	n := 0
	for i := 0; i < len(s); {
		w, size := 1, 1
		if s[i] >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			if r >= 0x10000 {
				w = 2
			}
		}
		if n+w > units {
			return s[:i]
		}
		n += w
		i += size
	}
	return s
}

// ZodIssue maps one Zod v3 issue, read leniently, to an Issue.
//
// Not inlined: a function of its own in the module, one JVM method under
// HotSpot's compile limit on Chicory (RATIONALE.md, "The module's
// functions and HotSpot").
//
//go:noinline
func ZodIssue(v *jsonv.Value) Issue {
	is := Issue{Path: pathOf(v.Get("path"))}
	if m := v.Get("message"); m != nil && m.Kind == jsonv.KindString {
		is.Message = m.Str
	}
	is.Suggestion = zodSuggestion(v)
	if code, _ := jsonv.GetString(v, "code"); code == "unrecognized_keys" {
		if keys := v.Get("keys"); keys != nil && keys.Kind == jsonv.KindArray {
			for _, k := range keys.Arr {
				if k.Kind == jsonv.KindString {
					is.Keys = append(is.Keys, k.Str)
				}
			}
		}
	}
	return is
}

// pathOf keeps the string and number segments of a path array.
func pathOf(p *jsonv.Value) []*jsonv.Value {
	if p == nil || p.Kind != jsonv.KindArray {
		return nil
	}
	keep := func(seg *jsonv.Value) bool { return seg.Kind == jsonv.KindString || seg.Kind == jsonv.KindNumber }
	all := true
	for _, seg := range p.Arr {
		all = all && keep(seg)
	}
	if all {
		return p.Arr // the usual path; it is only read
	}
	out := make([]*jsonv.Value, 0, len(p.Arr))
	for _, seg := range p.Arr {
		if keep(seg) {
			out = append(out, seg)
		}
	}
	return out
}

// boundText renders a Zod bound: a number as NUM, a bigint carried as a
// string of digits as it is.
func boundText(v *jsonv.Value) (string, bool) {
	switch {
	case v == nil:
		return "", false
	case v.Kind == jsonv.KindNumber:
		return jsonv.FormatNumber(v.Num), true
	case v.Kind == jsonv.KindString && v.Str != "":
		return v.Str, true
	}
	return "", false
}

// isOne reports whether a bound is the number 1 (singular nouns).
func isOne(bound *jsonv.Value) bool {
	return bound != nil && bound.Kind == jsonv.KindNumber && bound.Num == 1
}

func truthy(v *jsonv.Value) bool {
	if v == nil {
		return false
	}
	switch v.Kind {
	case jsonv.KindBool:
		return v.Bool
	case jsonv.KindNumber:
		return v.Num != 0 && !math.IsNaN(v.Num)
	case jsonv.KindString:
		return v.Str != ""
	case jsonv.KindNull:
		return false
	}
	return true
}

// zodV3Validations are the invalid_string validations the reference gives
// a suggestion; any other gets none, as there.
var zodV3Validations = map[string]bool{
	"email": true, "url": true, "uuid": true, "cuid": true, "datetime": true, "ip": true, "emoji": true, "regex": true,
}

// zodSuggestion is the suggestion of a Zod issue.
//
// Not inlined: a function of its own in the module, one JVM method under
// HotSpot's compile limit on Chicory (RATIONALE.md, "The module's
// functions and HotSpot").
//
//go:noinline
func zodSuggestion(v *jsonv.Value) string {
	code, _ := jsonv.GetString(v, "code")
	switch code {
	case "invalid_type":
		if e, ok := jsonv.GetString(v, "expected"); ok {
			return suggestType(e)
		}
	case "invalid_string":
		if val, ok := jsonv.GetString(v, "validation"); ok && zodV3Validations[val] {
			return suggestFormat(val)
		}
	case "invalid_format": // Zod v4's invalid_string
		return zodFormatSuggestion(v)
	case "too_small":
		return boundSuggestion(v, "minimum", true)
	case "too_big":
		return boundSuggestion(v, "maximum", false)
	case "invalid_enum_value":
		if opts := v.Get("options"); opts != nil && opts.Kind == jsonv.KindArray {
			return suggestOptions(opts.Arr)
		}
	case "invalid_value": // Zod v4's invalid_enum_value and invalid_literal
		if values := v.Get("values"); values != nil && values.Kind == jsonv.KindArray {
			if len(values.Arr) == 1 {
				return suggestExactly(values.Arr[0])
			}
			return suggestOptions(values.Arr)
		}
	case "not_multiple_of":
		// Zod v3 (multipleOf) gets none, as in the reference; v4 names
		// the divisor.
		if n, ok := boundText(v.Get("divisor")); ok {
			return suggestBound("a multiple of", n)
		}
	case "invalid_key", "invalid_element": // Zod v4: the inner issues say why
		if inner := v.Get("issues"); inner != nil && inner.Kind == jsonv.KindArray && len(inner.Arr) > 0 && inner.Arr[0].Kind == jsonv.KindObject {
			return zodSuggestion(inner.Arr[0])
		}
	case "invalid_literal":
		if e := v.Get("expected"); e != nil {
			return suggestExactly(e)
		}
	case "invalid_union":
		return suggestUnion
	case "unrecognized_keys":
		if keys := v.Get("keys"); keys != nil && keys.Kind == jsonv.KindArray {
			return "Remove or correct unrecognized fields: " + quotedList(keys.Arr) + ". Check for typos."
		}
	case "invalid_date":
		return suggestDate
	}
	return ""
}

// quotedList renders values as 'a', 'b': strings as they are, numbers as
// NUM, and booleans, null, arrays and objects as compact JSON.
func quotedList(items []*jsonv.Value) string {
	var b []byte
	for i, it := range items {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '\'')
		switch it.Kind {
		case jsonv.KindString:
			b = append(b, it.Str...)
		case jsonv.KindNumber:
			b = jsonv.AppendNumber(b, it.Num)
		default:
			b = jsonv.AppendValue(b, it)
		}
		b = append(b, '\'')
	}
	return string(b)
}

// boundSuggestion covers too_small (min) and too_big (!min) by issue type.
func boundSuggestion(v *jsonv.Value, boundKey string, min bool) string {
	bound := v.Get(boundKey)
	n, ok := boundText(bound)
	if !ok {
		return ""
	}
	typ, ok := jsonv.GetString(v, "type")
	if !ok {
		typ, _ = jsonv.GetString(v, "origin") // Zod v4 names the type origin
	}
	switch typ {
	case "string":
		return suggestLength(n, isOne(bound), min)
	case "array":
		return suggestItems(n, isOne(bound), min)
	case "date":
		if min {
			if bound.Kind != jsonv.KindNumber {
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
//
// Not inlined: a function of its own in the module, one JVM method under
// HotSpot's compile limit on Chicory (RATIONALE.md, "The module's
// functions and HotSpot").
//
//go:noinline
func zodFormatSuggestion(v *jsonv.Value) string {
	format, _ := jsonv.GetString(v, "format")
	switch format {
	case "starts_with":
		if p, ok := jsonv.GetString(v, "prefix"); ok {
			return "Must start with '" + p + "'."
		}
	case "ends_with":
		if p, ok := jsonv.GetString(v, "suffix"); ok {
			return "Must end with '" + p + "'."
		}
	case "includes":
		if p, ok := jsonv.GetString(v, "includes"); ok {
			return "Must include '" + p + "'."
		}
	case "lowercase":
		return "Expected: lowercase text."
	case "uppercase":
		return "Expected: uppercase text."
	}
	return suggestFormat(format)
}

// Dialects are the validator output shapes format_validation reads.
var Dialects = []string{"zod", "pydantic", "jsonschema"}
