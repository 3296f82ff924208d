package validation

import (
	"math"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/contract"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
)

func zodSuggestionOf(t *testing.T, issue string) string {
	t.Helper()
	v, err := jsonv.ParseJSON([]byte(issue), abi.MaxDepth)
	if err != nil {
		t.Fatal(err)
	}
	return ZodIssue(v).Suggestion
}

// TestBoundSuggestion_Scenario pins docs/CONTRACT.md, "Validation errors"
// (the reference's Zod v3 suggestions): only number and bigint
// read "inclusive"; any other type (set, file, a too_big date) gives >= or
// <= whatever inclusive says.
func TestBoundSuggestion_Scenario(t *testing.T) {
	for _, tc := range []struct{ name, issue, want string }{
		{"number inclusive", `{"code":"too_small","type":"number","minimum":18,"inclusive":true}`, "Must be >= 18."},
		{"number exclusive", `{"code":"too_small","type":"number","minimum":18,"inclusive":false}`, "Must be > 18."},
		{"bigint too_big exclusive", `{"code":"too_big","type":"bigint","maximum":"9","inclusive":false}`, "Must be < 9."},
		{"set exclusive min follows the reference", `{"code":"too_small","type":"set","minimum":2,"inclusive":false}`, "Must be > 2."},
		{"set exclusive max", `{"code":"too_big","type":"set","maximum":2,"inclusive":false}`, "Must be < 2."},
		{"date too_big exclusive", `{"code":"too_big","type":"date","maximum":1704067200000,"inclusive":false}`, "Must be < 1704067200000."},
		{"date too_small", `{"code":"too_small","type":"date","minimum":1704067200000,"inclusive":false}`, "Must be after 2024-01-01T00:00:00.000Z."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := zodSuggestionOf(t, tc.issue); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestZodV4Suggestion_Scenario pins docs/CONTRACT.md, "Validation errors":
// Zod v4 issues get the
// suggestion of their v3 equivalent.
func TestZodV4Suggestion_Scenario(t *testing.T) {
	for _, tc := range []struct{ name, issue, want string }{
		{"invalid_format email", `{"code":"invalid_format","format":"email"}`, "Expected: a valid email address (e.g. user@example.com)."},
		{"invalid_format ipv4", `{"code":"invalid_format","format":"ipv4"}`, "Expected: a valid IP address."},
		{"invalid_format ipv6", `{"code":"invalid_format","format":"ipv6"}`, "Expected: a valid IP address."},
		{"invalid_format unknown", `{"code":"invalid_format","format":"starts_with"}`, ""},
		{"origin string", `{"code":"too_small","origin":"string","minimum":1,"inclusive":true}`, "Minimum length: 1 character."},
		{"origin array", `{"code":"too_big","origin":"array","maximum":3,"inclusive":true}`, "Maximum 3 items."},
		{"origin number", `{"code":"too_big","origin":"number","maximum":100,"inclusive":false}`, "Must be < 100."},
		{"type wins over origin", `{"code":"too_small","type":"string","origin":"array","minimum":2}`, "Minimum length: 2 characters."},
		{"invalid_value", `{"code":"invalid_value","values":["asc","desc"]}`, "Valid options: 'asc', 'desc'."},
		{"not_multiple_of names the divisor", `{"code":"not_multiple_of","divisor":5}`, "Must be a multiple of 5."},
		{"v3 not_multiple_of has none, as the reference", `{"code":"not_multiple_of","multipleOf":5}`, ""},
		{"invalid_key", `{"code":"invalid_key","origin":"record"}`, ""},
		{"invalid_element", `{"code":"invalid_element","origin":"set"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := zodSuggestionOf(t, tc.issue); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAppendValidationError_Scenario pins the two empty lines between the
// recovery line and <contract_awareness> (docs/CONTRACT.md, "Contract
// awareness").
func TestAppendValidationError_Scenario(t *testing.T) {
	awareness := &contract.Awareness{Tool: "t", Action: "a", MaxDeltas: contract.DefaultMaxDeltas,
		Deltas: []contract.Delta{{Field: "f", Severity: "BREAKING", Description: "d"}}}
	for _, tc := range []struct {
		name      string
		awareness *contract.Awareness
		want      string
	}{
		{"no contract", nil, validationRecovery + "\n</validation_error>"},
		{"contract block", awareness, validationRecovery + "\n\n\n<contract_awareness>\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var line []byte
			b, err := AppendValidationError(nil, &line, "a", nil, nil, tc.awareness, nil, math.MaxInt)
			if got := string(b); err != nil || !strings.Contains(got, tc.want) {
				t.Errorf("%q does not contain %q", got, tc.want)
			}
		})
	}
}
