package dispatch

import (
	"slices"
	"strconv"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/failure"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/render"
	"github.com/toolerr/toolerr/plugin/internal/xmlesc"
)

func callToolError(c *call, r *request) *abi.Error {
	t := &c.tool
	*t = render.ToolError{Actions: t.Actions[:0], Details: t.Details[:0]}
	if err := r.toolError(t); err != nil {
		return err
	}
	c.scratch = render.AppendToolError(slices.Grow(c.scratch[:0], t.RenderedSize()), t)
	c.toolResult(c.scratchText(), t.IsError())
	return nil
}

// toolError reads the request into t, whose slices it appends to.
func (r *request) toolError(t *render.ToolError) *abi.Error {
	o := r.obj
	var err *abi.Error
	if t.Code, err = r.requiredString(o, "", "code"); err != nil {
		return err
	}
	if t.Code == "" {
		return r.fail(`"code" must not be empty`)
	}
	if t.Message, err = r.requiredString(o, "", "message"); err != nil {
		return err
	}
	if t.Message == "" {
		return r.fail(`"message" must not be empty`)
	}
	if s, err := r.optionalString(o, "", "suggestion"); err != nil {
		return err
	} else if s != nil {
		t.Suggestion = *s
	}
	if a := present(o, "availableActions"); a != nil {
		if a.Kind != jsonv.KindArray {
			return r.wrongType("availableActions", "an array of strings", a)
		}
		for i, item := range a.Arr {
			if item.Kind != jsonv.KindString {
				return r.wrongType("availableActions["+strconv.Itoa(i)+"]", "a string", item)
			}
			t.Actions = append(t.Actions, item.Str)
		}
	}
	if s, err := r.optionalString(o, "", "severity"); err != nil {
		return err
	} else if s != nil {
		if err := r.oneOf("severity", *s, abi.Severities...); err != nil {
			return err
		}
		t.Severity = *s
	}
	if d := present(o, "details"); d != nil {
		if d.Kind != jsonv.KindObject {
			return r.wrongType("details", "an object", d)
		}
		t.Details = slices.Grow(t.Details, len(d.Members))
		for _, m := range d.Members {
			switch m.Value.Kind {
			case jsonv.KindString, jsonv.KindNumber, jsonv.KindBool:
				t.Details = append(t.Details, render.Detail{Key: m.Key, Value: m.Value})
			default:
				return r.wrongType("details."+m.Key, "a string, number or boolean", m.Value)
			}
		}
	}
	if v := present(o, "retryAfter"); v != nil {
		if v.Kind != jsonv.KindNumber {
			return r.wrongType("retryAfter", "a number", v)
		}
		t.RetryAfter = v.Num
	}
	return nil
}

func callSimpleError(c *call, r *request) *abi.Error {
	message, err := r.requiredString(r.obj, "", "message")
	if err != nil {
		return err
	}
	code, err := r.optionalString(r.obj, "", "code")
	if err != nil {
		return err
	}
	c.toolResult(render.RenderSimpleError(message, code), true)
	return nil
}

func callRequiredField(c *call, r *request) *abi.Error {
	field, err := r.requiredString(r.obj, "", "field")
	if err != nil {
		return err
	}
	c.toolResult(render.RenderRequiredField(field), true)
	return nil
}

func callInternalError(c *call, r *request) *abi.Error {
	message, tool, action, err := r.messageToolAction()
	if err != nil {
		return err
	}
	c.toolResult(render.RenderToolError(render.InternalError(message, tool, action)), true)
	return nil
}

func callToolFailure(c *call, r *request) *abi.Error {
	message, tool, action, err := r.messageToolAction()
	if err != nil {
		return err
	}
	if message == "" {
		return r.fail(`"message" must not be empty`)
	}
	class := failure.Classify(message)
	c.toolResult(render.RenderToolError(render.ToolFailure(message, tool, action, class.Code, class.Recovery)), true)
	return nil
}

// messageToolAction reads the {message, tool?, action?} request of
// internal_error and tool_failure; an absent tool or action is "", and an
// action needs a tool.
func (r *request) messageToolAction() (message, tool, action string, err *abi.Error) {
	if message, err = r.requiredString(r.obj, "", "message"); err != nil {
		return "", "", "", err
	}
	toolField, err := r.optionalString(r.obj, "", "tool")
	if err != nil {
		return "", "", "", err
	}
	actionField, err := r.optionalString(r.obj, "", "action")
	if err != nil {
		return "", "", "", err
	}
	if toolField != nil {
		tool = *toolField
	}
	if actionField != nil {
		action = *actionField
	}
	if action != "" && tool == "" {
		return "", "", "", r.fail(`"action" needs "tool"`)
	}
	return message, tool, action, nil
}

func callRateLimited(c *call, r *request) *abi.Error {
	max, err := r.requiredNumber(r.obj, "max")
	if err != nil {
		return err
	}
	window, err := r.requiredNumber(r.obj, "windowSeconds")
	if err != nil {
		return err
	}
	retry, err := r.requiredNumber(r.obj, "retryAfter")
	if err != nil {
		return err
	}
	key, err := r.optionalString(r.obj, "", "key")
	if err != nil {
		return err
	}
	k := ""
	if key != nil {
		k = *key
	}
	c.toolResult(render.RenderToolError(render.RateLimited(max, window, retry, k)), true)
	return nil
}

func callServerBusy(c *call, r *request) *abi.Error {
	tool, err := r.requiredString(r.obj, "", "tool")
	if err != nil {
		return err
	}
	active, err := r.requiredNumber(r.obj, "active")
	if err != nil {
		return err
	}
	queued, err := r.requiredNumber(r.obj, "queued")
	if err != nil {
		return err
	}
	c.toolResult(render.RenderToolError(render.ServerBusy(tool, active, queued)), true)
	return nil
}

func callEscape(c *call, r *request) *abi.Error {
	text, err := r.requiredString(r.obj, "", "text")
	if err != nil {
		return err
	}
	context, err := r.requiredString(r.obj, "", "context")
	if err != nil {
		return err
	}
	if err := r.oneOf("context", context, "content", "attribute"); err != nil {
		return err
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
	tool, err := r.requiredString(r.obj, "", "tool")
	if err != nil {
		return err
	}
	list := present(r.obj, "tools")
	if list == nil {
		return r.fail(`"tools" is required`)
	}
	if list.Kind != jsonv.KindArray {
		return r.wrongType("tools", "an array of strings", list)
	}
	tools := make([]string, len(list.Arr))
	for i, item := range list.Arr {
		if item.Kind != jsonv.KindString {
			return r.wrongType("tools["+strconv.Itoa(i)+"]", "a string", item)
		}
		tools[i] = item.Str
	}
	c.toolResult(render.RenderUnknownTool(tool, tools), true)
	return nil
}
