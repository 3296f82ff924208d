package contract_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/plugin/internal/dispatch"
)

// diffClass is one kind of change to a tool's input schema, and the delta
// contract_diff must report for it.
type diffClass struct {
	name          string
	before, after string // the tool's inputSchema
	field         string // the delta's field
	severity      string
	compatible    bool // the diff's backwardsCompatible
}

// diffClasses are the 39 classes of change a probe of contract_diff sent:
// 18 it reported, then 21 it let through (no delta, a SAFE delta for a
// tightening, or two changes under one field name). Every JSON Schema
// keyword of draft-07 and 2020-12 that narrows or widens what a tool
// accepts is in TestContractDiff_Classes or in the vectors.
var diffClasses = []diffClass{
	// Reported before this round.
	{"property removed", `{"properties":{"p":{},"q":{}}}`, `{"properties":{"q":{}}}`, "actions.t.input.p", "BREAKING", false},
	{"required property added", `{"properties":{}}`, `{"properties":{"q":{}},"required":["q"]}`, "actions.t.input.q", "BREAKING", false},
	{"property newly required", `{"properties":{"p":{}}}`, `{"properties":{"p":{}},"required":["p"]}`, "actions.t.input.p", "BREAKING", false},
	{"type narrowed", `{"properties":{"p":{"type":"number"}}}`, `{"properties":{"p":{"type":"integer"}}}`, "actions.t.input.p.type", "BREAKING", false},
	{"type widened", `{"properties":{"p":{"type":"integer"}}}`, `{"properties":{"p":{"type":"number"}}}`, "actions.t.input.p.type", "SAFE", true},
	{"enum value removed", `{"properties":{"p":{"enum":["a","b"]}}}`, `{"properties":{"p":{"enum":["a"]}}}`, "actions.t.input.p.enum", "BREAKING", false},
	{"enum value added", `{"properties":{"p":{"enum":["a"]}}}`, `{"properties":{"p":{"enum":["a","b"]}}}`, "actions.t.input.p.enum", "SAFE", true},
	{"const introduced", `{"properties":{"p":{}}}`, `{"properties":{"p":{"const":1}}}`, "actions.t.input.p.const", "BREAKING", false},
	{"additionalProperties closed", `{"properties":{"p":{}}}`, `{"properties":{"p":{}},"additionalProperties":false}`, "actions.t.input.additionalProperties", "BREAKING", false},
	{"minLength raised", `{"properties":{"p":{"minLength":1}}}`, `{"properties":{"p":{"minLength":2}}}`, "actions.t.input.p.minLength", "RISKY", true},
	{"maximum lowered", `{"properties":{"p":{"maximum":9}}}`, `{"properties":{"p":{"maximum":5}}}`, "actions.t.input.p.maximum", "RISKY", true},
	{"exclusiveMinimum raised", `{"properties":{"p":{"exclusiveMinimum":0}}}`, `{"properties":{"p":{"exclusiveMinimum":1}}}`, "actions.t.input.p.exclusiveMinimum", "RISKY", true},
	{"pattern added", `{"properties":{"p":{}}}`, `{"properties":{"p":{"pattern":"^a"}}}`, "actions.t.input.p.pattern", "RISKY", true},
	{"format added", `{"properties":{"p":{}}}`, `{"properties":{"p":{"format":"email"}}}`, "actions.t.input.p.format", "RISKY", true},
	{"items type changed", `{"properties":{"p":{"items":{"type":"string"}}}}`, `{"properties":{"p":{"items":{"type":"integer"}}}}`, "actions.t.input.p.items.type", "BREAKING", false},
	{"anyOf gained an alternative", `{"properties":{"p":{"anyOf":[{"type":"string"}]}}}`, `{"properties":{"p":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, "actions.t.input.p.anyOf", "RISKY", true},
	{"property schema true to false", `{"properties":{"p":true}}`, `{"properties":{"p":false}}`, "actions.t.input.p", "BREAKING", false},
	{"$ref into $defs with a changed target", `{"$defs":{"X":{"type":"number"}},"properties":{"p":{"$ref":"#/$defs/X"}}}`, `{"$defs":{"X":{"type":"integer"}},"properties":{"p":{"$ref":"#/$defs/X"}}}`, "actions.t.input.p.type", "BREAKING", false},

	// Let through before this round.
	{"patternProperties added", `{}`, `{"patternProperties":{"^x_":{"type":"integer"}}}`, "actions.t.input.patternProperties.^x_", "BREAKING", false},
	{"additionalProperties as a schema", `{}`, `{"additionalProperties":{"type":"string"}}`, "actions.t.input.additionalProperties", "BREAKING", false},
	{"prefixItems item narrowed", `{"properties":{"p":{"prefixItems":[{"type":"string"}]}}}`, `{"properties":{"p":{"prefixItems":[{"type":"integer"}]}}}`, "actions.t.input.p.prefixItems.0.type", "BREAKING", false},
	{"draft-07 tuple items narrowed", `{"properties":{"p":{"items":[{"type":"string"}]}}}`, `{"properties":{"p":{"items":[{"type":"integer"}]}}}`, "actions.t.input.p.items.0.type", "BREAKING", false},
	{"contains added", `{"properties":{"p":{"type":"array"}}}`, `{"properties":{"p":{"type":"array","contains":{"const":1}}}}`, "actions.t.input.p.contains", "BREAKING", false},
	{"maxContains lowered", `{"properties":{"p":{"contains":{"const":1},"maxContains":3}}}`, `{"properties":{"p":{"contains":{"const":1},"maxContains":2}}}`, "actions.t.input.p.maxContains", "RISKY", true},
	{"not added", `{"properties":{"p":{}}}`, `{"properties":{"p":{"not":{"const":0}}}}`, "actions.t.input.p.not", "BREAKING", false},
	{"if/then added", `{"properties":{"a":{}}}`, `{"properties":{"a":{}},"if":{"required":["a"]},"then":{"required":["b"]}}`, "actions.t.input.if", "BREAKING", false},
	{"propertyNames added", `{}`, `{"propertyNames":{"maxLength":3}}`, "actions.t.input.propertyNames", "BREAKING", false},
	{"dependentSchemas added", `{"properties":{"a":{}}}`, `{"properties":{"a":{}},"dependentSchemas":{"a":{"required":["b"]}}}`, "actions.t.input.dependentSchemas.a", "BREAKING", false},
	{"dependentRequired added", `{"properties":{"a":{}}}`, `{"properties":{"a":{}},"dependentRequired":{"a":["b"]}}`, "actions.t.input.dependentRequired.a", "BREAKING", false},
	{"uniqueItems added", `{"properties":{"p":{"type":"array"}}}`, `{"properties":{"p":{"type":"array","uniqueItems":true}}}`, "actions.t.input.p.uniqueItems", "RISKY", true},
	{"unevaluatedProperties false added", `{"properties":{"a":{}}}`, `{"properties":{"a":{}},"unevaluatedProperties":false}`, "actions.t.input.unevaluatedProperties", "BREAKING", false},
	{"items false added after prefixItems", `{"properties":{"p":{"prefixItems":[{}]}}}`, `{"properties":{"p":{"prefixItems":[{}],"items":false}}}`, "actions.t.input.p.items", "BREAKING", false},
	{"additionalItems false added to a draft-07 tuple", `{"properties":{"p":{"items":[{}]}}}`, `{"properties":{"p":{"items":[{}],"additionalItems":false}}}`, "actions.t.input.p.additionalItems", "BREAKING", false},
	{"$ref through $anchor with a changed target", `{"$defs":{"X":{"$anchor":"x","type":"number"}},"properties":{"p":{"$ref":"#x"}}}`, `{"$defs":{"X":{"$anchor":"x","type":"integer"}},"properties":{"p":{"$ref":"#x"}}}`, "actions.t.input.p.type", "BREAKING", false},
	{"percent-encoded $ref with a changed target", `{"$defs":{"a b":{"type":"number"}},"properties":{"p":{"$ref":"#/$defs/a%20b"}}}`, `{"$defs":{"a b":{"type":"integer"}},"properties":{"p":{"$ref":"#/$defs/a%20b"}}}`, "actions.t.input.p.type", "BREAKING", false},
	{"type added beside a $ref", `{"$defs":{"X":{"minLength":1}},"properties":{"p":{"$ref":"#/$defs/X"}}}`, `{"$defs":{"X":{"minLength":1}},"properties":{"p":{"$ref":"#/$defs/X","type":"string"}}}`, "actions.t.input.p.type", "BREAKING", false},
	{"draft-04 exclusiveMinimum true added", `{"properties":{"p":{"minimum":0}}}`, `{"properties":{"p":{"minimum":0,"exclusiveMinimum":true}}}`, "actions.t.input.p.exclusiveMinimum", "RISKY", true},
	{"property a.b is not nested a and b", `{"properties":{"a.b":{"type":"number"},"a":{"properties":{"b":{"type":"number"}}}}}`, `{"properties":{"a.b":{"type":"integer"},"a":{"properties":{"b":{"type":"number"}}}}}`, `actions.t.input["a.b"].type`, "BREAKING", false},
	{"draft-07 dependencies added", `{"properties":{"a":{}}}`, `{"properties":{"a":{}},"dependencies":{"a":["b"]}}`, "actions.t.input.dependencies.a", "BREAKING", false},
}

// TestContractDiff_Classes pins, for each class of change, the delta that
// reports it (its field and severity) and backwardsCompatible, and that
// the field is the one of the only delta with that field.
func TestContractDiff_Classes(t *testing.T) {
	if len(diffClasses) != 39 {
		t.Fatalf("%d classes, want 39", len(diffClasses))
	}
	type delta struct{ Field, Severity, Description string }
	for _, tc := range diffClasses {
		t.Run(tc.name, func(t *testing.T) {
			tool := func(schema string) string { return `[{"name":"t","inputSchema":` + schema + `}]` }
			out, err := dispatch.Call("contract_diff", []byte(`{"before":`+tool(tc.before)+`,"after":`+tool(tc.after)+`}`))
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Deltas              []delta
				BackwardsCompatible bool
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			var found []delta
			for _, d := range got.Deltas {
				if d.Field == tc.field {
					found = append(found, d)
				}
			}
			if len(found) != 1 || found[0].Severity != tc.severity || got.BackwardsCompatible != tc.compatible {
				t.Errorf("want one %s delta at %s and backwardsCompatible %v; got %s", tc.severity, tc.field, tc.compatible, out)
			}
			if strings.Contains(tc.name, "a.b") {
				for _, d := range got.Deltas {
					if d.Field == "actions.t.input.a.b.type" {
						t.Errorf("the change of property \"a.b\" is named as nested a, b: %s", out)
					}
				}
			}
		})
	}
}
