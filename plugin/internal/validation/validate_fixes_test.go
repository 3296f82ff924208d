package validation

import (
	"testing"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

func mustParse(t *testing.T, s string) *jsonv.Value {
	t.Helper()
	v, err := jsonv.ParseJSON([]byte(s), abi.MaxDepth)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestValidateIssue_Scenario pins validate's message and suggestion where
// they follow ABI.md rather than the validator's defaults: several types in
// the schema's order (as ajv reports them), stated once by the message, a
// const in the schema's key order, no suggestion for a false schema, and
// format "regex" asking for a valid regex (not Zod's pattern sentence).
func TestValidateIssue_Scenario(t *testing.T) {
	for _, tc := range []struct{ name, schema, args, message, suggestion string }{
		{"types in schema order", `{"properties":{"s":{"type":["string","null"]}}}`, `{"s":5}`,
			"Expected string or null, received number.", ""},
		{"types in schema order integer first", `{"properties":{"s":{"type":["integer","boolean"]}}}`, `{"s":"x"}`,
			"Expected integer or boolean, received string.", ""},
		{"single type", `{"properties":{"s":{"type":"string"}}}`, `{"s":5}`,
			"Expected string, received number.", ""},
		{"const object keeps its key order", `{"properties":{"v":{"const":{"b":1,"a":2}}}}`, `{"v":{}}`,
			"Is not the required value.", `Expected exactly: {"b":1,"a":2}.`},
		{"false schema has no suggestion", `{"properties":{"v":false}}`, `{"v":1}`,
			"No value is allowed here.", ""},
		{"format regex", `{"properties":{"v":{"format":"regex"}}}`, `{"v":"("}`,
			"Is not a valid regex.", "Expected: a valid regex."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			issues, err := Validate(Schema{Value: mustParse(t, tc.schema)}, mustParse(t, tc.args), nil, WorkBudget(0))
			if err != nil {
				t.Fatal(err)
			}
			if len(issues) != 1 {
				t.Fatalf("got %d issues, want 1", len(issues))
			}
			if issues[0].Message != tc.message || issues[0].Suggestion != tc.suggestion {
				t.Errorf("got %q / %q, want %q / %q", issues[0].Message, issues[0].Suggestion, tc.message, tc.suggestion)
			}
		})
	}
}

// TestFormatSuggestion_Scenario: JSON Schema's format "regex" means "is a
// regular expression"; Zod's regex means "matches the pattern".
func TestFormatSuggestion_Scenario(t *testing.T) {
	if got := suggestAnyFormat("regex"); got != "Expected: a valid regex." {
		t.Errorf("suggestAnyFormat(regex) = %q", got)
	}
	if got := suggestFormat("regex"); got != suggestPattern {
		t.Errorf("suggestFormat(regex) = %q", got)
	}
	if got := suggestAnyFormat("color"); got != "Expected: a valid color." {
		t.Errorf("suggestAnyFormat(color) = %q", got)
	}
}

// TestPydanticLiteral_Scenario: Python's True, False and None in a
// Literal's expected text are JSON's true, false and null.
func TestPydanticLiteral_Scenario(t *testing.T) {
	for _, tc := range []struct{ expected, want string }{
		{`"True"`, "Expected exactly: true."},
		{`"None"`, "Expected exactly: null."},
		{`"True or False"`, "Valid options: 'true', 'false'."},
		{`"'a' or None"`, "Valid options: 'a', 'null'."},
		{`"'True'"`, `Expected exactly: "True".`},
		{`"1 or 2"`, "Valid options: '1', '2'."},
	} {
		t.Run(tc.expected, func(t *testing.T) {
			ctx := mustParse(t, `{"expected":`+tc.expected+`}`)
			if got := pydanticSuggestion("literal_error", "Input should be one of the literals", ctx); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBasicOutputExtraKeys_Scenario: a basic-output additionalProperties
// unit names either the object or the extra property itself; the keyword
// location's depth tells which, even when the extra value is an object.
func TestBasicOutputExtraKeys_Scenario(t *testing.T) {
	schema := mustParse(t, `{"properties":{"name":{},"config":{"properties":{"mode":{}},"additionalProperties":false}},"additionalProperties":false}`)
	args := mustParse(t, `{"name":"Ada","extra":{"a":1},"config":{"mode":"m","turbo":{"on":true}}}`)
	for _, tc := range []struct{ name, unit, path, suggestion string }{
		{"property with an object value", `{"keywordLocation":"/additionalProperties","instanceLocation":"/extra","error":"x"}`,
			"(root)", "Remove or correct unrecognized fields: 'extra'. Check for typos."},
		{"the object itself", `{"keywordLocation":"/additionalProperties","instanceLocation":"","error":"x"}`,
			"(root)", "Remove or correct unrecognized fields: 'extra'. Check for typos."},
		{"nested object itself", `{"keywordLocation":"/properties/config/additionalProperties","instanceLocation":"/config","error":"x"}`,
			"config", "Remove or correct unrecognized fields: 'turbo'. Check for typos."},
		{"nested property with an object value", `{"keywordLocation":"/properties/config/additionalProperties","instanceLocation":"/config/turbo","error":"x"}`,
			"config", "Remove or correct unrecognized fields: 'turbo'. Check for typos."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			issues := JSONSchemaIssues([]*jsonv.Value{mustParse(t, tc.unit)}, schema, args, nil)
			if len(issues) != 1 {
				t.Fatalf("got %d issues, want 1", len(issues))
			}
			if got := issuePath(issues[0].Path); got != tc.path || issues[0].Suggestion != tc.suggestion {
				t.Errorf("got %s %q, want %s %q", got, issues[0].Suggestion, tc.path, tc.suggestion)
			}
		})
	}
	for _, tc := range []struct {
		loc   string
		depth int
		ok    bool
	}{
		{"/additionalProperties", 0, true},
		{"/properties/a/additionalProperties", 1, true},
		{"/properties/a/items/additionalProperties", 2, true},
		{"/items/1/additionalProperties", 1, true},
		{"/prefixItems/0/properties/b/additionalProperties", 2, true},
		{"/allOf/0/$ref/additionalProperties", 0, true},
		{"/properties/a/$ref/properties/b/additionalProperties", 2, true},
		{"/x-unknown/additionalProperties", 0, false},
		{"", 0, false},
	} {
		if d, ok := keywordInstanceDepth(tc.loc); d != tc.depth || ok != tc.ok {
			t.Errorf("keywordInstanceDepth(%q) = %d, %v, want %d, %v", tc.loc, d, ok, tc.depth, tc.ok)
		}
	}
}

// TestValidateRefLoop_Scenario: a $ref loop is an invalid schema even
// inside the branches of a union, whose other errors are dropped.
func TestValidateRefLoop_Scenario(t *testing.T) {
	for _, schema := range []string{`{"$ref":"#"}`, `{"anyOf":[{"$ref":"#"}]}`, `{"oneOf":[{"type":"string"},{"$ref":"#"}]}`} {
		if _, err := Validate(Schema{Value: mustParse(t, schema)}, mustParse(t, `{}`), nil, WorkBudget(0)); err != errSchemaLoop {
			t.Errorf("%s: got %v, want the loop error", schema, err)
		}
	}
}
