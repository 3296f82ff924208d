// Package core is toolerr's contract in pure Go: escaping, the envelope
// renderers, the validation formatter with contract awareness, and the
// parser, behind one JSON entry point, Call.
//
// The wasm module (plugin/wasm) and the Go host's native engine both run
// this package, so their outputs are the same bytes by construction.
package core

import (
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/toolerr/toolerr/abi"
)

// Call runs one export on a JSON request and returns its JSON response, or
// a typed error naming what was wrong with the request.
//
// # Notes
//   - Call never panics on any input; a bug surfaces as an INTERNAL error.
//   - Call keeps no state between calls that changes an answer, and is
//     safe for concurrent use.
func Call(export string, input []byte) ([]byte, *abi.Error) {
	return AppendCall(nil, export, input)
}

// AppendCall is Call writing the response after dst, so that a caller can
// reuse one response buffer across calls. On error it returns nil.
func AppendCall(dst []byte, export string, input []byte) (out []byte, err *abi.Error) {
	c := calls.Get().(*call)
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, abi.Errorf(abi.CodeInternal, "%s: internal failure: %v", export, p)
		}
		c.release()
	}()
	handler, ok := exports[export]
	if !ok {
		return nil, abi.Errorf(abi.CodeInvalidRequest, "unknown export %s", strconv.Quote(export))
	}
	c.out = dst
	if err := handler(c, input); err != nil {
		return nil, err
	}
	return c.out, nil
}

// call is the working state of one export call: the decoder of its
// request, the response being written, and a scratch buffer to render
// into. Calls are pooled, so a warm call allocates little, which is what
// makes it fast inside the module, where allocation and garbage
// collection cost far more than natively.
type call struct {
	dec     decoder
	req     request
	out     []byte
	scratch []byte
	line    []byte
	tool    ToolError
	issues  []Issue
}

var calls = sync.Pool{New: func() any { return new(call) }}

// maxScratch is the largest scratch buffer a pooled call keeps.
const maxScratch = 64 << 10

func (c *call) release() {
	c.dec.trim()
	c.req, c.out = request{}, nil
	c.scratch, c.line = keepUpTo(c.scratch, maxScratch), keepUpTo(c.line, maxScratch)
	// What a kept slice still points to is the finished call's; cleared,
	// it is not kept alive by the pool.
	clear(c.issues[:cap(c.issues)])
	clear(c.tool.Actions[:cap(c.tool.Actions)])
	clear(c.tool.Details[:cap(c.tool.Details)])
	c.issues = keepUpTo(c.issues, maxChunk)
	c.tool = ToolError{Actions: keepUpTo(c.tool.Actions, maxChunk), Details: keepUpTo(c.tool.Details, maxChunk)}
	calls.Put(c)
}

var exports = map[string]func(*call, []byte) *abi.Error{
	"tool_error":        callToolError,
	"simple_error":      callSimpleError,
	"required_field":    callRequiredField,
	"internal_error":    callInternalError,
	"rate_limited":      callRateLimited,
	"server_busy":       callServerBusy,
	"escape":            callEscape,
	"format_validation": callFormatValidation,
	"validate":          callValidate,
	"contract_lock":     callContractLock,
	"contract_diff":     callContractDiff,
	"parse":             callParse,
	"describe":          callDescribe,
}

// scratchText is the scratch buffer as a string, for writing it out before
// the scratch buffer is used again.
func (c *call) scratchText() string {
	return unsafe.String(unsafe.SliceData(c.scratch), len(c.scratch))
}

// toolResult writes an MCP CallToolResult holding one text block.
func (c *call) toolResult(text string, isError bool) {
	// Room for the text and what escaping usually adds, so that a large
	// response is written without moving (a move leaves the old copy as
	// garbage the size of the response).
	c.out = slices.Grow(c.out, len(text)+len(text)/8+64)
	w := jsonWriter{b: c.out}
	w.raw(`{"content":[{"type":"text","text":`)
	w.str(text)
	w.raw(`}],"isError":`)
	w.boolean(isError)
	w.byte('}')
	c.out = w.b
}

func callToolError(c *call, input []byte) *abi.Error {
	r, err := c.decode("tool_error", input, "code", "message", "suggestion", "availableActions", "severity", "details", "retryAfter")
	if err != nil {
		return err
	}
	t := &c.tool
	*t = ToolError{Actions: t.Actions[:0], Details: t.Details[:0]}
	if err := r.toolError(t); err != nil {
		return err
	}
	c.scratch = appendToolError(slices.Grow(c.scratch[:0], t.renderedSize()), t)
	c.toolResult(c.scratchText(), t.IsError())
	return nil
}

// toolError reads the request into t, whose slices it appends to.
func (r *request) toolError(t *ToolError) *abi.Error {
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
	if s, err := r.optionalString(o, "", "suggestion"); err != nil {
		return err
	} else if s != nil {
		t.Suggestion = *s
	}
	if a := present(o, "availableActions"); a != nil {
		if a.Kind != KindArray {
			return r.wrongType("availableActions", "an array of strings", a)
		}
		for i, item := range a.Arr {
			if item.Kind != KindString {
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
		if d.Kind != KindObject {
			return r.wrongType("details", "an object", d)
		}
		t.Details = slices.Grow(t.Details, len(d.Members))
		for _, m := range d.Members {
			switch m.Value.Kind {
			case KindString, KindNumber, KindBool:
				t.Details = append(t.Details, Detail{m.Key, m.Value})
			default:
				return r.wrongType("details."+m.Key, "a string, number or boolean", m.Value)
			}
		}
	}
	if v := present(o, "retryAfter"); v != nil {
		if v.Kind != KindNumber {
			return r.wrongType("retryAfter", "a number", v)
		}
		t.RetryAfter = v.Num
	}
	return nil
}

func callSimpleError(c *call, input []byte) *abi.Error {
	r, err := c.decode("simple_error", input, "message", "code")
	if err != nil {
		return err
	}
	message, err := r.requiredString(r.obj, "", "message")
	if err != nil {
		return err
	}
	code, err := r.optionalString(r.obj, "", "code")
	if err != nil {
		return err
	}
	c.toolResult(RenderSimpleError(message, code), true)
	return nil
}

func callRequiredField(c *call, input []byte) *abi.Error {
	r, err := c.decode("required_field", input, "field")
	if err != nil {
		return err
	}
	field, err := r.requiredString(r.obj, "", "field")
	if err != nil {
		return err
	}
	c.toolResult(RenderRequiredField(field), true)
	return nil
}

func callInternalError(c *call, input []byte) *abi.Error {
	r, err := c.decode("internal_error", input, "message", "tool", "action")
	if err != nil {
		return err
	}
	message, err := r.requiredString(r.obj, "", "message")
	if err != nil {
		return err
	}
	tool, err := r.optionalString(r.obj, "", "tool")
	if err != nil {
		return err
	}
	action, err := r.optionalString(r.obj, "", "action")
	if err != nil {
		return err
	}
	var toolName, actionName string
	if tool != nil {
		toolName = *tool
	}
	if action != nil {
		actionName = *action
	}
	if actionName != "" && toolName == "" {
		return r.fail(`"action" needs "tool"`)
	}
	t := InternalError(message, toolName, actionName)
	c.toolResult(RenderToolError(t), true)
	return nil
}

func callRateLimited(c *call, input []byte) *abi.Error {
	r, err := c.decode("rate_limited", input, "max", "windowSeconds", "retryAfter", "key")
	if err != nil {
		return err
	}
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
	c.toolResult(RenderToolError(RateLimited(max, window, retry, k)), true)
	return nil
}

func callServerBusy(c *call, input []byte) *abi.Error {
	r, err := c.decode("server_busy", input, "tool", "active", "queued")
	if err != nil {
		return err
	}
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
	c.toolResult(RenderToolError(ServerBusy(tool, active, queued)), true)
	return nil
}

func callEscape(c *call, input []byte) *abi.Error {
	r, err := c.decode("escape", input, "text", "context")
	if err != nil {
		return err
	}
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
	out := EscapeContent(text)
	if context == "attribute" {
		out = EscapeAttribute(text)
	}
	w := jsonWriter{b: c.out}
	w.raw(`{"text":`)
	w.str(out)
	w.byte('}')
	c.out = w.b
	return nil
}

// Dialects are the validator output shapes format_validation reads.
var Dialects = []string{"zod", "pydantic", "jsonschema"}

func callFormatValidation(c *call, input []byte) *abi.Error {
	r, err := c.decode("format_validation", input, "action", "issues", "args", "dialect", "contract", "schema")
	if err != nil {
		return err
	}
	action, err := r.requiredString(r.obj, "", "action")
	if err != nil {
		return err
	}
	dialect := "zod"
	if d, err := r.optionalString(r.obj, "", "dialect"); err != nil {
		return err
	} else if d != nil {
		if err := r.oneOf("dialect", *d, Dialects...); err != nil {
			return err
		}
		dialect = *d
	}
	issuesValue := r.obj.Get("issues")
	if issuesValue == nil {
		return r.fail(`"issues" is required`)
	}
	if dialect == "jsonschema" && issuesValue.Kind == KindObject && issuesValue.Get("errors") != nil {
		issuesValue = issuesValue.Get("errors") // a whole basic-output object
	}
	if issuesValue.Kind != KindArray {
		return r.wrongType("issues", "an array", issuesValue)
	}
	for i, item := range issuesValue.Arr {
		if item.Kind != KindObject {
			return r.wrongType("issues["+strconv.Itoa(i)+"]", "an object", item)
		}
	}
	schema := present(r.obj, "schema")
	if schema != nil && dialect != "jsonschema" {
		return r.fail(`"schema" is only read with dialect "jsonschema"`)
	}
	args := r.obj.Get("args")
	var issues []Issue
	switch dialect {
	case "pydantic":
		issues = pydanticIssues(issuesValue.Arr, args)
	case "jsonschema":
		issues = jsonSchemaIssues(issuesValue.Arr, schema, args)
	default:
		issues = c.issues[:0]
		for _, item := range issuesValue.Arr {
			issues = append(issues, ZodIssue(item))
		}
		c.issues = issues
	}
	awareness, err := r.contract(action)
	if err != nil {
		return err
	}
	c.scratch = appendValidationError(c.scratch[:0], &c.line, action, issues, args, awareness)
	c.toolResult(c.scratchText(), true)
	return nil
}

// DeltaSeverities are the severities a contract delta may have, most
// severe first.
var DeltaSeverities = []string{"BREAKING", "RISKY", "SAFE", "COSMETIC"}

// contract reads the optional "contract" member; the action defaults to
// the validation error's.
func (r *request) contract(action string) (*ContractAwareness, *abi.Error) {
	c := present(r.obj, "contract")
	if c == nil {
		return nil, nil
	}
	if c.Kind != KindObject {
		return nil, r.wrongType("contract", "an object", c)
	}
	if err := r.known(c, "contract.", []string{"tool", "action", "deltas", "maxDeltas", "includeAllSeverities", "lockfile", "tools"}); err != nil {
		return nil, err
	}
	a := &ContractAwareness{Action: action, MaxDeltas: DefaultMaxDeltas}
	var err *abi.Error
	if a.Tool, err = r.requiredString(c, "contract.", "tool"); err != nil {
		return nil, err
	}
	if s, err := r.optionalString(c, "contract.", "action"); err != nil {
		return nil, err
	} else if s != nil {
		a.Action = *s
	}
	if m := present(c, "maxDeltas"); m != nil {
		if m.Kind != KindNumber || m.Num < 0 || m.Num != float64(int(m.Num)) {
			return nil, r.fail(`"contract.maxDeltas" must be a non-negative integer`)
		}
		a.MaxDeltas = int(m.Num)
	}
	if inc := present(c, "includeAllSeverities"); inc != nil {
		if inc.Kind != KindBool {
			return nil, r.wrongType("contract.includeAllSeverities", "a boolean", inc)
		}
		a.IncludeAllSeverities = inc.Bool
	}
	deltas := c.Get("deltas")
	if lock := c.Get("lockfile"); lock != nil || c.Get("tools") != nil {
		// The deltas are computed here: the locked contract against the
		// tools the server offers now.
		if deltas != nil {
			return nil, r.fail(`give "contract.deltas" or "contract.lockfile" with "contract.tools", not both`)
		}
		before, err := r.readContract("contract.lockfile", lock)
		if err != nil {
			return nil, err
		}
		after, err := r.readContract("contract.tools", c.Get("tools"))
		if err != nil {
			return nil, err
		}
		a.Deltas = cachedDiff(before, after)
		return a, nil
	}
	if deltas == nil {
		return nil, r.fail(`"contract.deltas" is required`)
	}
	if deltas.Kind != KindArray {
		return nil, r.wrongType("contract.deltas", "an array", deltas)
	}
	for i, dv := range deltas.Arr {
		prefix := "contract.deltas[" + strconv.Itoa(i) + "]."
		if dv.Kind != KindObject {
			return nil, r.wrongType(prefix[:len(prefix)-1], "an object", dv)
		}
		if err := r.known(dv, prefix, []string{"category", "field", "severity", "description", "before", "after"}); err != nil {
			return nil, err
		}
		var d Delta
		if s, err := r.optionalString(dv, prefix, "category"); err != nil {
			return nil, err
		} else if s != nil {
			d.Category = *s
		}
		if d.Field, err = r.requiredString(dv, prefix, "field"); err != nil {
			return nil, err
		}
		if d.Severity, err = r.requiredString(dv, prefix, "severity"); err != nil {
			return nil, err
		}
		if err := r.oneOf(prefix+"severity", d.Severity, DeltaSeverities...); err != nil {
			return nil, err
		}
		if d.Description, err = r.requiredString(dv, prefix, "description"); err != nil {
			return nil, err
		}
		if d.Before, err = r.optionalString(dv, prefix, "before"); err != nil {
			return nil, err
		}
		if d.After, err = r.optionalString(dv, prefix, "after"); err != nil {
			return nil, err
		}
		a.Deltas = append(a.Deltas, d)
	}
	return a, nil
}

func callParse(c *call, input []byte) *abi.Error {
	r, err := c.decode("parse", input, "text", "result")
	if err != nil {
		return err
	}
	text, hasText, err := r.parseSource()
	if err != nil {
		return err
	}
	var env *Envelope
	if hasText {
		env = Parse(text)
	} else {
		env = r.parseResult()
	}
	w := jsonWriter{b: c.out}
	w.raw(`{"envelope":`)
	writeEnvelope(&w, env)
	w.byte('}')
	c.out = w.b
	return nil
}

// parseSource reads exactly one of "text" and "result".
func (r *request) parseSource() (string, bool, *abi.Error) {
	text, result := r.obj.Get("text"), r.obj.Get("result")
	switch {
	case text != nil && result != nil:
		return "", false, r.fail(`give either "text" or "result", not both`)
	case text != nil:
		if text.Kind != KindString {
			return "", false, r.wrongType("text", "a string", text)
		}
		return text.Str, true, nil
	case result == nil:
		return "", false, r.fail(`"text" or "result" is required`)
	case result.Kind != KindObject:
		return "", false, r.wrongType("result", "an object", result)
	}
	content := result.Get("content")
	if content == nil {
		return "", false, r.fail(`"result.content" is required`)
	}
	if content.Kind != KindArray {
		return "", false, r.wrongType("result.content", "an array", content)
	}
	for i, block := range content.Arr {
		if block.Kind != KindObject {
			return "", false, r.wrongType("result.content["+strconv.Itoa(i)+"]", "an object", block)
		}
	}
	return "", false, nil
}

// parseResult reads the first text block of the result that holds an
// envelope.
func (r *request) parseResult() *Envelope {
	for _, block := range r.obj.Get("result").Get("content").Arr {
		if t, ok := str(block, "type"); !ok || t != "text" {
			continue
		}
		if text, ok := str(block, "text"); ok {
			if env := Parse(text); env != nil {
				return env
			}
		}
	}
	return nil
}

func writeOptionalString(w *jsonWriter, s *string) {
	if s == nil {
		w.raw("null")
	} else {
		w.str(*s)
	}
}

func writeEnvelope(w *jsonWriter, env *Envelope) {
	if env == nil {
		w.raw("null")
		return
	}
	if t := env.ToolError; t != nil {
		w.raw(`{"kind":"tool_error","code":`)
		w.str(t.Code)
		w.raw(`,"severity":`)
		w.str(t.Severity)
		w.raw(`,"isError":`)
		w.boolean(t.Severity != "warning")
		w.raw(`,"message":`)
		w.str(t.Message)
		w.raw(`,"recovery":`)
		writeOptionalString(w, t.Recovery)
		w.raw(`,"availableActions":[`)
		for i, a := range t.Actions {
			if i > 0 {
				w.byte(',')
			}
			w.str(a)
		}
		w.raw(`],"details":{`)
		for i, d := range t.Details {
			w.key(d.Key, i == 0)
			w.str(d.Value)
		}
		w.raw(`},"retryAfter":`)
		if t.RetryAfter == nil {
			w.raw("null")
		} else {
			w.num(*t.RetryAfter)
		}
		w.byte('}')
		return
	}
	v := env.Validation
	w.raw(`{"kind":"validation_error","action":`)
	w.str(v.Action)
	w.raw(`,"fields":[`)
	for i, f := range v.Fields {
		if i > 0 {
			w.byte(',')
		}
		w.raw(`{"name":`)
		w.str(f.Name)
		w.raw(`,"message":`)
		w.str(f.Message)
		w.byte('}')
	}
	w.raw(`],"recovery":`)
	writeOptionalString(w, v.Recovery)
	w.raw(`,"contract":`)
	if c := v.Contract; c == nil {
		w.raw("null")
	} else {
		w.raw(`{"tool":`)
		w.str(c.Tool)
		w.raw(`,"action":`)
		w.str(c.Action)
		w.raw(`,"changeCount":`)
		w.num(float64(c.ChangeCount))
		w.raw(`,"maxSeverity":`)
		w.str(c.MaxSeverity)
		w.raw(`,"changes":[`)
		for i, ch := range c.Changes {
			if i > 0 {
				w.byte(',')
			}
			w.raw(`{"severity":`)
			w.str(ch.Severity)
			w.raw(`,"field":`)
			w.str(ch.Field)
			w.raw(`,"description":`)
			w.str(ch.Description)
			w.raw(`,"before":`)
			writeOptionalString(w, ch.Before)
			w.raw(`,"after":`)
			writeOptionalString(w, ch.After)
			w.byte('}')
		}
		w.raw("]}")
	}
	w.byte('}')
}

func callDescribe(c *call, input []byte) *abi.Error {
	if _, err := c.decode("describe", input); err != nil {
		return err
	}
	w := jsonWriter{b: c.out}
	w.raw(`{"abiVersion":`)
	w.str(abi.Version)
	w.raw(`,"version":`)
	w.str(abi.ModuleVersion)
	w.raw(`,"exports":[`)
	for i, e := range abi.Exports {
		if i > 0 {
			w.byte(',')
		}
		w.str(e.Name)
	}
	w.raw(`],"codes":[`)
	for i, c := range abi.CanonicalCodes {
		if i > 0 {
			w.byte(',')
		}
		w.str(c)
	}
	w.raw(`],"severities":[`)
	for i, s := range abi.Severities {
		if i > 0 {
			w.byte(',')
		}
		w.str(s)
	}
	w.raw(`],"dialects":[`)
	for i, d := range Dialects {
		if i > 0 {
			w.byte(',')
		}
		w.str(d)
	}
	w.raw(`],"limits":{"maxRequestBytes":`)
	w.num(abi.MaxRequestBytes)
	w.raw(`,"maxDepth":`)
	w.num(abi.MaxDepth)
	w.raw(`,"maxValues":`)
	w.num(abi.MaxValues)
	w.raw("}}")
	c.out = w.b
	return nil
}

// ErrorJSON encodes err as the ABI error object {"code","message"}.
func ErrorJSON(err *abi.Error) []byte {
	w := jsonWriter{}
	w.raw(`{"code":`)
	w.str(err.Code)
	w.raw(`,"message":`)
	w.str(err.Message)
	w.byte('}')
	return w.b
}
