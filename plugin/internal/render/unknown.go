package render

import (
	"slices"
	"strings"

	"github.com/toolerr/toolerr/plugin/internal/xmlesc"
)

// The bounds of unknown_tool's ranking (docs/CONTRACT.md, "Unknown tools"):
// at most UnknownToolListed names are listed, chosen among the first
// UnknownToolRanked tools, each compared on its first UnknownToolCompared
// bytes, so that the work is bounded whatever a server lists.
const (
	UnknownToolListed   = 20
	UnknownToolRanked   = 2000
	UnknownToolCompared = 64
)

// UnknownToolRecovery is the reference's recovery for an UNKNOWN_ACTION.
const UnknownToolRecovery = "Choose a valid action from available_actions and call the tool again."

// RenderUnknownTool writes the reference's UNKNOWN_ACTION envelope for a
// call to a tool that does not exist (its ExecutionPipeline's, with the
// discriminator "tool"): the name called, the server's tools as the
// comma-separated available actions, and a recovery that says to choose
// one. Unlike the reference, which lists its actions in the order they were
// registered, the tools come closest to the name called first (ClosestNames).
func RenderUnknownTool(name string, tools []string) string {
	var b strings.Builder
	b.WriteString("<tool_error code=\"UNKNOWN_ACTION\">\n<message>The tool \"")
	b.WriteString(xmlesc.EscapeContent(name))
	b.WriteString("\" does not exist.</message>\n<available_actions>")
	b.WriteString(xmlesc.EscapeContent(strings.Join(ClosestNames(name, tools), ", ")))
	b.WriteString("</available_actions>\n<recovery>")
	b.WriteString(UnknownToolRecovery)
	b.WriteString("</recovery>\n</tool_error>")
	return b.String()
}

// ClosestNames returns at most UnknownToolListed of names, the closest to
// name first: by edit distance (Levenshtein, ASCII case ignored) between
// their first UnknownToolCompared bytes, ties in the order given. Only the
// first UnknownToolRanked names are ranked; a name given twice is listed
// once.
func ClosestNames(name string, names []string) []string {
	if len(names) > UnknownToolRanked {
		names = names[:UnknownToolRanked]
	}
	type ranked struct {
		name     string
		distance int
	}
	called := compareKey(name)
	seen := make(map[string]bool, len(names))
	list := make([]ranked, 0, len(names))
	row := make([]int, UnknownToolCompared+1)
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		list = append(list, ranked{n, editDistance(called, compareKey(n), row)})
	}
	slices.SortStableFunc(list, func(a, b ranked) int { return a.distance - b.distance })
	out := make([]string, 0, min(len(list), UnknownToolListed))
	for _, r := range list[:min(len(list), UnknownToolListed)] {
		out = append(out, r.name)
	}
	return out
}

// compareKey is the part of a name ClosestNames compares: its first bytes,
// ASCII letters in lower case.
func compareKey(s string) string {
	if len(s) > UnknownToolCompared {
		s = s[:UnknownToolCompared]
	}
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// editDistance is the Levenshtein distance between a and b in bytes; row
// is scratch space of at least len(b)+1.
func editDistance(a, b string, row []int) int {
	row = row[:len(b)+1]
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diagonal := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			next := min(row[j]+1, row[j-1]+1, diagonal+cost)
			diagonal, row[j] = row[j], next
		}
	}
	return row[len(b)]
}
