package contract

import (
	"strings"
	"testing"
)

// TestChangeText_Scenario pins the reference's indentation of
// <contract_changes> (docs/CONTRACT.md, "Contract awareness"): the block is indented as one text, so each line break
// inside a value is followed by two spaces, after escaping.
func TestChangeText_Scenario(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"one line", "limit lowered", "limit lowered"},
		{"line break", "line1\nline2", "line1\n  line2"},
		{"blank line", "a\n\nb", "a\n  \n  b"},
		{"trailing line break", "a\n", "a\n  "},
		{"CRLF keeps its CR", "a\r\nb", "a\r\n  b"},
		{"escaped then indented", "<a>\n\"b\" & c", "&lt;a&gt;\n  &quot;b&quot; &amp; c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := changeText(tc.in); got != tc.want {
				t.Errorf("changeText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestAwarenessRender_LineBreaks pins where the indentation applies: inside
// <contract_changes> only, not to the tool and action lines above it.
func TestAwarenessRender_LineBreaks(t *testing.T) {
	before, after := "{\n\"max\": 500\n}", "x\ny"
	a := &Awareness{Tool: "t\nu", Action: "act", MaxDeltas: DefaultMaxDeltas, Deltas: []Delta{
		{Field: "f\ng", Severity: "BREAKING", Description: "d1\nd2", Before: &before, After: &after},
	}}
	got := a.Render()
	for _, want := range []string{
		`tool "t` + "\n" + `u" has changed`,
		`<change severity="BREAKING" field="f` + "\n  " + `g">`,
		"<description>d1\n  d2</description>",
		"<before>{\n  &quot;max&quot;: 500\n  }</before>",
		"<after>x\n  y</after>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("%q does not contain %q", got, want)
		}
	}
}
