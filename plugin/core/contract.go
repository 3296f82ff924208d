package core

import (
	"strconv"
	"strings"
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

// ContractAwareness selects and renders the deltas a validation error
// should tell the model about.
type ContractAwareness struct {
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
func (c *ContractAwareness) Relevant() []Delta {
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

// render writes the <contract_awareness> block, or "" when c is nil or no
// delta is relevant.
func (c *ContractAwareness) render() string {
	if c == nil {
		return ""
	}
	deltas := c.Relevant()
	if len(deltas) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<contract_awareness>\n  <system_note>IMPORTANT: The behavioral contract for tool \"")
	b.WriteString(EscapeContent(c.Tool))
	b.WriteString("\" has changed since your last calibration.</system_note>\n  <action>")
	b.WriteString(EscapeContent(c.Action))
	b.WriteString("</action>\n  <change_count>")
	b.WriteString(strconv.Itoa(len(deltas)))
	b.WriteString("</change_count>\n  <max_severity>")
	b.WriteString(escapeContract(deltas[0].Severity))
	b.WriteString("</max_severity>\n\n  <instructions>\n" +
		"    Review the contract changes below and adjust your next invocation accordingly.\n" +
		"    These changes may explain why your previous arguments were rejected.\n" +
		"  </instructions>\n\n  <contract_changes>\n")
	for _, d := range deltas {
		b.WriteString("    <change severity=\"")
		b.WriteString(escapeContract(d.Severity))
		b.WriteString("\" field=\"")
		b.WriteString(escapeContract(d.Field))
		b.WriteString("\">\n      <description>")
		b.WriteString(escapeContract(d.Description))
		b.WriteString("</description>\n")
		if d.Before != nil {
			b.WriteString("      <before>")
			b.WriteString(escapeContract(*d.Before))
			b.WriteString("</before>\n")
		}
		if d.After != nil {
			b.WriteString("      <after>")
			b.WriteString(escapeContract(*d.After))
			b.WriteString("</after>\n")
		}
		b.WriteString("    </change>\n")
	}
	b.WriteString("  </contract_changes>\n</contract_awareness>")
	return b.String()
}
