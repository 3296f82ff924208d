// Package contract is the behavioural contract of a set of MCP tools: the
// lockfile that pins it, the diff between two contracts (deltas with a
// severity each), and the <contract_awareness> block a validation error
// carries when the contract of the failing tool changed
// (docs/CONTRACT.md, "Contract awareness").
package contract

import (
	"strconv"
	"strings"

	"github.com/toolerr/toolerr/plugin/internal/xmlesc"
)

// Delta is one change of a tool's behavioural contract, as the reference's
// ContractDiff reports it.
type Delta struct {
	Category    string
	Field       string
	Severity    string
	Description string
	Before      *string // nil when there was none
	After       *string
}

// Awareness selects and renders the deltas a validation error
// should tell the model about.
type Awareness struct {
	Tool                 string
	Action               string
	Deltas               []Delta
	MaxDeltas            int // default 5
	IncludeAllSeverities bool
}

// DefaultMaxDeltas is how many relevant deltas a validation error carries
// when the request does not say.
const DefaultMaxDeltas = 5

// Relevant returns, in order, the first MaxDeltas deltas whose severity is
// BREAKING or RISKY (any with IncludeAllSeverities) and whose field is
// global (no "actions.") or names the action ("actions.<action>" as a
// plain substring, as in the reference).
func (c *Awareness) Relevant() []Delta {
	prefix := "actions." + c.Action
	var kept []Delta
	for _, d := range c.Deltas {
		if len(kept) >= c.MaxDeltas {
			break
		}
		severityOK := c.IncludeAllSeverities || d.Severity == "BREAKING" || d.Severity == "RISKY"
		global := !strings.Contains(d.Field, "actions.")
		if severityOK && (global || strings.Contains(d.Field, prefix)) {
			kept = append(kept, d)
		}
	}
	return kept
}

// Render writes the <contract_awareness> block, or "" when c is nil or no
// delta is relevant.
//
// The reference writes <contract_changes> as a text of its own and then
// indents that text by two spaces, line by line: a line break inside a
// delta's value is followed by two more spaces there, and changeText does
// the same.
func (c *Awareness) Render() string {
	if c == nil {
		return ""
	}
	deltas := c.Relevant()
	if len(deltas) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<contract_awareness>\n  <system_note>IMPORTANT: The behavioral contract for tool \"")
	b.WriteString(xmlesc.EscapeContent(c.Tool))
	b.WriteString("\" has changed since your last calibration.</system_note>\n  <action>")
	b.WriteString(xmlesc.EscapeContent(c.Action))
	b.WriteString("</action>\n  <change_count>")
	b.WriteString(strconv.Itoa(len(deltas)))
	b.WriteString("</change_count>\n  <max_severity>")
	b.WriteString(xmlesc.EscapeContract(deltas[0].Severity))
	b.WriteString("</max_severity>\n\n  <instructions>\n" +
		"    Review the contract changes below and adjust your next invocation accordingly.\n" +
		"    These changes may explain why your previous arguments were rejected.\n" +
		"  </instructions>\n\n  <contract_changes>\n")
	for _, d := range deltas {
		b.WriteString("    <change severity=\"")
		b.WriteString(changeText(d.Severity))
		b.WriteString("\" field=\"")
		b.WriteString(changeText(d.Field))
		b.WriteString("\">\n      <description>")
		b.WriteString(changeText(d.Description))
		b.WriteString("</description>\n")
		if d.Before != nil {
			b.WriteString("      <before>")
			b.WriteString(changeText(*d.Before))
			b.WriteString("</before>\n")
		}
		if d.After != nil {
			b.WriteString("      <after>")
			b.WriteString(changeText(*d.After))
			b.WriteString("</after>\n")
		}
		b.WriteString("    </change>\n")
	}
	b.WriteString("  </contract_changes>\n</contract_awareness>")
	return b.String()
}

// changeText is a value inside <contract_changes>: escaped, and indented
// by two more spaces after each line break, as the reference's
// split('\n').join('\n  ') over the whole block leaves it.
func changeText(s string) string {
	return strings.ReplaceAll(xmlesc.EscapeContract(s), "\n", "\n  ")
}

// DeltaSeverities are the severities a contract delta may have, most
// severe first.
var DeltaSeverities = []string{"BREAKING", "RISKY", "SAFE", "COSMETIC"}
