package dispatch

import (
	"strings"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/parse"
)

// callCheckResult is the typed client's projection of a tool result: null
// for a result that is not an error (warnings ride the success path), else
// the error a client raises, with the same members whatever produced it. A
// tool error gives its own code, severity and message; a validation error
// gives VALIDATION_ERROR and "invalid arguments for ACTION: f1, f2"; a
// result with no envelope gives UNKNOWN and the text of its first text
// block. Every binding builds its client error from this, so the rule has
// one home.
func callCheckResult(c *call, r *request) *abi.Error {
	result := r.checkResult(r.required(r.obj, "", "result"))
	isError := r.optionalBool(result, "result.", "isError")
	if r.err != nil {
		return r.err
	}
	w := jsonv.Writer{B: c.out}
	if !isError {
		w.Raw(`{"clientError":null}`)
		c.out = w.B
		return nil
	}
	env := r.parseResult()
	none := &parse.ParsedToolError{}
	w.Raw(`{"clientError":{"kind":`)
	switch {
	case env == nil:
		w.RawStr(`null,"code":"UNKNOWN","severity":"error","message":`, firstText(result))
		w.Raw(`,"recovery":null`)
		writeToolErrorTail(&w, none)
		w.Raw(`,"action":null,"fields":[],"contract":null`)
	case env.ToolError != nil:
		t := env.ToolError
		w.RawStr(`"tool_error","code":`, t.Code)
		w.RawStr(`,"severity":`, t.Severity)
		w.RawStr(`,"message":`, t.Message)
		w.Raw(`,"recovery":`)
		writeOptionalString(&w, t.Recovery)
		writeToolErrorTail(&w, t)
		w.Raw(`,"action":null,"fields":[],"contract":null`)
	default:
		v := env.Validation
		names := make([]string, len(v.Fields))
		for i, f := range v.Fields {
			names[i] = f.Name
		}
		w.RawStr(`"validation_error","code":"VALIDATION_ERROR","severity":"error","message":`, "invalid arguments for "+v.Action+": "+strings.Join(names, ", "))
		w.Raw(`,"recovery":`)
		writeOptionalString(&w, v.Recovery)
		writeToolErrorTail(&w, none)
		w.RawStr(`,"action":`, v.Action)
		w.Raw(`,"fields":`)
		writeFields(&w, v.Fields)
		w.Raw(`,"contract":`)
		writeContract(&w, v.Contract)
	}
	w.Raw("}}")
	c.out = w.B
	return nil
}

// firstText is the text of the result's first text block, or "".
func firstText(result *jsonv.Value) string {
	for _, block := range result.Get("content").Arr {
		if t, ok := jsonv.GetString(block, "type"); ok && t == "text" {
			if text, ok := jsonv.GetString(block, "text"); ok {
				return text
			}
		}
	}
	return ""
}
