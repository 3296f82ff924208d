package failure

import (
	"strings"
	"testing"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/render"
	"github.com/toolerr/toolerr/plugin/internal/validation"
)

func TestClassify_Phrases(t *testing.T) {
	for _, tc := range []struct{ text, code string }{
		{"ENOENT: no such file or directory, open '/tmp/a'", "NOT_FOUND"},
		{"Access denied - path outside allowed directories: /etc", "FORBIDDEN"},
		{"outside allowed directories", "TOOL_FAILURE"},
		{"rate limiting in effect", "RATE_LIMITED"},
		{"Timeouts everywhere", "TIMEOUT"},
		{"conflicting update", "CONFLICT"},
		{"status 404.", "NOT_FOUND"},
		{"status 404.5", "TOOL_FAILURE"},
		{"error 429: slow down", "RATE_LIMITED"},
		{"x-429", "TOOL_FAILURE"},
		{"1401 items", "TOOL_FAILURE"},
		{"", "TOOL_FAILURE"},
		{"notallowed", "TOOL_FAILURE"},
		{"é not found", "NOT_FOUND"},
		{"Error executing tool get_current_time: Missing required argument: timezone", "VALIDATION_ERROR"},
		{"missing required parameter 'id'", "VALIDATION_ERROR"},
		{"missing requirements.txt", "TOOL_FAILURE"},
		{"the file is missing", "TOOL_FAILURE"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			if got := Classify(tc.text).Code; got != tc.code {
				t.Errorf("Classify(%q) = %s, want %s", tc.text, got, tc.code)
			}
		})
	}
}

// TestClassify_Linear: a long text with a word start at every other byte
// and no match is read in one pass.
func TestClassify_Linear(t *testing.T) {
	text := strings.Repeat("n ", 2<<20)
	if got := Classify(text).Code; got != "TOOL_FAILURE" {
		t.Fatalf("got %s", got)
	}
}

func TestExact_Renders(t *testing.T) {
	str := func(s string) *jsonv.Value { return &jsonv.Value{Kind: jsonv.KindString, Str: s} }
	full := render.RenderToolError(&render.ToolError{Code: "A&B", Message: "x < y ]]> z", Suggestion: "do \"it\"",
		Actions: []string{"a", "b"}, Details: []render.Detail{{Key: "k'", Value: str("v&")}}, RetryAfter: 1.5})
	code := "C"
	issues := []validation.Issue{{Message: "Bad.", SentText: "5"}}
	verr, err := validation.AppendValidationError(nil, new([]byte), "act<", issues, nil, nil, nil, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text string
		exact      bool
	}{
		{"tool_error", full, true},
		{"simple_error", render.RenderSimpleError("m & n", &code), true},
		{"simple_error without code", render.RenderSimpleError("m", nil), true},
		{"required_field", render.RenderRequiredField("id"), true},
		{"validation_error", string(verr), true},
		{"words before", "x" + full, false},
		{"words after", full + " ", false},
		{"severity twice", strings.Replace(full, `severity="error"`, `severity="error" severity="error"`, 1), false},
		{"attributes swapped", `<tool_error severity="error" code="C">` + "\n<message>m</message>\n</tool_error>", false},
		{"no envelope", "plain", false},
		{"two envelopes", render.RenderSimpleError("m", nil) + "\n" + render.RenderSimpleError("m", nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Exact(tc.text); got != tc.exact {
				t.Errorf("Exact(%q) = %v, want %v", tc.text, got, tc.exact)
			}
		})
	}
}
