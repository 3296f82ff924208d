package dispatch

import (
	"slices"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/failure"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/render"
	"github.com/toolerr/toolerr/plugin/internal/xmlesc"
)

func callToolError(c *call, r *request) *abi.Error {
	t := &c.tool
	*t = render.ToolError{Actions: t.Actions[:0], Details: t.Details[:0]}
	r.toolError(t)
	if r.err != nil {
		return r.err
	}
	c.scratch = render.AppendToolError(slices.Grow(c.scratch[:0], t.RenderedSize()), t)
	c.toolResult(c.scratchText(), t.IsError())
	return nil
}

// toolError reads the request into t, whose slices it appends to.
func (r *request) toolError(t *render.ToolError) {
	o := r.obj
	t.Code = r.requiredString(o, "", "code")
	r.check(t.Code != "", `"code" must not be empty`)
	t.Message = r.requiredString(o, "", "message")
	r.check(t.Message != "", `"message" must not be empty`)
	t.Suggestion = r.stringOr(o, "", "suggestion", "")
	t.Actions = r.appendStrings(t.Actions, "availableActions", r.optional(o, "availableActions"))
	if s := r.optionalString(o, "", "severity"); s != nil {
		r.oneOf("", "severity", *s, abi.Severities...)
		t.Severity = *s
	}
	if d := r.typed(r.optional(o, "details"), jsonv.KindObject, "", "details", "an object"); d != nil {
		t.Details = slices.Grow(t.Details, len(d.Members))
		for _, m := range d.Members {
			switch m.Value.Kind {
			case jsonv.KindString, jsonv.KindNumber, jsonv.KindBool:
				t.Details = append(t.Details, render.Detail{Key: m.Key, Value: m.Value})
			default:
				r.wrongType("details."+m.Key, "a string, number or boolean", m.Value)
				return
			}
		}
	}
	if v := r.typed(r.optional(o, "retryAfter"), jsonv.KindNumber, "", "retryAfter", "a number"); v != nil {
		t.RetryAfter = v.Num
	}
}

func callSimpleError(c *call, r *request) *abi.Error {
	message := r.requiredString(r.obj, "", "message")
	code := r.optionalString(r.obj, "", "code")
	if r.err != nil {
		return r.err
	}
	c.toolResult(render.RenderSimpleError(message, code), true)
	return nil
}

func callRequiredField(c *call, r *request) *abi.Error {
	field := r.requiredString(r.obj, "", "field")
	if r.err != nil {
		return r.err
	}
	c.toolResult(render.RenderRequiredField(field), true)
	return nil
}

func callInternalError(c *call, r *request) *abi.Error {
	message, tool, action := r.messageToolAction()
	if r.err != nil {
		return r.err
	}
	c.toolResult(render.RenderToolError(render.InternalError(message, tool, action)), true)
	return nil
}

func callToolFailure(c *call, r *request) *abi.Error {
	message, tool, action := r.messageToolAction()
	if !r.check(message != "", `"message" must not be empty`) {
		return r.err
	}
	class := failure.Classify(message)
	c.toolResult(render.RenderToolError(render.ToolFailure(message, tool, action, class.Code, class.Recovery)), true)
	return nil
}

// messageToolAction reads the {message, tool?, action?} request of
// internal_error and tool_failure; an absent tool or action is "", and an
// action needs a tool.
func (r *request) messageToolAction() (message, tool, action string) {
	message = r.requiredString(r.obj, "", "message")
	tool = r.stringOr(r.obj, "", "tool", "")
	action = r.stringOr(r.obj, "", "action", "")
	r.check(action == "" || tool != "", `"action" needs "tool"`)
	return message, tool, action
}

func callRateLimited(c *call, r *request) *abi.Error {
	max := r.requiredNumber("max")
	window := r.requiredNumber("windowSeconds")
	retry := r.requiredNumber("retryAfter")
	key := r.stringOr(r.obj, "", "key", "")
	if r.err != nil {
		return r.err
	}
	c.toolResult(render.RenderToolError(render.RateLimited(max, window, retry, key)), true)
	return nil
}

func callServerBusy(c *call, r *request) *abi.Error {
	tool := r.requiredString(r.obj, "", "tool")
	active := r.requiredNumber("active")
	queued := r.requiredNumber("queued")
	if r.err != nil {
		return r.err
	}
	c.toolResult(render.RenderToolError(render.ServerBusy(tool, active, queued)), true)
	return nil
}

func callEscape(c *call, r *request) *abi.Error {
	text := r.requiredString(r.obj, "", "text")
	context := r.requiredString(r.obj, "", "context")
	r.oneOf("", "context", context, "content", "attribute")
	if r.err != nil {
		return r.err
	}
	out := xmlesc.EscapeContent(text)
	if context == "attribute" {
		out = xmlesc.EscapeAttribute(text)
	}
	w := jsonv.Writer{B: c.out}
	w.RawStr(`{"text":`, out)
	w.Byte('}')
	c.out = w.B
	return nil
}

// callUnknownTool renders the UNKNOWN_ACTION envelope for a call to a tool
// that does not exist: tool is the name called, tools the server's.
func callUnknownTool(c *call, r *request) *abi.Error {
	tool := r.requiredString(r.obj, "", "tool")
	list := r.optional(r.obj, "tools")
	r.check(list != nil, `"tools" is required`)
	tools := r.appendStrings(nil, "tools", list)
	if r.err != nil {
		return r.err
	}
	c.toolResult(render.RenderUnknownTool(tool, tools), true)
	return nil
}
