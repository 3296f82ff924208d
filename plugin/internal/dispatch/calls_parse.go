package dispatch

import (
	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/jsonv"
	"github.com/toolerr/toolerr/plugin/internal/parse"
)

func callParse(c *call, r *request) *abi.Error {
	text, hasText := r.parseSource()
	if r.err != nil {
		return r.err
	}
	var env *parse.Envelope
	if hasText {
		env = parse.Parse(text)
	} else {
		env = r.parseResult()
	}
	w := jsonv.Writer{B: c.out}
	w.Raw(`{"envelope":`)
	writeEnvelope(&w, env)
	w.Byte('}')
	c.out = w.B
	return nil
}

// parseSource reads exactly one of "text" and "result": the text, and
// whether it was given.
func (r *request) parseSource() (string, bool) {
	text, result := r.obj.Get("text"), r.obj.Get("result")
	switch {
	case text != nil && result != nil:
		r.fail(`give either "text" or "result", not both`)
	case text != nil:
		if s := r.typed(text, jsonv.KindString, "", "text", "a string"); s != nil {
			return s.Str, true
		}
	case result == nil:
		r.fail(`"text" or "result" is required`)
	default:
		r.checkResult(result)
	}
	return "", false
}

// checkResult returns result when it has the shape parse and check_result
// read of a CallToolResult, an object whose content is an array of objects;
// else nil, after recording what is wrong unless result is nil.
func (r *request) checkResult(result *jsonv.Value) *jsonv.Value {
	if r.typed(result, jsonv.KindObject, "", "result", "an object") != nil {
		r.objects("result.content", r.required(result, "result.", "content"))
	}
	if r.err != nil {
		return nil
	}
	return result
}

// parseResult reads the first text block of the result that holds an
// envelope.
func (r *request) parseResult() *parse.Envelope {
	for _, block := range r.obj.Get("result").Get("content").Arr {
		if t, ok := jsonv.GetString(block, "type"); !ok || t != "text" {
			continue
		}
		if text, ok := jsonv.GetString(block, "text"); ok {
			if env := parse.Parse(text); env != nil {
				return env
			}
		}
	}
	return nil
}

func writeOptionalString(w *jsonv.Writer, s *string) {
	if s == nil {
		w.Raw("null")
	} else {
		w.Str(*s)
	}
}

func writeEnvelope(w *jsonv.Writer, env *parse.Envelope) {
	if env == nil {
		w.Raw("null")
		return
	}
	if t := env.ToolError; t != nil {
		w.RawStr(`{"kind":"tool_error","code":`, t.Code)
		w.RawStr(`,"severity":`, t.Severity)
		w.Raw(`,"isError":`)
		w.Boolean(t.Severity != "warning")
		w.RawStr(`,"message":`, t.Message)
		w.Raw(`,"recovery":`)
		writeOptionalString(w, t.Recovery)
		writeToolErrorTail(w, t)
		w.Byte('}')
		return
	}
	v := env.Validation
	w.RawStr(`{"kind":"validation_error","action":`, v.Action)
	w.Raw(`,"fields":`)
	writeFields(w, v.Fields)
	w.Raw(`,"recovery":`)
	writeOptionalString(w, v.Recovery)
	w.Raw(`,"contract":`)
	writeContract(w, v.Contract)
	w.Byte('}')
}

// writeToolErrorTail writes the members of a parsed tool error that follow
// its recovery: availableActions, details and retryAfter.
func writeToolErrorTail(w *jsonv.Writer, t *parse.ParsedToolError) {
	w.Raw(`,"availableActions":`)
	w.Strings(t.Actions)
	w.Raw(`,"details":{`)
	for i, d := range t.Details {
		w.Key(d.Key, i == 0)
		w.Str(d.Value)
	}
	w.Raw(`},"retryAfter":`)
	if t.RetryAfter == nil {
		w.Raw("null")
	} else {
		w.Num(*t.RetryAfter)
	}
}

func writeFields(w *jsonv.Writer, fields []parse.ParsedField) {
	w.Byte('[')
	for i, f := range fields {
		w.Comma(i)
		w.RawStr(`{"name":`, f.Name)
		w.RawStr(`,"message":`, f.Message)
		w.Byte('}')
	}
	w.Byte(']')
}

// writeBeforeAfter ends the object of a change: its before and after
// members, each a string or null.
func writeBeforeAfter(w *jsonv.Writer, before, after *string) {
	w.Raw(`,"before":`)
	writeOptionalString(w, before)
	w.Raw(`,"after":`)
	writeOptionalString(w, after)
	w.Byte('}')
}

func writeContract(w *jsonv.Writer, c *parse.ParsedContract) {
	if c == nil {
		w.Raw("null")
	} else {
		w.RawStr(`{"tool":`, c.Tool)
		w.RawStr(`,"action":`, c.Action)
		w.RawNum(`,"changeCount":`, float64(c.ChangeCount))
		w.RawStr(`,"maxSeverity":`, c.MaxSeverity)
		w.Raw(`,"changes":[`)
		for i, ch := range c.Changes {
			w.Comma(i)
			w.RawStr(`{"severity":`, ch.Severity)
			w.RawStr(`,"field":`, ch.Field)
			w.RawStr(`,"description":`, ch.Description)
			writeBeforeAfter(w, ch.Before, ch.After)
		}
		w.Raw("]}")
	}
}
