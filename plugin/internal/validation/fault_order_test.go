package validation

import (
	"strings"
	"testing"
)

// TestValidateInvalidSchema_FaultOrder pins that the message for a schema
// that fails its metaschema is the same on every call, its faults in the
// order of the schema's text (the validator finds them walking Go maps,
// in an order that changes from call to call).
func TestValidateInvalidSchema_FaultOrder(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"two vocabularies", `{"type":"nope","properties":{"a":{"minLength":-1}},"required":3}`,
			"- at '': 'allOf' failed; - at '': validation failed; - at '/type': 'anyOf' failed; " +
				"- at '/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'; " +
				"- at '/type': got string, want array; - at '/required': got number, want array; " +
				"- at '/properties/a': 'allOf' failed; - at '/properties/a/minLength': minimum: got -1, want 0"},
		{"members of one vocabulary", `{"required":3,"maxLength":"x","minLength":-1}`,
			"- at '': 'allOf' failed; - at '': validation failed; - at '/required': got number, want array; " +
				"- at '/maxLength': got string, want integer; - at '/minLength': minimum: got -1, want 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			messages := map[string]int{}
			for i := 0; i < 50; i++ {
				_, err := Validate(Schema{Value: mustParse(t, tc.schema)}, mustParse(t, `{}`), nil, WorkBudget(1000))
				if err == nil {
					t.Fatal("no error")
				}
				messages[err.Error()]++
			}
			if len(messages) != 1 {
				t.Fatalf("%d distinct messages over 50 calls: %v", len(messages), messages)
			}
			for m := range messages {
				if !strings.HasSuffix(m, "2020-12/schema#'; "+tc.want) {
					t.Errorf("got %s\nwant it to end with %s", m, tc.want)
				}
			}
		})
	}
}
