package validation

import (
	"math"
	"regexp"
	"unicode/utf8"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

// flatPlan is a compiled schema's fast path for the common case of tool
// arguments: an object of named scalar parameters. It answers only "these
// arguments are valid"; arguments it cannot accept (invalid ones among
// them) take the full path, which finds and words the issues. So it may
// only accept what the full path accepts: it is built only from schemas
// whose every keyword it knows and reads as JSON Schema draft 6 and later
// define it, and anything else gives no plan.
type flatPlan struct {
	required   []string
	properties map[string]*scalarPlan
	closed     bool // additionalProperties: false
}

// scalarPlan is one parameter: a single scalar type and its bounds.
type scalarPlan struct {
	kind                               string // "string", "number", "integer" or "boolean"
	enum                               []string
	minLength                          float64
	maxLength                          float64
	minimum                            float64
	maximum                            float64
	exclusiveMinimum, exclusiveMaximum float64
	// pattern is the parameter's pattern, compiled as the validator
	// compiles it (Go's regexp, the library's default engine).
	pattern *regexp.Regexp
}

// maxFastMembers bounds the arguments the fast path reads.
const maxFastMembers = 64

// annotations are keywords that never change whether a value is valid.
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// draftsWithNumericExclusives are the $schema values whose drafts read
// exclusiveMinimum and exclusiveMaximum as numbers (draft 6 and later).
var draftsWithNumericExclusives = map[string]bool{
	"http://json-schema.org/draft-06/schema#":      true,
	"http://json-schema.org/draft-07/schema#":      true,
	"https://json-schema.org/draft/2019-09/schema": true,
	"https://json-schema.org/draft/2020-12/schema": true,
}

// planFor returns the fast path of schema, or nil when it has none.
func planFor(schema *jsonv.Value) *flatPlan {
	if schema.Kind != jsonv.KindObject {
		return nil
	}
	p := &flatPlan{properties: map[string]*scalarPlan{}}
	sawObjectType := false
	for _, m := range schema.Members {
		v := m.Value
		switch {
		case annotations[m.Key]:
		case m.Key == "$schema":
			if v.Kind != jsonv.KindString || !draftsWithNumericExclusives[v.Str] {
				return nil
			}
		case m.Key == "type":
			if v.Kind != jsonv.KindString || v.Str != "object" {
				return nil
			}
			sawObjectType = true
		case m.Key == "required":
			if v.Kind != jsonv.KindArray {
				return nil
			}
			for _, r := range v.Arr {
				if r.Kind != jsonv.KindString {
					return nil
				}
				p.required = append(p.required, r.Str)
			}
		case m.Key == "additionalProperties":
			if v.Kind != jsonv.KindBool {
				return nil
			}
			p.closed = !v.Bool
		case m.Key == "properties":
			if v.Kind != jsonv.KindObject {
				return nil
			}
			for _, prop := range v.Members {
				sp := scalarFor(prop.Value)
				if sp == nil {
					return nil
				}
				p.properties[prop.Key] = sp
			}
		default:
			return nil
		}
	}
	if !sawObjectType {
		return nil
	}
	return p
}

func scalarFor(schema *jsonv.Value) *scalarPlan {
	if schema.Kind != jsonv.KindObject {
		return nil
	}
	sp := &scalarPlan{minLength: 0, maxLength: math.Inf(1), minimum: math.Inf(-1), maximum: math.Inf(1),
		exclusiveMinimum: math.Inf(-1), exclusiveMaximum: math.Inf(1)}
	for _, m := range schema.Members {
		v := m.Value
		ok := true
		switch {
		case annotations[m.Key]:
		case m.Key == "type":
			ok = v.Kind == jsonv.KindString && (v.Str == "string" || v.Str == "number" || v.Str == "integer" || v.Str == "boolean")
			sp.kind = v.Str
		case m.Key == "enum":
			ok = v.Kind == jsonv.KindArray && len(v.Arr) > 0
			for _, e := range v.Arr {
				ok = ok && e.Kind == jsonv.KindString
				sp.enum = append(sp.enum, e.Str)
			}
		case m.Key == "pattern":
			if ok = v.Kind == jsonv.KindString; ok {
				re, err := regexp.Compile(v.Str)
				ok = err == nil
				sp.pattern = re
			}
		default:
			dst := sp.bound(m.Key)
			ok = dst != nil && v.Kind == jsonv.KindNumber && !math.IsInf(v.Num, 0)
			if ok {
				*dst = v.Num
			}
		}
		if !ok {
			return nil
		}
	}
	if sp.kind == "" || ((sp.enum != nil || sp.pattern != nil) && sp.kind != "string") {
		return nil
	}
	return sp
}

// boundKeywords are the numeric keywords of a scalar plan, in the order
// bound lists their fields.
var boundKeywords = [...]string{"minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}

// bound is the field of sp that numeric keyword key sets, or nil where key
// is not one.
func (sp *scalarPlan) bound(key string) *float64 {
	fields := [...]*float64{&sp.minLength, &sp.maxLength, &sp.minimum, &sp.maximum, &sp.exclusiveMinimum, &sp.exclusiveMaximum}
	for i, k := range boundKeywords {
		if k == key {
			return fields[i]
		}
	}
	return nil
}

// accepts reports whether args are valid by the plan; false means only
// that the full path must decide.
func (p *flatPlan) accepts(args *jsonv.Value) bool {
	// Many members take the full path, whose lookups are indexed.
	if args.Kind != jsonv.KindObject || len(args.Members) > maxFastMembers {
		return false
	}
	for _, r := range p.required {
		if args.Get(r) == nil {
			return false
		}
	}
	for _, m := range args.Members { // a repeated key is one member already
		sp, ok := p.properties[m.Key]
		if !ok {
			if p.closed {
				return false
			}
			continue
		}
		if !sp.accepts(m.Value) {
			return false
		}
	}
	return true
}

func (sp *scalarPlan) accepts(v *jsonv.Value) bool {
	switch sp.kind {
	case "string":
		if v.Kind != jsonv.KindString {
			return false
		}
		if sp.enum != nil {
			found := false
			for _, e := range sp.enum {
				found = found || e == v.Str
			}
			if !found {
				return false
			}
		}
		n := float64(utf8.RuneCountInString(v.Str))
		return n >= sp.minLength && n <= sp.maxLength && (sp.pattern == nil || sp.pattern.MatchString(v.Str))
	case "boolean":
		return v.Kind == jsonv.KindBool
	}
	if v.Kind != jsonv.KindNumber || math.IsInf(v.Num, 0) || v.Num != v.Num {
		return false
	}
	if sp.kind == "integer" && v.Num != math.Trunc(v.Num) {
		return false
	}
	return v.Num >= sp.minimum && v.Num <= sp.maximum && v.Num > sp.exclusiveMinimum && v.Num < sp.exclusiveMaximum
}
