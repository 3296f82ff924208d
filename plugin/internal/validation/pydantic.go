package validation

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// pydanticTypes maps Pydantic v2 error types that mean "wrong type" to the
// JSON type the model should send.
var pydanticTypes = map[string]string{
	"string_type": "string", "string_unicode": "string",
	"int_type": "integer", "int_parsing": "integer", "int_from_float": "integer", "int_parsing_size": "integer",
	"float_type": "number", "float_parsing": "number", "decimal_type": "number", "decimal_parsing": "number",
	"bool_type": "boolean", "bool_parsing": "boolean",
	"list_type": "array", "tuple_type": "array", "set_type": "array", "frozen_set_type": "array",
	"dict_type": "object", "model_type": "object", "model_attributes_type": "object", "dataclass_type": "object",
	"none_required": "null",
}

// pydanticFormats maps Pydantic v2 parsing errors to a string format.
var pydanticFormats = map[string]string{
	"url_parsing": "url", "url_type": "url", "url_syntax_violation": "url", "url_scheme": "url", "url_too_long": "url",
	"uuid_parsing": "uuid", "uuid_type": "uuid", "uuid_version": "uuid",
	"datetime_parsing": "datetime", "datetime_type": "datetime", "datetime_from_date_parsing": "datetime",
	"date_parsing": "date", "date_type": "date", "date_from_datetime_parsing": "date",
	"time_parsing": "time", "time_type": "time",
	"timedelta_parsing": "duration", "timedelta_type": "duration",
	"ip_v4_address": "ip", "ip_v6_address": "ip", "ip_any_address": "ip",
}

// pydanticBounds are Pydantic's errors of a numeric bound: the member of
// ctx that holds the bound, and how the hint (suggestBound) states it.
var pydanticBounds = map[string]struct{ key, op string }{
	"greater_than": {"gt", ">"}, "greater_than_equal": {"ge", ">="}, "less_than": {"lt", "<"}, "less_than_equal": {"le", "<="},
	"multiple_of": {"multiple_of", "a multiple of"},
}

// PydanticIssues maps the entries of ValidationError.errors() to issues:
// loc is the path and input the sent value. Extra fields of one object
// (extra_forbidden) become one issue at that object, listing every key, the
// way Zod reports unrecognized keys.
//
// Not inlined: a function of its own in the module, so that format_validation's
// dispatch stays one JVM method under HotSpot's compile limit on Chicory
// (RATIONALE.md, "The module's functions and HotSpot").
//
//go:noinline
func PydanticIssues(entries []*jsonv.Value, args *jsonv.Value) []Issue {
	type pending struct {
		issue Issue
		extra []jsonv.Member // keys (and inputs) of a grouped extra_forbidden issue
	}
	var out []pending
	extras := map[string]int{} // parent path -> index in out
	for _, e := range entries {
		typ, _ := jsonv.GetString(e, "type")
		msg, _ := jsonv.GetString(e, "msg")
		path := pathOf(e.Get("loc"))
		if typ == "extra_forbidden" && len(path) > 0 {
			parent, key := path[:len(path)-1], jsonv.SegmentText(path[len(path)-1])
			extra := jsonv.Member{Key: key, Value: e.Get("input")}
			id := issuePath(parent)
			if i, ok := extras[id]; ok {
				out[i].extra = append(out[i].extra, extra)
				continue
			}
			extras[id] = len(out)
			// Without args the parent object is unknown: what was sent is
			// the extra members, as the errors' inputs give them.
			out = append(out, pending{Issue{Path: parent, Message: sentence(msg), HasSent: args == nil}, []jsonv.Member{extra}})
			continue
		}
		is := Issue{Path: path, Message: sentence(msg), Suggestion: pydanticSuggestion(typ, msg, e.Get("ctx"))}
		switch {
		case args == nil:
			is.HasSent = true
			if typ != "missing" { // a missing field's input is its parent
				is.Sent = e.Get("input")
			}
		case typ != "missing" && e.Get("input") != nil && throughValue(args, path):
			// A loc that goes on past a value that holds no members (a
			// union member's tag: freshness.literal['pd'] where freshness is
			// a string) names no place in args: what was sent there is the
			// entry's input, not "(missing)".
			is.HasSent = true
			is.Sent = e.Get("input")
		}
		out = append(out, pending{issue: is})
	}
	issues := make([]Issue, len(out))
	for i, p := range out {
		issues[i] = p.issue
		if len(p.extra) > 0 {
			keys := make([]string, len(p.extra))
			for k, m := range p.extra {
				keys[k] = m.Key
			}
			issues[i].Suggestion = suggestUnrecognized(keys)
			issues[i].Keys = keys
			if issues[i].HasSent {
				sent := &jsonv.Value{Kind: jsonv.KindObject}
				for _, m := range p.extra {
					if m.Value != nil {
						sent.Members = append(sent.Members, m)
					}
				}
				if len(sent.Members) > 0 {
					issues[i].Sent = sent
				}
			}
		}
	}
	return issues
}

// throughValue reports whether path, followed inside args, reaches a value
// that is neither an object nor an array before its last segment.
func throughValue(args *jsonv.Value, path []*jsonv.Value) bool {
	for i := len(path) - 1; i > 0; i-- {
		if v := jsonv.LookupPath(args, path[:i]); v != nil {
			return v.Kind != jsonv.KindObject && v.Kind != jsonv.KindArray
		}
	}
	return false
}

// pydanticSuggestion is the hint for one of Pydantic's errors, stated
// once: Pydantic's message (msg) already names most constraints with their
// value ("Input should be greater than or equal to 1", "String should
// match pattern '^inv_'"), and a hint that would only say it again is left
// out; what the message lacks (the JSON type a Python type name stands
// for, an example of a format, the email format) is given.
func pydanticSuggestion(typ, msg string, ctx *jsonv.Value) string {
	if t, ok := pydanticTypes[typ]; ok {
		return unlessStated(msg, suggestType(t), t)
	}
	if f, ok := pydanticFormats[typ]; ok {
		return suggestFormat(f)
	}
	num := func(key string) (string, bool) { return boundText(ctx.Get(key)) }
	one := func(key string) bool { return isOne(ctx.Get(key)) }
	switch typ {
	case "string_too_short", "string_too_long", "too_short", "too_long":
		// A string's length in characters, a collection's in items.
		least, key := strings.HasSuffix(typ, "_short"), "max_length"
		if least {
			key = "min_length"
		}
		suggest := suggestItems
		if strings.HasPrefix(typ, "string_") {
			suggest = suggestLength
		}
		if n, ok := num(key); ok {
			return unlessNumberStated(msg, suggest(n, one(key), least), n)
		}
	case "string_pattern_mismatch":
		pattern, _ := jsonv.GetString(ctx, "pattern")
		if pattern != "" && strings.Contains(msg, pattern) {
			return ""
		}
		return suggestPattern
	case "greater_than", "greater_than_equal", "less_than", "less_than_equal", "multiple_of":
		b := pydanticBounds[typ]
		if n, ok := num(b.key); ok {
			return unlessNumberStated(msg, suggestBound(b.op, n), n)
		}
	case "literal_error":
		if values := pythonAlternatives(ctx.Get("expected")); len(values) == 1 {
			return unlessValuesStated(msg, suggestExactly(values[0]), values)
		} else if len(values) > 1 {
			return unlessValuesStated(msg, suggestOptions(values), values)
		}
	case "enum":
		if values := pythonAlternatives(ctx.Get("expected")); len(values) > 0 {
			return unlessValuesStated(msg, suggestOptions(values), values)
		}
	case "union_tag_invalid", "union_tag_not_found":
		return suggestUnion
	case "value_error":
		// An email-validator failure (Pydantic's EmailStr) has no type of
		// its own: "value is not a valid email address: ...".
		if strings.Contains(msg, "valid email address") {
			return suggestFormat("email")
		}
	}
	return ""
}

// pythonAlternatives reads Pydantic's expected text, "'a', 'b' or 'c'",
// into values: quoted reprs become strings, numbers numbers.
func pythonAlternatives(v *jsonv.Value) []*jsonv.Value {
	if v == nil {
		return nil
	}
	if v.Kind == jsonv.KindArray {
		return v.Arr
	}
	if v.Kind != jsonv.KindString || v.Str == "" {
		return nil
	}
	var out []*jsonv.Value
	text := v.Str
	// next[i] is where separator i next occurs at or after the read
	// position (-1: nowhere): a separator is searched for again only once
	// the position has passed it, so the text is read a bounded number of
	// times in all, not once per token.
	seps := [...]string{", ", " or "}
	next := [len(seps)]int{-2, -2}
	pos := 0
	for pos < len(text) {
		rest := text[pos:]
		var token string
		if q := rest[0]; q == '\'' || q == '"' {
			end := strings.IndexByte(rest[1:], q)
			if end < 0 {
				token, pos = rest, len(text)
			} else {
				out = append(out, &jsonv.Value{Kind: jsonv.KindString, Str: rest[1 : 1+end]})
				pos += end + 2
				pos += len(rest[end+2:]) - len(trimSeparator(rest[end+2:]))
				continue
			}
		} else {
			cut := len(text)
			for i, sep := range seps {
				if next[i] != -1 && next[i] < pos {
					if j := strings.Index(rest, sep); j >= 0 {
						next[i] = pos + j
					} else {
						next[i] = -1
					}
				}
				if next[i] >= 0 && next[i] < cut {
					cut = next[i]
				}
			}
			token = text[pos:cut]
			pos = cut + len(text[cut:]) - len(trimSeparator(text[cut:]))
		}
		if v := pythonToken(token); v != nil {
			out = append(out, v)
		}
	}
	return out
}

// pythonConstants are the reprs of Python's True, False and None, which a
// Literal may list: they are JSON's true, false and null.
var pythonConstants = map[string]*jsonv.Value{
	"True": {Kind: jsonv.KindBool, Bool: true}, "False": {Kind: jsonv.KindBool}, "None": {Kind: jsonv.KindNull},
}

func trimSeparator(s string) string {
	for _, sep := range []string{", ", " or "} {
		if strings.HasPrefix(s, sep) {
			return s[len(sep):]
		}
	}
	return s
}

// pythonToken is the value of one unquoted token of an expected-values
// text: a Python constant, a number, or else the text itself (nil for an
// empty token).
func pythonToken(token string) *jsonv.Value {
	if lit, ok := pythonConstants[token]; ok {
		return lit
	}
	if f, err := strconv.ParseFloat(token, 64); err == nil {
		return &jsonv.Value{Kind: jsonv.KindNumber, Num: f}
	}
	if token != "" {
		return &jsonv.Value{Kind: jsonv.KindString, Str: token}
	}
	return nil
}
