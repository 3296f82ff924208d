// Package render writes the <tool_error> envelopes line by line as the
// reference does: tool_error, simple_error, required_field, internal_error,
// rate_limited and server_busy (docs/CONTRACT.md, "Envelopes").
package render

import (
	"math"
	"strings"

	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/xmlesc"
)

// Detail is one entry of a tool error's details: a key and a string, number
// or boolean value.
type Detail struct {
	Key   string
	Value *jsonv.Value // KindString, KindNumber or KindBool
}

// Text renders the value as the envelope shows it: strings as they are,
// numbers as NUM, booleans as true/false.
func (d Detail) Text() string {
	if d.Value.Kind == jsonv.KindString {
		return d.Value.Str
	}
	return string(d.appendText(nil)) // numbers and booleans need no escaping
}

// appendText writes Text escaped for element content; only a string can
// need escaping.
func (d Detail) appendText(b []byte) []byte {
	switch d.Value.Kind {
	case jsonv.KindNumber:
		return jsonv.AppendNumber(b, d.Value.Num)
	case jsonv.KindBool:
		if d.Value.Bool {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	default:
		return xmlesc.AppendContent(b, d.Value.Str)
	}
}

// ToolError is everything a <tool_error> envelope can carry.
type ToolError struct {
	Code       string
	Message    string
	Suggestion string // rendered only when non-empty
	Actions    []string
	Severity   string // "" means error
	Details    []Detail
	RetryAfter float64 // rendered only when finite and > 0
}

// IsError is the MCP isError flag of the envelope: false only for warnings.
func (t *ToolError) IsError() bool { return t.Severity != "warning" }

// RenderToolError writes the <tool_error> envelope, line by line as the
// reference's toolError() does.
func RenderToolError(t *ToolError) string {
	return string(AppendToolError(make([]byte, 0, 128+len(t.Message)+len(t.Suggestion)), t))
}

// RenderedSize estimates the bytes of t's envelope before escaping, for
// sizing the buffer it is rendered into.
func (t *ToolError) RenderedSize() int {
	n := 160 + len(t.Code) + len(t.Message) + len(t.Suggestion)
	for _, a := range t.Actions {
		n += len(a) + 20
	}
	for _, d := range t.Details {
		n += len(d.Key) + 32
		if d.Value.Kind == jsonv.KindString {
			n += len(d.Value.Str)
		}
	}
	return n
}

// AppendToolError is RenderToolError writing after b.
func AppendToolError(b []byte, t *ToolError) []byte {
	severity := t.Severity
	if severity == "" {
		severity = "error"
	}
	b = append(b, `<tool_error code="`...)
	b = xmlesc.AppendAttribute(b, t.Code)
	b = append(b, `" severity="`...)
	b = xmlesc.AppendAttribute(b, severity)
	b = append(b, "\">\n<message>"...)
	b = xmlesc.AppendContent(b, t.Message)
	b = append(b, "</message>"...)
	if t.Suggestion != "" {
		b = append(b, "\n<recovery>"...)
		b = xmlesc.AppendContent(b, t.Suggestion)
		b = append(b, "</recovery>"...)
	}
	if len(t.Actions) > 0 {
		b = append(b, "\n<available_actions>"...)
		for _, a := range t.Actions {
			b = append(b, "\n  <action>"...)
			b = xmlesc.AppendContent(b, a)
			b = append(b, "</action>"...)
		}
		b = append(b, "\n</available_actions>"...)
	}
	if len(t.Details) > 0 {
		b = append(b, "\n<details>"...)
		for _, d := range t.Details {
			b = append(b, "\n  <detail key=\""...)
			b = xmlesc.AppendAttribute(b, d.Key)
			b = append(b, "\">"...)
			b = d.appendText(b)
			b = append(b, "</detail>"...)
		}
		b = append(b, "\n</details>"...)
	}
	if !math.IsInf(t.RetryAfter, 0) && t.RetryAfter > 0 {
		b = append(b, "\n<retry_after>"...)
		b = jsonv.AppendNumber(b, t.RetryAfter)
		b = append(b, " seconds</retry_after>"...)
	}
	return append(b, "\n</tool_error>"...)
}

// RenderSimpleError writes the reference's error(): a message and an
// optional code attribute, no severity.
func RenderSimpleError(message string, code *string) string {
	var b strings.Builder
	b.WriteString("<tool_error")
	if code != nil {
		b.WriteString(` code="`)
		b.WriteString(xmlesc.EscapeAttribute(*code))
		b.WriteByte('"')
	}
	b.WriteString(">\n<message>")
	b.WriteString(xmlesc.EscapeContent(message))
	b.WriteString("</message>\n</tool_error>")
	return b.String()
}

// RenderRequiredField writes the reference's required(field).
func RenderRequiredField(field string) string {
	f := xmlesc.EscapeContent(field)
	return "<tool_error code=\"MISSING_REQUIRED_FIELD\">\n<message>Required field \"" + f +
		"\" is missing.</message>\n<recovery>Provide the \"" + f + "\" parameter and retry.</recovery>\n</tool_error>"
}

// InternalErrorRecovery is the recovery of every INTERNAL_ERROR envelope.
// It deliberately departs from the reference, which invites a retry of a
// call that hit a bug.
const InternalErrorRecovery = "This is an unexpected server-side failure, not a problem with your arguments. " +
	"Do not blindly retry the same call: tell the user what failed, or try a different approach."

// InternalError builds the envelope for an unmarked exception in a handler.
// The message is prefixed with [tool/action] or [tool] when they are given.
func InternalError(message, tool, action string) *ToolError {
	return &ToolError{Code: "INTERNAL_ERROR", Message: prefixed(message, tool, action), Suggestion: InternalErrorRecovery, Severity: "error"}
}

// ToolFailure builds the envelope for a failure a handler reported on purpose
// with a message alone (an SDK's own error type raised by the tool's
// author, FastMCP's ToolError for one), whose words are kept: code and
// recovery are the class of those words (package failure). The message is
// prefixed as InternalError prefixes it.
func ToolFailure(message, tool, action, code, recovery string) *ToolError {
	return &ToolError{Code: code, Message: prefixed(message, tool, action), Suggestion: recovery, Severity: "error"}
}

// prefixed is message after [tool/action] or [tool] when they are given.
func prefixed(message, tool, action string) string {
	switch {
	case tool != "" && action != "":
		return "[" + tool + "/" + action + "] " + message
	case tool != "":
		return "[" + tool + "] " + message
	}
	return message
}

// RateLimited builds the reference rate limiter's envelope.
func RateLimited(max, windowSeconds, retryAfter float64, key string) *ToolError {
	if key == "" {
		key = "__global__"
	}
	return &ToolError{
		Code:       "RATE_LIMITED",
		Message:    "Rate limit exceeded. Maximum " + jsonv.FormatNumber(max) + " requests per " + jsonv.FormatNumber(windowSeconds) + "s window.",
		Suggestion: "Wait " + jsonv.FormatNumber(retryAfter) + " seconds before retrying. Current key: \"" + key + "\".",
		RetryAfter: retryAfter,
	}
}

// ServerBusy builds the load-shedding envelope of a concurrency guard.
func ServerBusy(tool string, active, queued float64) *ToolError {
	return &ToolError{
		Code:       "SERVER_BUSY",
		Message:    "Tool \"" + tool + "\" is at capacity (" + jsonv.FormatNumber(active) + " active, " + jsonv.FormatNumber(queued) + " queued). Retry after a short delay.",
		Suggestion: "Reduce the number of concurrent calls to this tool. Send requests sequentially or in smaller batches.",
	}
}
