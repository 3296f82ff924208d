package failure

import (
	"math"
	"strings"

	"github.com/toolerr/toolerr/plugin/internal/contract"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/parse"
	"github.com/toolerr/toolerr/plugin/internal/render"
	"github.com/toolerr/toolerr/plugin/internal/xmlesc"
)

// Exact reports whether text is exactly one envelope as the module renders
// it: what parse reads from text, rendered again, gives text back byte for
// byte. A text that merely holds an envelope (with words before or after
// it, markup split or altered, entities the module never writes) is not
// exact.
//
// A <tool_error> may open with code and severity (tool_error and the
// renderers built on it), with a code alone (simple_error,
// required_field) or with neither (simple_error without a code).
func Exact(text string) bool {
	if !strings.HasPrefix(text, "<") {
		return false
	}
	env := parse.Parse(text)
	if env == nil {
		return false
	}
	if env.Kind == "validation_error" {
		return renderValidation(env.Validation) == text
	}
	t := toolErrorOf(env.ToolError)
	full := render.AppendToolError(make([]byte, 0, len(text)+16), &t)
	if string(full) == text {
		return true
	}
	// The same body after the shorter openings.
	header := len(`<tool_error code="`) + len(xmlesc.EscapeAttribute(t.Code)) + len(`" severity="`) +
		len(xmlesc.EscapeAttribute(t.Severity)) + len(`">`)
	body := string(full[header:])
	if text == `<tool_error code="`+xmlesc.EscapeAttribute(t.Code)+`">`+body {
		return true
	}
	return t.Code == "UNKNOWN" && text == "<tool_error>"+body
}

// toolErrorOf is the rendering request of a parsed tool error.
func toolErrorOf(p *parse.ParsedToolError) render.ToolError {
	t := render.ToolError{Code: p.Code, Message: p.Message, Severity: p.Severity, Actions: p.Actions}
	if p.Recovery != nil {
		t.Suggestion = *p.Recovery
	}
	for _, d := range p.Details {
		t.Details = append(t.Details, render.Detail{Key: d.Key, Value: &jsonv.Value{Kind: jsonv.KindString, Str: d.Value}})
	}
	if p.RetryAfter != nil && !math.IsInf(*p.RetryAfter, 0) {
		t.RetryAfter = *p.RetryAfter
	}
	return t
}

// renderValidation writes a parsed validation error as the module writes
// one: its fields, its recovery and its contract awareness block.
func renderValidation(v *parse.ParsedValidation) string {
	var b strings.Builder
	b.WriteString(`<validation_error action="`)
	b.WriteString(xmlesc.EscapeAttribute(v.Action))
	b.WriteString(`">`)
	for _, f := range v.Fields {
		b.WriteString("\n<field name=\"")
		b.WriteString(xmlesc.EscapeAttribute(f.Name))
		b.WriteString("\">")
		b.WriteString(xmlesc.EscapeContent(f.Message))
		b.WriteString("</field>")
	}
	if v.Recovery != nil {
		b.WriteString("\n<recovery>")
		b.WriteString(xmlesc.EscapeContent(*v.Recovery))
		b.WriteString("</recovery>")
	}
	if c := v.Contract; c != nil {
		a := contract.Awareness{Tool: c.Tool, Action: c.Action, MaxDeltas: len(c.Changes), IncludeAllSeverities: true}
		for _, ch := range c.Changes {
			a.Deltas = append(a.Deltas, contract.Delta{Severity: unindent(ch.Severity), Field: unindent(ch.Field),
				Description: unindent(ch.Description), Before: unindentPtr(ch.Before), After: unindentPtr(ch.After)})
		}
		if block := a.Render(); block != "" {
			b.WriteString("\n\n\n")
			b.WriteString(block)
		}
	}
	b.WriteString("\n</validation_error>")
	return b.String()
}

// unindent undoes the two spaces the awareness block adds after each line
// break inside a value.
func unindent(s string) string { return strings.ReplaceAll(s, "\n  ", "\n") }

func unindentPtr(s *string) *string {
	if s == nil {
		return nil
	}
	u := unindent(*s)
	return &u
}
