package validation

// The bounds on the JSON Schema library's own work (checkcost.go,
// compilecost.go): each shape whose check or compile grows faster than the
// request is refused with a TooMuchWorkError naming what was too costly,
// the same message every time; the ordinary schemas are not.

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

func list(n int, item func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item(i)
	}
	return strings.Join(parts, ",")
}

func fields(n int, prefix string, value func(i int) string) string {
	return list(n, func(i int) string { return strconv.Quote(prefix+strconv.Itoa(i)) + ":" + value(i) })
}

func same(s string) func(int) string { return func(int) string { return s } }

// validateRequest validates args against schema within the budget of a
// request holding both, as callValidate does.
func validateRequest(schema, args string) error {
	s, err := jsonv.ParseJSON([]byte(schema), abi.MaxDepth)
	if err != nil {
		panic(err)
	}
	a, err := jsonv.ParseJSON([]byte(args), abi.MaxDepth)
	if err != nil {
		panic(err)
	}
	_, err = Validate(Schema{Value: s}, a, nil, WorkBudget(len(schema)+len(args)+40))
	return err
}

func TestLibraryCost_Refused(t *testing.T) {
	n := 12000
	doubledRef := `{"$defs":{` + fields(30, "d", func(i int) string {
		return `{"allOf":[{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"},{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"}]}`
	}) + `,"d30":{"type":"string"}},"$ref":"#/$defs/d0"}`
	for _, tc := range []struct {
		name, schema, args, says string
	}{
		{"long enum against many items", `{"items":{"enum":[` + list(n, func(i int) string { return strconv.Quote("v" + strconv.Itoa(i)) }) + `]}}`,
			`[` + list(n, same(`"no"`)) + `]`, `enum of the subschema at "#/items"`},
		{"enum of objects against many objects", `{"items":{"enum":[` + list(2000, func(i int) string { return `{"a":` + strconv.Itoa(i) + `,"b":[1,2,3]}` }) + `]}}`,
			`[` + list(2000, func(i int) string { return `{"a":` + strconv.Itoa(i+2000) + `,"b":[1,2,3]}` }) + `]`, `enum of the subschema at "#/items"`},
		{"required list against many empty objects", `{"items":{"required":[` + list(n, func(i int) string { return strconv.Quote("r" + strconv.Itoa(i)) }) + `]}}`,
			`[` + list(n, same(`{}`)) + `]`, `required of the subschema at "#/items"`},
		{"dependentSchemas against many objects", `{"items":{"dependentSchemas":{` + fields(n, "d", same(`{"required":["z"]}`)) + `}}}`,
			`[` + list(n, func(i int) string { return `{"d` + strconv.Itoa(i) + `":1}` }) + `]`, `dependentSchemas of the subschema at "#/items"`},
		{"patternProperties against many keys", `{"patternProperties":{` + fields(8000, "^p", same(`{"type":"string"}`)) + `}}`,
			`{` + fields(8000, "p", same("1")) + `}`, `patternProperties of the subschema at "#"`},
		{"long $ref chain", `{"$defs":{` + fields(5000, "d", func(i int) string {
			if i == 5000-1 {
				return `{"type":"string"}`
			}
			return `{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"}`
		}) + `},"$ref":"#/$defs/d0"}`, `1`, `a $ref chain of the subschema at "#/$defs/d`},
		{"long pattern against a long string", `{"pattern":"^` + strings.Repeat("a?", 3000) + strings.Repeat("a", 3000) + `$"}`,
			`"` + strings.Repeat("a", 3000) + `b"`, `pattern of the subschema at "#"`},
		{"a short pattern that compiles to a large program", `{"pattern":"a{1000}b"}`, `"` + strings.Repeat("a", 20000) + `"`, `pattern of the subschema at "#"`},
		{"format regex of large programs", `{"items":{"format":"regex"}}`, `[` + list(n, same(`"a{1000}"`)) + `]`, `format of the subschema at "#/items"`},
		{"$ref used twice at every level", doubledRef, `"x"`, `of the subschema at "#/$defs/d`},
		{"long key above many schema nodes", `{"properties":{"` + strings.Repeat("k", 20000) + `":{"properties":{` + fields(2000, "p", same(`{"type":"string"}`)) + `}}}}`,
			`{}`, `a long property name lies above many of them`},
		{"many subschemas to compile", `{"properties":{` + fields(20000, "p", same(`{}`)) + `}}`, `{}`,
			`20001 subschemas and 0 references, each queued or found by a scan of the compile queue`},
		{"many $refs to places outside the subschemas", `{"x":{` + fields(3200, "", same(`{"type":"string"}`)) + `},"properties":{` +
			fields(3200, "p", func(i int) string { return `{"$ref":"#/x/` + strconv.Itoa(i) + `"}` }) + `}}`, `{}`, `$refs to places that are not subschemas`},
		{"many $ids", `{"$defs":{` + fields(8000, "d", func(i int) string {
			return `{"$id":"https://x.example/s` + strconv.Itoa(i) + `","type":"string"}`
		}) + `},"properties":{"x":{"$ref":"https://x.example/s7"}}}`, `{"x":1}`, `subschemas, each looking for its resource among`},
		{"many dynamic anchors", `{"$defs":{` + fields(8000, "d", func(i int) string {
			return `{"$dynamicAnchor":"a` + strconv.Itoa(i) + `","type":"string"}`
		}) + `},"properties":{"x":{"$dynamicRef":"#a7"}}}`, `{"x":1}`, `8002 subschemas and 1 references, each queued or found by a scan of the compile queue`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := validateRequest(tc.schema, tc.args)
			var work *TooMuchWorkError
			if !errors.As(err, &work) {
				t.Fatalf("want a refusal, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("the refusal does not say %q: %s", tc.says, err)
			}
			// The same words every time (the count's order is fixed).
			for i := 0; i < 3; i++ {
				if again := validateRequest(tc.schema, tc.args); again == nil || again.Error() != err.Error() {
					t.Fatalf("a second call says %v, the first %v", again, err)
				}
			}
		})
	}
}

// TestLibraryCost_Ordinary checks that ordinary schemas, and the
// examples' tool schemas, are far below both bounds.
func TestLibraryCost_Ordinary(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"q":{"type":"string","minLength":1,"pattern":"^[a-z]+$","format":"email"},"n":{"type":"integer","minimum":0,"maximum":100,"multipleOf":5},"tags":{"type":"array","items":{"enum":["a","b","c"]},"uniqueItems":true}},"required":["q"],"additionalProperties":false}`,
		`{"$defs":{"node":{"type":"object","properties":{"value":{"type":"number"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"$ref":"#/$defs/node"}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/a"},"b":{"dependencies":{"x":["y"]}}}}`,
		`{"$id":"https://example.com/tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}`,
		`{"oneOf":[{"properties":{"kind":{"const":"a"}},"required":["kind"]},{"properties":{"kind":{"const":"b"}},"required":["kind"]}],"unevaluatedProperties":false}`,
		`{"if":{"properties":{"x":{"const":1}}},"then":{"required":["y"]},"else":{"required":["z"]},"patternProperties":{"^x-":{"type":"string"}},"propertyNames":{"maxLength":20}}`,
	}
	// The examples' tool schemas, wherever a file of the examples holds
	// an "inputSchema" or a scenario's "schema".
	filepath.WalkDir(filepath.Join("..", "..", "..", "examples"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		doc, err := jsonv.ParseJSON(text, abi.MaxDepth)
		if err != nil {
			return nil
		}
		var find func(v *jsonv.Value)
		find = func(v *jsonv.Value) {
			for _, item := range v.Arr {
				find(item)
			}
			for _, m := range v.Members {
				if (m.Key == "inputSchema" || m.Key == "schema") && m.Value.Kind == jsonv.KindObject {
					schemas = append(schemas, string(jsonv.AppendValue(nil, m.Value)))
				}
				find(m.Value)
			}
		}
		find(doc)
		return nil
	})
	args := "[" + list(50, func(i int) string {
		return `{"q":"abc","n":5,"tags":["a","b"],"kind":"a","x":1,"y":2,"value":1,"children":[{"value":2,"children":[]}],"data":{"children":[]}}`
	}) + "]"
	for i, schema := range schemas {
		s, err := jsonv.ParseJSON([]byte(schema), abi.MaxDepth)
		if err != nil {
			t.Fatal(err)
		}
		cc := &compileCount{schemas: map[*jsonv.Value]bool{}, sizes: map[*jsonv.Value]int{}}
		cc.resources = append(cc.resources, &resourceCount{node: s})
		cc.walk(s, 0, 0, cc.resources[0], satMax)
		for j := 0; j < len(cc.refs); j++ {
			cc.follow(s, cc.refs[j], satMax)
		}
		if total := cc.total(); total > CompileBudget(len(schema))/100 {
			t.Errorf("schema %d: compile count %d, near the budget %d", i, total, CompileBudget(len(schema)))
		}
		for _, a := range []string{args, `[` + args + `]`, `{"a":[` + args + `]}`} {
			if err := validateRequest(schema, a); err != nil {
				var work *TooMuchWorkError
				if errors.As(err, &work) {
					t.Errorf("schema %d refused: %s", i, err)
				}
			}
		}
	}
	if len(schemas) < 8 {
		t.Errorf("found only %d schemas", len(schemas))
	}
	t.Logf("%d schemas", len(schemas))
}

// TestLibraryCost_Reflection checks that the library still keeps the
// fields the count of $dynamicRef and $recursiveRef reads.
func TestLibraryCost_Reflection(t *testing.T) {
	if !reflectOK {
		t.Fatal(`jsonschema.Schema has no "resource" and "dynamicAnchors" fields of the expected types: checkcost.go must follow the library`)
	}
}
