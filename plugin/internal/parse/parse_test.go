package parse

import (
	"strconv"
	"strings"
	"testing"
)

// TestParse_ManyAttributesAndDetails pins the rules the sets keep once a
// tag has many attributes or an envelope many details: a repeated
// attribute keeps its first value, a repeated detail its first position and
// its last value, on both sides of the threshold.
func TestParse_ManyAttributesAndDetails(t *testing.T) {
	for _, n := range []int{2, manyAttrs - 1, manyAttrs, manyAttrs + 1, 40} {
		var attrs, details strings.Builder
		for i := 0; i < n; i++ {
			attrs.WriteString(` a` + strconv.Itoa(i) + `="v"`)
			details.WriteString(`<detail key="k` + strconv.Itoa(i) + `">` + strconv.Itoa(i) + `</detail>`)
		}
		text := `<tool_error` + attrs.String() + ` code="FIRST" code="SECOND"><message>m</message>` + details.String() +
			`<detail key="k0">last</detail><detail key="new">n</detail></tool_error>`
		env := Parse(text)
		if env == nil || env.ToolError == nil {
			t.Fatalf("n=%d: no envelope", n)
		}
		te := env.ToolError
		if te.Code != "FIRST" {
			t.Errorf("n=%d: code %q, want the first value", n, te.Code)
		}
		if len(te.Details) != n+1 || te.Details[0] != (ParsedDetail{"k0", "last"}) || te.Details[n] != (ParsedDetail{"new", "n"}) {
			t.Errorf("n=%d: details %v", n, te.Details)
		}
	}
}
