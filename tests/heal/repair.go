package main

import (
	"encoding/json"
	"html"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The repairer: what a model could do with a text and nothing else. It reads
// the text of a failed call (never the tool's schema), finds the fields it
// names and what it says about each (a type, a bound, the options, a
// pattern, a format, unknown keys, a missing field, the tools that exist),
// and edits the arguments, or the tool name, accordingly. It is
// deterministic, and it reads the texts of every SDK as well as toolerr's
// envelopes, so that both are measured by the same reader.

// Reading is what the repairer understood of one text.
type Reading struct {
	Issues []Issue
	Tools  []string // tools the text offers instead of the one called
}

// Issue is one field the text names, with what it says about it.
type Issue struct {
	Path []string // object keys and array indexes; "*" for every item; empty for the whole call
	Msg  string
}

var (
	envelopeRE   = regexp.MustCompile(`<validation_error\b`)
	actionRE     = regexp.MustCompile(`<action>([^<]*)</action>`)
	actionListRE = regexp.MustCompile(`<available_actions>([^<]*)</available_actions>`)
	zodSDKRE     = regexp.MustCompile(`(?s)Invalid arguments for tool [^:]*: (.*)$`)
	zodLineAtRE  = regexp.MustCompile(`^(.*) at ([A-Za-z0-9_$\-\[\].]+)$`)
	pydanticRE   = regexp.MustCompile(`\d+ validation errors? for \S+\n`)
	goSDKRE      = regexp.MustCompile(`^validating "arguments": (.*)$`)
	goSDKPathRE  = regexp.MustCompile(`validating (/[^:]*): `)
	bracketSegRE = regexp.MustCompile(`\[(\d+)\]`)
)

// Read parses text: a toolerr envelope, the TypeScript SDK's text (zod's
// messages with "at path"), the Python SDK's (pydantic's report), the Go
// SDK's (jsonschema-go's chain of schema locations); anything else is one
// issue on the whole call.
func Read(text string) Reading {
	var r Reading
	for _, m := range actionRE.FindAllStringSubmatch(text, -1) {
		r.Tools = append(r.Tools, html.UnescapeString(strings.TrimSpace(m[1])))
	}
	// UNKNOWN_ACTION lists the tools in one line, separated by ", ".
	if m := actionListRE.FindStringSubmatch(text); m != nil && len(r.Tools) == 0 {
		for _, name := range strings.Split(m[1], ",") {
			if name = html.UnescapeString(strings.TrimSpace(name)); name != "" {
				r.Tools = append(r.Tools, name)
			}
		}
	}
	switch {
	case envelopeRE.MatchString(text):
		for _, f := range fieldRE.FindAllStringSubmatch(text, -1) {
			name := html.UnescapeString(f[1])
			var path []string
			if name != "(root)" && name != "" {
				path = strings.Split(name, ".")
			}
			r.Issues = append(r.Issues, Issue{Path: path, Msg: html.UnescapeString(f[2])})
		}
	case zodSDKRE.MatchString(text):
		body := zodSDKRE.FindStringSubmatch(text)[1]
		for _, line := range strings.Split(body, "\n") {
			if m := zodLineAtRE.FindStringSubmatch(line); m != nil {
				p := bracketSegRE.ReplaceAllString(m[2], ".$1")
				r.Issues = append(r.Issues, Issue{Path: strings.Split(p, "."), Msg: m[1]})
			} else if strings.TrimSpace(line) != "" {
				r.Issues = append(r.Issues, Issue{Msg: line})
			}
		}
	case pydanticRE.MatchString(text):
		lines := strings.Split(text[pydanticRE.FindStringIndex(text)[1]:], "\n")
		for i := 0; i+1 < len(lines); i++ {
			if lines[i] == "" || strings.HasPrefix(lines[i], " ") || !strings.HasPrefix(lines[i+1], "  ") {
				continue
			}
			var path []string
			if lines[i] != "" {
				path = strings.Split(lines[i], ".")
			}
			r.Issues = append(r.Issues, Issue{Path: path, Msg: strings.TrimSpace(lines[i+1])})
			i++
		}
	case goSDKRE.MatchString(text):
		chain := goSDKRE.FindStringSubmatch(text)[1]
		var path []string
		locs := goSDKPathRE.FindAllStringSubmatchIndex(chain, -1)
		msg := strings.TrimPrefix(chain, "validating root: ")
		if len(locs) > 0 {
			last := locs[len(locs)-1]
			path = schemaPath(chain[last[2]:last[3]])
			msg = chain[last[1]:]
		}
		r.Issues = append(r.Issues, Issue{Path: path, Msg: msg})
	default:
		r.Issues = append(r.Issues, Issue{Msg: text})
	}
	return r
}

// schemaPath turns a schema location (/properties/a/items/properties/b)
// into the instance path it checks (a.*.b).
func schemaPath(loc string) []string {
	segs := strings.Split(strings.TrimPrefix(loc, "/"), "/")
	var path []string
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties":
			if i+1 < len(segs) {
				path = append(path, segs[i+1])
				i++
			}
		case "items":
			path = append(path, "*")
		case "anyOf", "oneOf", "allOf", "prefixItems":
			i++
		}
	}
	return path
}

// Facts are what one issue's message says.
type Facts struct {
	Unknown  []string // keys to remove
	Extra    bool     // the message is about keys the schema does not have
	Missing  []string // keys to add (an issue on an object naming them)
	Absent   bool     // the field itself is missing
	Type     string   // the JSON type wanted
	Options  []string // the allowed values
	Pattern  string
	Format   string
	Example  string
	Min, Max *bound
	MinLen   *bound // string length
	MaxLen   *bound
	MinItems *bound
	MaxItems *bound
}

type bound struct {
	v         float64
	exclusive bool
}

var (
	unknownListRE = regexp.MustCompile(`(?i)unrecognized fields?: ('[^']*'(?:, '[^']*')*)`)
	unknownRE     = regexp.MustCompile(`(?i)unrecognized|additional propert|extra inputs are not permitted|extra fields? not permitted|not allowed|unexpected propert`)
	quotedRE      = regexp.MustCompile(`'([^']*)'|"([^"]*)"`)
	missingRE     = regexp.MustCompile(`(?i)(^|[^a-z])(required\b(?: property)?(?: is)?(?: missing)?|field required|missing propert|received undefined|is missing)`)
	missingListRE = regexp.MustCompile(`missing properties: \[([^\]]*)\]`)
	typeRES       = []*regexp.Regexp{
		regexp.MustCompile(`(?i)expected type: (\w+)`),
		regexp.MustCompile(`(?i)expected (\w+), received`),
		regexp.MustCompile(`(?i)want "(\w+)"`),
		regexp.MustCompile(`(?i)input should be a valid (\w+)`),
		regexp.MustCompile(`(?i)should be (?:a |an )?(\w+)\b`),
		regexp.MustCompile(`(?i)must be (?:a |an )?(string|number|integer|boolean|array|object)\b`),
	}
	optionsRES = []*regexp.Regexp{
		regexp.MustCompile(`(?i)valid options: (.*?)(?:\.(?:\s|$)|$)`),
		regexp.MustCompile(`(?i)expected one of (.*?)(?: at |$|\. )`),
		regexp.MustCompile(`(?i)expected ('[^']*'(?: \| '[^']*')+)`),
		regexp.MustCompile(`(?i)input should be ('[^']*'(?:, '[^']*')*(?: or '[^']*')?)`),
		regexp.MustCompile(`(?i)(?:any of|one of):? \[([^\]]*)\]`),
	}
	patternRES = []*regexp.Regexp{
		regexp.MustCompile(`(?i)does not match the pattern (.*?)\. You sent`),
		regexp.MustCompile(`(?i)match pattern '(.*?)'(?:\s|$|\[)`),
		regexp.MustCompile(`(?i)match pattern /(.*)/`),
		regexp.MustCompile(`(?i)does not match regular expression "(.*)"`),
		regexp.MustCompile(`(?i)pattern[: ]+(\^\S*\$)`),
	}
	urlRE          = regexp.MustCompile(`\b(url|uri)\b`)
	keywordBoundRE = regexp.MustCompile(`^(minimum|maximum|exclusiveMinimum|exclusiveMaximum|minLength|maxLength|minItems|maxItems): .*?(-?[0-9][0-9.]*)$`)
	exampleRE      = regexp.MustCompile(`\(e\.g\. ([^)\s]+)\)`)
	boundRES       = []struct {
		re   *regexp.Regexp
		kind string // ">=", ">", "<=", "<"
	}{
		{regexp.MustCompile(`(>=|<=|>|<|≥|≤)\s*(-?[0-9][0-9.e+]*)`), ""},
		{regexp.MustCompile(`(?i)greater than or equal to (-?[0-9][0-9.e+]*)`), ">="},
		{regexp.MustCompile(`(?i)less than or equal to (-?[0-9][0-9.e+]*)`), "<="},
		{regexp.MustCompile(`(?i)greater than (-?[0-9][0-9.e+]*)`), ">"},
		{regexp.MustCompile(`(?i)less than (-?[0-9][0-9.e+]*)`), "<"},
		{regexp.MustCompile(`(?i)minimum(?: value)?:? (-?[0-9][0-9.e+]*)`), ">="},
		{regexp.MustCompile(`(?i)maximum(?: value)?:? (-?[0-9][0-9.e+]*)`), "<="},
		{regexp.MustCompile(`(?i)at least (-?[0-9][0-9.e+]*)`), ">="},
		{regexp.MustCompile(`(?i)at most (-?[0-9][0-9.e+]*)`), "<="},
	}
)

// facts reads one message.
func facts(msg string) Facts {
	var f Facts
	lower := strings.ToLower(msg)
	if loc := unknownRE.FindStringIndex(msg); loc != nil {
		f.Extra = true
		span := msg[loc[0]:]
		if m := unknownListRE.FindStringSubmatch(msg); m != nil {
			span = m[1]
		} else if k := strings.Index(span, "You sent:"); k >= 0 {
			span = span[:k] // the value sent is no list of names
		}
		for _, m := range quotedRE.FindAllStringSubmatch(span, -1) {
			f.Unknown = appendNew(f.Unknown, m[1]+m[2])
		}
	}
	if m := missingListRE.FindStringSubmatch(msg); m != nil {
		for _, q := range quotedRE.FindAllStringSubmatch(m[1], -1) {
			f.Missing = append(f.Missing, q[1]+q[2])
		}
	} else if missingRE.MatchString(msg) && !strings.Contains(lower, "required pattern") {
		f.Absent = true
	}
	if strings.Contains(lower, "you sent: (missing)") {
		f.Absent = true
	}
	for _, re := range typeRES {
		if m := re.FindStringSubmatch(msg); m != nil {
			if t := jsonType(m[1]); t != "" {
				f.Type = t
				break
			}
		}
	}
	for _, re := range optionsRES {
		if m := re.FindStringSubmatch(msg); m != nil {
			f.Options = quotedOrBare(m[1])
			if len(f.Options) > 0 {
				break
			}
		}
	}
	for _, re := range patternRES {
		if m := re.FindStringSubmatch(msg); m != nil {
			f.Pattern = m[1]
			if unquoted, err := strconv.Unquote(`"` + m[1] + `"`); err == nil && re == patternRES[3] {
				f.Pattern = unquoted // Go-quoted: "^\\d+$"
			}
			break
		}
	}
	if m := exampleRE.FindStringSubmatch(msg); m != nil {
		f.Example = m[1]
	}
	switch {
	case strings.Contains(lower, "uuid"):
		f.Format = "uuid"
	case urlRE.MatchString(lower):
		f.Format = "uri"
	case strings.Contains(lower, "email"):
		f.Format = "email"
	case strings.Contains(lower, "datetime") || strings.Contains(lower, "date-time") || strings.Contains(lower, "iso 8601"):
		f.Format = "date-time"
	}
	// Bounds: of a length, of a number of items, or of the value.
	target := func(b bound, rel string) {
		lowerBound := rel == ">=" || rel == ">" || rel == "≥"
		switch {
		case strings.Contains(lower, "character") || strings.Contains(lower, "length"):
			if lowerBound {
				f.MinLen = &b
			} else {
				f.MaxLen = &b
			}
		case strings.Contains(lower, "item") || strings.Contains(lower, "element"):
			if lowerBound {
				f.MinItems = &b
			} else {
				f.MaxItems = &b
			}
		default:
			if lowerBound {
				f.Min = &b
			} else {
				f.Max = &b
			}
		}
	}
	// A JSON Schema keyword first, then the bound: "maximum: 11 is greater
	// than 10" (the number sent comes first, the bound last).
	if m := keywordBoundRE.FindStringSubmatch(msg); m != nil {
		v, err := strconv.ParseFloat(m[2], 64)
		if err == nil {
			b := bound{v: v, exclusive: strings.HasPrefix(m[1], "exclusive")}
			switch m[1] {
			case "minimum", "exclusiveMinimum":
				f.Min = &b
			case "maximum", "exclusiveMaximum":
				f.Max = &b
			case "minLength":
				f.MinLen = &b
			case "maxLength":
				f.MaxLen = &b
			case "minItems":
				f.MinItems = &b
			case "maxItems":
				f.MaxItems = &b
			}
			return f
		}
	}
	for _, br := range boundRES {
		for _, m := range br.re.FindAllStringSubmatch(msg, -1) {
			rel, lit := br.kind, m[len(m)-1]
			if rel == "" {
				rel = m[1]
			}
			v, err := strconv.ParseFloat(strings.TrimSuffix(lit, "."), 64)
			if err != nil {
				continue
			}
			target(bound{v: v, exclusive: rel == ">" || rel == "<"}, rel)
		}
	}
	return f
}

func jsonType(word string) string {
	switch strings.ToLower(word) {
	case "string", "str":
		return "string"
	case "number", "float", "decimal":
		return "number"
	case "integer", "int":
		return "integer"
	case "boolean", "bool":
		return "boolean"
	case "array", "list", "tuple":
		return "array"
	case "object", "dict", "dictionary", "map", "record":
		return "object"
	}
	return ""
}

// quotedOrBare reads a list of options: quoted ('a', "b") or, without
// quotes, separated by spaces, commas or bars.
func quotedOrBare(s string) []string {
	var out []string
	for _, m := range quotedRE.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1]+m[2])
	}
	if len(out) > 0 {
		return out
	}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '|' }) {
		out = append(out, w)
	}
	return out
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Repair is one step of the repairer: new arguments (and tool name) from
// the text of a failed call and what was sent, or ok false when the text
// gives it nothing to change.
func Repair(text, tool string, args any) (string, any, bool) {
	r := Read(text)
	if len(r.Tools) > 0 && (strings.Contains(text, `code="UNKNOWN_ACTION"`) || !envelopeRE.MatchString(text)) {
		best, score := "", math.MaxInt
		for _, t := range r.Tools {
			if d := distance(t, tool); d < score && t != tool {
				best, score = t, d
			}
		}
		if best != "" {
			return best, args, true
		}
	}
	before := encode(args)
	out := clone(args)
	for _, issue := range r.Issues {
		out = applyIssue(out, issue.Path, facts(issue.Msg))
	}
	return tool, out, encode(out) != before
}

// applyIssue edits v (the whole arguments) at path.
func applyIssue(root any, path []string, f Facts) any {
	for i, seg := range path {
		if seg == "*" {
			list, ok := get(root, path[:i]).([]any)
			if !ok {
				return root
			}
			for j := range list {
				p := append(append(append([]string{}, path[:i]...), strconv.Itoa(j)), path[i+1:]...)
				root = applyIssue(root, p, f)
			}
			return root
		}
	}
	cur, present := at(root, path)
	// Keys to remove, on the object at path, or the field itself when the
	// message is about that one key.
	if len(f.Unknown) > 0 {
		if obj, ok := cur.(map[string]any); ok {
			for _, k := range f.Unknown {
				delete(obj, k)
			}
			return root
		}
	}
	if f.Extra && len(f.Unknown) == 0 && len(path) > 0 {
		if obj, ok := get(root, path[:len(path)-1]).(map[string]any); ok {
			delete(obj, path[len(path)-1])
			return root
		}
	}
	if len(f.Missing) > 0 {
		if obj, ok := cur.(map[string]any); ok {
			for _, k := range f.Missing {
				if _, has := obj[k]; !has {
					obj[k] = placeholder(Facts{})
				}
			}
			return root
		}
	}
	next := cur
	switch {
	case len(f.Options) > 0:
		next = closestOption(f.Options, cur)
	case f.Format != "" && (f.Type == "" || f.Type == "string"):
		next = formatExample(f)
	case f.Pattern != "":
		if s, ok := Generate(f.Pattern); ok {
			next = s
		}
	case f.Type != "":
		next = convert(cur, present, f)
	case f.Absent && !present:
		next = placeholder(f)
	}
	next = clamp(next, f)
	if !present && next == nil && !f.Absent && f.Type == "" {
		return root
	}
	return set(root, path, next)
}

// placeholder is a value for a field the text says is missing: of its type
// when the text gives it, else a string.
func placeholder(f Facts) any {
	switch {
	case len(f.Options) > 0:
		return f.Options[0]
	case f.Format != "":
		return formatExample(f)
	case f.Pattern != "":
		if s, ok := Generate(f.Pattern); ok {
			return s
		}
	}
	switch f.Type {
	case "number", "integer":
		return json.Number(formatNumber(within(1, f)))
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return "x"
}

// convert turns v into a value of the type the text wants, keeping what it
// can ("10" becomes 10, 5 becomes "5", one item becomes a list of it).
func convert(v any, present bool, f Facts) any {
	switch f.Type {
	case "number", "integer":
		var n float64
		switch x := v.(type) {
		case string:
			p, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return placeholder(f)
			}
			n = p
		case bool:
			if x {
				n = 1
			}
		case json.Number:
			p, _ := x.Float64()
			n = p
		default:
			return placeholder(f)
		}
		if f.Type == "integer" {
			n = math.Round(n)
		}
		return json.Number(formatNumber(within(n, f)))
	case "string":
		switch x := v.(type) {
		case json.Number:
			return x.String()
		case bool:
			return strconv.FormatBool(x)
		case string:
			return x
		}
		return placeholder(f)
	case "boolean":
		switch x := v.(type) {
		case string:
			switch strings.ToLower(x) {
			case "false", "no", "0", "off":
				return false
			}
			return true
		case json.Number:
			return x.String() != "0"
		case bool:
			return x
		}
		return true
	case "array":
		switch x := v.(type) {
		case nil:
			return []any{}
		case string:
			var list []any
			if json.Unmarshal([]byte(x), &list) == nil {
				return list
			}
			return []any{x}
		case []any:
			return x
		}
		return []any{v}
	case "object":
		if s, ok := v.(string); ok {
			var obj map[string]any
			if json.Unmarshal([]byte(s), &obj) == nil {
				return obj
			}
		}
		if obj, ok := v.(map[string]any); ok {
			return obj
		}
		return map[string]any{}
	}
	_ = present
	return v
}

// within moves n inside the bounds the text states.
func within(n float64, f Facts) float64 {
	if f.Min != nil && (n < f.Min.v || f.Min.exclusive && n <= f.Min.v) {
		n = f.Min.v
		if f.Min.exclusive {
			n++
		}
	}
	if f.Max != nil && (n > f.Max.v || f.Max.exclusive && n >= f.Max.v) {
		n = f.Max.v
		if f.Max.exclusive {
			n--
		}
	}
	return n
}

// clamp brings a value inside the bounds stated for it.
func clamp(v any, f Facts) any {
	switch x := v.(type) {
	case json.Number:
		n, err := x.Float64()
		if err == nil && (f.Min != nil || f.Max != nil) {
			return json.Number(formatNumber(within(n, f)))
		}
	case string:
		r := []rune(x)
		if f.MaxLen != nil && float64(len(r)) > f.MaxLen.v {
			r = r[:int(f.MaxLen.v)]
		}
		for f.MinLen != nil && float64(len(r)) < f.MinLen.v {
			r = append(r, 'x')
		}
		return string(r)
	case []any:
		if f.MaxItems != nil && float64(len(x)) > f.MaxItems.v {
			x = x[:int(f.MaxItems.v)]
		}
		for f.MinItems != nil && float64(len(x)) < f.MinItems.v {
			if len(x) > 0 {
				x = append(x, clone(x[len(x)-1]))
			} else {
				x = append(x, "x")
			}
		}
		return x
	}
	return v
}

// closestOption is the option the sent value was closest to: equal without
// case, else the first.
func closestOption(options []string, v any) any {
	s, _ := v.(string)
	best, score := options[0], math.MaxInt
	for _, o := range options {
		if strings.EqualFold(o, s) {
			return o
		}
		if d := distance(strings.ToLower(o), strings.ToLower(s)); d < score {
			best, score = o, d
		}
	}
	return best
}

// formatExample is a value of a format: the text's own example when it
// gives one, else a well-known one.
func formatExample(f Facts) any {
	if f.Example != "" {
		return f.Example
	}
	switch f.Format {
	case "uuid":
		return "123e4567-e89b-42d3-a456-426614174000"
	case "email":
		return "user@example.com"
	case "date-time":
		return "2024-01-15T10:30:00Z"
	}
	return "https://example.com/"
}

// get is the value at path, nil when there is none.
func get(v any, path []string) any {
	x, _ := at(v, path)
	return x
}

// set puts value at path in root, making objects on the way; it returns
// the new root.
func set(root any, path []string, value any) any {
	if len(path) == 0 {
		if value == nil {
			return root
		}
		return value
	}
	switch x := root.(type) {
	case map[string]any:
		x[path[0]] = set(x[path[0]], path[1:], value)
		return x
	case []any:
		i, err := strconv.Atoi(path[0])
		if err == nil && i >= 0 && i < len(x) {
			x[i] = set(x[i], path[1:], value)
		}
		return x
	}
	obj := map[string]any{}
	obj[path[0]] = set(nil, path[1:], value)
	return obj
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
