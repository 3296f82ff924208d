package main

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Kinds are the mutations, in the order the report lists them: the mistakes
// a model makes in a tool call.
var Kinds = []string{
	"missing_required", "wrong_type", "string_for_number", "out_of_range", "bad_enum", "bad_pattern",
	"bad_format", "unknown_key", "nested_path", "array_item", "null", "empty_object", "wrong_tool_name",
}

// KindText says what each mutation does, for the report.
var KindText = map[string]string{
	"missing_required":  "a required property left out",
	"wrong_type":        "a string, boolean, array or object property given a value of another type (a number for a string, \"yes\" for a boolean, one item for an array)",
	"string_for_number": "a number or integer property given as a string (\"10\")",
	"out_of_range":      "a value past a bound: a number past minimum/maximum, else a string or array past its length bounds",
	"bad_enum":          "an enum property given a value that differs from an option by case",
	"bad_pattern":       "a string property given a value its pattern refuses",
	"bad_format":        "a string property given a value its format (uri, uuid) refuses",
	"unknown_key":       "a property the schema does not have added at the top level (`verbose: true`)",
	"nested_path":       "a property of an object inside an array given a value of another type",
	"array_item":        "an item of an array of strings or numbers given a value of another type",
	"null":              "a required property sent as null",
	"empty_object":      "`{}` for a tool with required properties",
	"wrong_tool_name":   "the tool called by a near name (`_` and `-` swapped, or a suffix)",
}

// Case is one mutated call.
type Case struct {
	ID   string // tool/kind
	Tool *Tool
	Kind string
	Call string // the tool name called
	Args any    // the arguments sent
	Did  string // what the mutation did, in words
	Want Want
}

// Want is what a text must say to describe the mistake.
type Want struct {
	Paths      [][]any // each must be named, with its full path
	Constraint []Alt   // each must be stated (one of its spellings)
	Issues     int     // the number of mistakes, for tokens per issue
}

// Alt is one fact with the spellings that state it.
type Alt struct {
	Spellings []string
	Fold      bool // compared without case
	Number    bool // a number: not a part of a longer number
	Word      bool // a name: not a part of a longer name
}

func (a Alt) String() string { return a.Spellings[0] }

// Mutations builds every case of one tool: each kind that applies to it.
func Mutations(t *Tool, all map[string]bool) []Case {
	var out []Case
	for _, kind := range Kinds {
		args, _ := decode(t.Valid)
		c, ok := mutators[kind](t, args.(map[string]any), all)
		if !ok {
			continue
		}
		c.ID = t.Name + "/" + kind
		c.Tool = t
		c.Kind = kind
		if c.Call == "" {
			c.Call = t.Name
		}
		if c.Want.Issues == 0 {
			c.Want.Issues = 1
		}
		out = append(out, c)
	}
	return out
}

type mutator func(t *Tool, args map[string]any, tools map[string]bool) (Case, bool)

var mutators = map[string]mutator{
	"missing_required":  missingRequired,
	"wrong_type":        wrongType,
	"string_for_number": stringForNumber,
	"out_of_range":      outOfRange,
	"bad_enum":          badEnum,
	"bad_pattern":       badPattern,
	"bad_format":        badFormat,
	"unknown_key":       unknownKey,
	"nested_path":       nestedPath,
	"array_item":        arrayItem,
	"null":              nullValue,
	"empty_object":      emptyObject,
	"wrong_tool_name":   wrongToolName,
}

// candidates lists the top-level properties, required ones first, each
// group sorted.
func candidates(s map[string]any) []string {
	var req, opt []string
	for _, name := range propNames(s) {
		if isRequired(s, name) {
			req = append(req, name)
		} else {
			opt = append(opt, name)
		}
	}
	return append(req, opt...)
}

func missingRequired(t *Tool, args map[string]any, _ map[string]bool) (Case, bool) {
	for _, name := range required(t.schema) {
		p := prop(t.schema, name)
		if _, sent := args[name]; !sent || p == nil || single(p) == "" {
			continue
		}
		delete(args, name)
		return Case{Args: args, Did: "left out " + name,
			Want: Want{Paths: [][]any{{name}}, Constraint: []Alt{typeAlt(single(p))}}}, true
	}
	return Case{}, false
}

func wrongType(t *Tool, args map[string]any, _ map[string]bool) (Case, bool) {
	for _, name := range candidates(t.schema) {
		p := prop(t.schema, name)
		var v any
		switch single(p) {
		case "string":
			if p["enum"] != nil || hasKeyword(p, "const") {
				continue
			}
			v = json.Number("42")
		case "boolean":
			v = "yes"
		case "array":
			v = "x"
			if list, ok := args[name].([]any); ok && len(list) > 0 {
				if _, isString := list[0].(string); isString {
					v = list[0]
				}
			}
			if _, ok := v.(string); !ok {
				continue
			}
		case "object":
			v = "x"
		default:
			continue
		}
		if nullable(p) && v == nil {
			continue
		}
		args[name] = v
		return Case{Args: args, Did: name + " = " + encode(v),
			Want: Want{Paths: [][]any{{name}}, Constraint: []Alt{typeAlt(single(p))}}}, true
	}
	return Case{}, false
}

func stringForNumber(t *Tool, args map[string]any, _ map[string]bool) (Case, bool) {
	for _, name := range candidates(t.schema) {
		p := prop(t.schema, name)
		kind := single(p)
		if kind != "number" && kind != "integer" {
			continue
		}
		n, ok := number(args[name])
		if !ok {
			n = inRange(p)
		}
		args[name] = formatNumber(n)
		return Case{Args: args, Did: name + " = " + encode(args[name]),
			Want: Want{Paths: [][]any{{name}}, Constraint: []Alt{typeAlt(kind)}}}, true
	}
	return Case{}, false
}

// inRange is a number a numeric schema accepts.
func inRange(p map[string]any) float64 {
	if m, ok := number(p["minimum"]); ok {
		return m
	}
	if m, ok := number(p["exclusiveMinimum"]); ok {
		return m + 1
	}
	if m, ok := number(p["maximum"]); ok && m < 5 {
		return m
	}
	return 5
}

func outOfRange(t *Tool, args map[string]any, _ map[string]bool) (Case, bool) {
	const huge = 1e15 // bounds such as 2^53-1 stand for "any integer"
	for _, name := range candidates(t.schema) {
		p := prop(t.schema, name)
		kind := single(p)
		if kind != "number" && kind != "integer" {
			continue
		}
		var bound, v float64
		switch {
		case has(p, "maximum", huge):
			bound, _ = number(p["maximum"])
			v = bound + 1
		case has(p, "exclusiveMaximum", huge):
			bound, _ = number(p["exclusiveMaximum"])
			v = bound
		case has(p, "minimum", huge):
			bound, _ = number(p["minimum"])
			v = bound - 1
		case has(p, "exclusiveMinimum", huge):
			bound, _ = number(p["exclusiveMinimum"])
			v = bound
		default:
			continue
		}
		args[name] = json.Number(formatNumber(v))
		return Case{Args: args, Did: name + " = " + formatNumber(v),
			Want: Want{Paths: [][]any{{name}}, Constraint: []Alt{numberAlt(bound)}}}, true
	}
	for _, name := range candidates(t.schema) {
		p := prop(t.schema, name)
		switch single(p) {
		case "string":
			if p["pattern"] != nil || p["format"] != nil || p["enum"] != nil {
				continue
			}
			if max, ok := number(p["maxLength"]); ok && max <= 1000 {
				args[name] = strings.Repeat("a", int(max)+1)
				return Case{Args: args, Did: name + " = a string of " + formatNumber(max+1) + " characters",
					Want: Want{Paths: [][]any{{name}}, Constraint: []Alt{numberAlt(max)}}}, true
			}
			if min, ok := number(p["minLength"]); ok && min >= 1 {
				args[name] = ""
				return Case{Args: args, Did: name + ` = ""`,
					Want: Want{Paths: [][]any{{name}}, Constraint: []Alt{numberAlt(min)}}}, true
			}
		case "array":
			if min, ok := number(p["minItems"]); ok && min >= 1 {
				args[name] = []any{}
				return Case{Args: args, Did: name + " = []",
					Want: Want{Paths: [][]any{{name}}, Constraint: []Alt{numberAlt(min)}}}, true
			}
		}
	}
	return Case{}, false
}

func has(p map[string]any, key string, below float64) bool {
	v, ok := number(p[key])
	return ok && v < below && v > -below
}

func badEnum(t *Tool, args map[string]any, _ map[string]bool) (Case, bool) {
	for _, name := range candidates(t.schema) {
		v, _ := keyword(prop(t.schema, name), "enum")
		options, _ := v.([]any)
		if len(options) < 2 {
			continue
		}
		first, ok := options[0].(string)
		if !ok {
			continue
		}
		wrong := flipCase(first)
		for _, o := range options {
			if o == wrong {
				wrong = first + "s"
			}
		}
		args[name] = wrong
		var want []Alt
		for _, o := range options {
			if s, ok := o.(string); ok {
				want = append(want, Alt{Spellings: []string{s}, Word: true})
			}
		}
		return Case{Args: args, Did: name + " = " + encode(wrong),
			Want: Want{Paths: [][]any{{name}}, Constraint: want}}, true
	}
	return Case{}, false
}

// flipCase is a model's near miss of an enum option: "size" as "Size",
// "APPROVE" as "approve".
func flipCase(s string) string {
	if s == "" {
		return "x"
	}
	if strings.ToUpper(s) == s {
		return strings.ToLower(s)
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func badPattern(t *Tool, args map[string]any, _ map[string]bool) (Case, bool) {
	for _, name := range candidates(t.schema) {
		v, _ := keyword(prop(t.schema, name), "pattern")
		pattern, ok := v.(string)
		if !ok {
			continue
		}
		wrong := "not valid"
		if re, err := regexp.Compile(pattern); err == nil && re.MatchString(wrong) {
			wrong = "???"
		}
		args[name] = wrong
		return Case{Args: args, Did: name + " = " + encode(wrong),
			Want: Want{Paths: [][]any{{name}}, Constraint: []Alt{{Spellings: []string{pattern}}}}}, true
	}
	return Case{}, false
}

// formats are the formats mutated: a value each refuses, and how a text
// names the format.
var formats = map[string]struct {
	wrong string
	names []string
}{
	"uri":       {"example dot com", []string{"uri", "url"}},
	"uuid":      {"12345", []string{"uuid"}},
	"email":     {"ada at example", []string{"email"}},
	"date-time": {"yesterday", []string{"date-time", "datetime", "ISO 8601"}},
}

func badFormat(t *Tool, args map[string]any, _ map[string]bool) (Case, bool) {
	for _, name := range candidates(t.schema) {
		v, _ := keyword(prop(t.schema, name), "format")
		f, ok := formats[str(v)]
		if !ok {
			continue
		}
		args[name] = f.wrong
		return Case{Args: args, Did: name + " = " + encode(f.wrong),
			Want: Want{Paths: [][]any{{name}}, Constraint: []Alt{{Spellings: f.names, Fold: true}}}}, true
	}
	return Case{}, false
}

func unknownKey(t *Tool, args map[string]any, _ map[string]bool) (Case, bool) {
	key := "verbose"
	if prop(t.schema, key) != nil {
		key = "force"
	}
	args[key] = true
	return Case{Args: args, Did: "added " + key + ": true",
		Want: Want{Paths: [][]any{{key}}, Constraint: []Alt{{Spellings: []string{key}, Word: true}}}}, true
}

func nestedPath(t *Tool, args map[string]any, _ map[string]bool) (Case, bool) {
	for _, name := range candidates(t.schema) {
		p := prop(t.schema, name)
		items, _ := p["items"].(map[string]any)
		list, _ := args[name].([]any)
		if single(p) != "array" || items == nil || props(items) == nil || len(list) == 0 {
			continue
		}
		item, ok := list[0].(map[string]any)
		if !ok {
			continue
		}
		for _, leaf := range candidates(items) {
			lp := prop(items, leaf)
			wrong, kind := wrongScalar(lp)
			if _, sent := item[leaf]; !sent || wrong == nil {
				continue
			}
			item[leaf] = wrong
			return Case{Args: args, Did: name + "[0]." + leaf + " = " + encode(wrong),
				Want: Want{Paths: [][]any{{name, 0, leaf}}, Constraint: []Alt{typeAlt(kind)}}}, true
		}
	}
	return Case{}, false
}

// wrongScalar is a value of another type for a string, number or boolean
// schema, and that schema's type; nil for other schemas.
func wrongScalar(p map[string]any) (any, string) {
	kind := single(p)
	if p == nil || p["enum"] != nil {
		return nil, ""
	}
	switch kind {
	case "string":
		return json.Number("42"), kind
	case "number", "integer":
		return "x", kind
	case "boolean":
		return "yes", kind
	}
	return nil, ""
}

func arrayItem(t *Tool, args map[string]any, _ map[string]bool) (Case, bool) {
	for _, name := range candidates(t.schema) {
		p := prop(t.schema, name)
		items, _ := p["items"].(map[string]any)
		list, _ := args[name].([]any)
		if single(p) != "array" || items == nil || len(list) == 0 {
			continue
		}
		wrong, kind := wrongScalar(items)
		if wrong == nil {
			continue
		}
		list[0] = wrong
		return Case{Args: args, Did: name + "[0] = " + encode(wrong),
			Want: Want{Paths: [][]any{{name, 0}}, Constraint: []Alt{typeAlt(kind)}}}, true
	}
	return Case{}, false
}

func nullValue(t *Tool, args map[string]any, _ map[string]bool) (Case, bool) {
	for _, name := range required(t.schema) {
		p := prop(t.schema, name)
		if _, sent := args[name]; !sent || p == nil || single(p) == "" || nullable(p) {
			continue
		}
		args[name] = nil
		return Case{Args: args, Did: name + " = null",
			Want: Want{Paths: [][]any{{name}}, Constraint: []Alt{typeAlt(single(p))}}}, true
	}
	return Case{}, false
}

func emptyObject(t *Tool, _ map[string]any, _ map[string]bool) (Case, bool) {
	names := required(t.schema)
	if len(names) == 0 {
		return Case{}, false
	}
	want := Want{Issues: len(names)}
	for _, name := range names {
		want.Paths = append(want.Paths, []any{name})
		want.Constraint = append(want.Constraint, Alt{Spellings: []string{name}, Word: true})
	}
	return Case{Args: map[string]any{}, Did: "{}", Want: want}, true
}

func wrongToolName(t *Tool, args map[string]any, tools map[string]bool) (Case, bool) {
	name := nearName(t.Name)
	if tools[name] {
		return Case{}, false
	}
	return Case{Args: args, Call: name, Did: "called " + name,
		Want: Want{Constraint: []Alt{{Spellings: []string{t.Name}, Word: true}}}}, true
}

// nearName is a name a model may write for a tool: separators swapped, or a
// suffix when there is none.
func nearName(name string) string {
	switch {
	case strings.Contains(name, "_"):
		return strings.ReplaceAll(name, "_", "-")
	case strings.Contains(name, "-"):
		return strings.ReplaceAll(name, "-", "_")
	}
	return name + "_tool"
}

func hasKeyword(p map[string]any, key string) bool {
	v, _ := keyword(p, key)
	return v != nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// typeAlt is how a text states a JSON type: its name, or the name a
// language gives it.
func typeAlt(kind string) Alt {
	spell := map[string][]string{
		"string":  {"string", "str"},
		"number":  {"number", "float"},
		"integer": {"integer", "int"},
		"boolean": {"boolean", "bool"},
		"array":   {"array", "list"},
		"object":  {"object", "dict"},
	}[kind]
	return Alt{Spellings: spell, Fold: true}
}

func numberAlt(n float64) Alt {
	return Alt{Spellings: []string{formatNumber(n)}, Number: true}
}

func formatNumber(n float64) string {
	return strconv.FormatFloat(n, 'f', -1, 64)
}
