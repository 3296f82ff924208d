package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/toolerr/toolerr/abi"
)

// ToolError renders a <tool_error> envelope. Warnings come back with
// IsError false: they ride the success path.
func (h *Host) ToolError(ctx context.Context, req abi.ToolErrorRequest) (*abi.CallToolResult, error) {
	return h.result(ctx, "tool_error", req)
}

// SimpleError renders the reference's error() (docs/CONTRACT.md,
// "Envelopes"): a message and, when code is not nil, a code attribute.
func (h *Host) SimpleError(ctx context.Context, message string, code *string) (*abi.CallToolResult, error) {
	return h.result(ctx, "simple_error", abi.SimpleErrorRequest{Message: message, Code: code})
}

// RequiredField renders the MISSING_REQUIRED_FIELD envelope for field.
func (h *Host) RequiredField(ctx context.Context, field string) (*abi.CallToolResult, error) {
	return h.result(ctx, "required_field", abi.RequiredFieldRequest{Field: field})
}

// InternalError renders the envelope for an unmarked failure in a handler;
// its recovery tells the model not to blindly retry.
func (h *Host) InternalError(ctx context.Context, req abi.InternalErrorRequest) (*abi.CallToolResult, error) {
	return h.result(ctx, "internal_error", req)
}

// UnknownTool renders the UNKNOWN_ACTION envelope for a call to a tool
// that does not exist: the name called and the server's tools, the
// closest to that name first (a nil Tools is sent as none).
func (h *Host) UnknownTool(ctx context.Context, req abi.UnknownToolRequest) (*abi.CallToolResult, error) {
	if req.Tools == nil {
		req.Tools = []string{}
	}
	return h.result(ctx, "unknown_tool", req)
}

// RateLimited renders the RATE_LIMITED envelope of a rate limiter.
func (h *Host) RateLimited(ctx context.Context, req abi.RateLimitedRequest) (*abi.CallToolResult, error) {
	return h.result(ctx, "rate_limited", req)
}

// ServerBusy renders the SERVER_BUSY envelope of a concurrency guard.
func (h *Host) ServerBusy(ctx context.Context, req abi.ServerBusyRequest) (*abi.CallToolResult, error) {
	return h.result(ctx, "server_busy", req)
}

// FormatValidation renders a <validation_error> from validator issues
// (Zod issue objects by default), echoing what was sent from req.Args.
func (h *Host) FormatValidation(ctx context.Context, req abi.FormatValidationRequest) (*abi.CallToolResult, error) {
	return h.result(ctx, "format_validation", req)
}

// Validate checks req.Args against req.Schema inside the module. A nil
// result means the arguments are valid; otherwise it is the
// <validation_error> to return, with req.Action as its action (and
// req.Contract's awareness block). Absent args are checked as {}.
func (h *Host) Validate(ctx context.Context, req abi.ValidateRequest) (*abi.CallToolResult, error) {
	if len(bytes.TrimSpace(req.Args)) == 0 {
		req.Args = json.RawMessage(`{}`)
	}
	// The request is written as it is (schema and args are JSON already),
	// not through encoding/json, which would re-read and re-write both on
	// every call: this is the check a healed server makes of each call.
	for _, part := range []struct {
		name string
		raw  json.RawMessage
	}{{"schema", req.Schema}, {"args", req.Args}} {
		if !json.Valid(part.raw) {
			return nil, abi.Errorf(abi.CodeInvalidRequest, "validate: %q is not one JSON value", part.name)
		}
	}
	action, _ := json.Marshal(req.Action) // a string always marshals
	body := make([]byte, 0, len(action)+len(req.Schema)+len(req.Args)+40)
	body = append(append(append(body, `{"action":`...), action...), `,"schema":`...)
	body = append(append(append(body, req.Schema...), `,"args":`...), req.Args...)
	if req.Contract != nil {
		contract, err := json.Marshal(req.Contract)
		if err != nil {
			return nil, abi.Errorf(abi.CodeInvalidRequest, "validate: contract: %v", err)
		}
		body = append(append(body, `,"contract":`...), contract...)
	}
	out, err := h.Call(ctx, "validate", append(body, '}'))
	if err != nil {
		return nil, err
	}
	if string(out) == `{"valid":true}` { // the everyday answer, read without decoding
		return nil, nil
	}
	var resp abi.ValidateResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, abi.Errorf(abi.CodeInternal, "validate: undecodable response: %v", err)
	}
	if resp.Valid {
		return nil, nil
	}
	return resp.Result, nil
}

// ContractLock returns the lockfile of tools: a JSON array of MCP Tool
// objects, a tools/list result, or a lockfile. tools must be exactly one
// JSON value; anything else is INVALID_REQUEST.
func (h *Host) ContractLock(ctx context.Context, tools json.RawMessage) (json.RawMessage, error) {
	if err := oneJSONValue("contract_lock", "tools", tools); err != nil {
		return nil, err
	}
	req, err := json.Marshal(struct {
		Tools json.RawMessage `json:"tools"`
	}{tools})
	if err != nil {
		return nil, abi.Errorf(abi.CodeInvalidRequest, "contract_lock: %v", err)
	}
	return h.Call(ctx, "contract_lock", req)
}

// ContractDiff compares two contracts (each a lockfile, a tools array or a
// tools/list result, and each exactly one JSON value).
func (h *Host) ContractDiff(ctx context.Context, before, after json.RawMessage) (*abi.ContractDiff, error) {
	out, err := h.ContractDiffJSON(ctx, before, after)
	if err != nil {
		return nil, err
	}
	var d abi.ContractDiff
	if err := json.Unmarshal(out, &d); err != nil {
		return nil, abi.Errorf(abi.CodeInternal, "contract_diff: undecodable response: %v", err)
	}
	return &d, nil
}

// ContractDiffJSON is ContractDiff with the response as the module wrote it.
func (h *Host) ContractDiffJSON(ctx context.Context, before, after json.RawMessage) (json.RawMessage, error) {
	if err := oneJSONValue("contract_diff", "before", before); err != nil {
		return nil, err
	}
	if err := oneJSONValue("contract_diff", "after", after); err != nil {
		return nil, err
	}
	req, err := json.Marshal(struct {
		Before json.RawMessage `json:"before"`
		After  json.RawMessage `json:"after"`
	}{before, after})
	if err != nil {
		return nil, abi.Errorf(abi.CodeInvalidRequest, "contract_diff: %v", err)
	}
	return h.Call(ctx, "contract_diff", req)
}

// oneJSONValue refuses a field that is not exactly one JSON value: text
// spliced into a request could otherwise add or override members (a file
// holding `[], "before": []` would replace the other side of a diff).
func oneJSONValue(export, field string, v json.RawMessage) error {
	if !json.Valid(v) {
		return abi.Errorf(abi.CodeInvalidRequest, "%s: %q is not one JSON value", export, field)
	}
	return nil
}

// Escape escapes text for an XML element body ("content") or a
// double-quoted attribute ("attribute").
func (h *Host) Escape(ctx context.Context, text, context string) (string, error) {
	var resp abi.EscapeResponse
	if err := h.callJSON(ctx, "escape", abi.EscapeRequest{Text: text, Context: context}, &resp); err != nil {
		return "", err
	}
	return resp.Text, nil
}

// Parse reads the first envelope in text; nil when there is none.
func (h *Host) Parse(ctx context.Context, text string) (*abi.Envelope, error) {
	var resp abi.ParseResponse
	if err := h.callJSON(ctx, "parse", abi.ParseRequest{Text: &text}, &resp); err != nil {
		return nil, err
	}
	return resp.Envelope, nil
}

// ParseResult reads the first envelope in the text blocks of result; nil
// when there is none.
func (h *Host) ParseResult(ctx context.Context, result *abi.CallToolResult) (*abi.Envelope, error) {
	if result.Content == nil {
		result = &abi.CallToolResult{Content: []abi.Content{}, IsError: result.IsError}
	}
	var resp abi.ParseResponse
	if err := h.callJSON(ctx, "parse", abi.ParseRequest{Result: result}, &resp); err != nil {
		return nil, err
	}
	return resp.Envelope, nil
}

// Gate applies the stdio gate to one line from a client (without its line
// feed): hand it on, hand on the line the gate rewrote, write the answer
// it gives back to the client instead, or ignore it (abi/ABI.md, "The
// stdio gate"). A line over the request limit is sent as its length and
// its first abi.GateHeadBytes bytes, as the ABI asks.
func (h *Host) Gate(ctx context.Context, line []byte) (*abi.GateResponse, error) {
	return h.GateHead(ctx, len(line), line)
}

// GateHead is Gate on a line of size bytes of which head holds the first:
// all of them, or, for a line a transport would not keep whole (over the
// request limit, or over a limit of its own), at least abi.GateHeadBytes
// of them or as many as it kept. Such a line goes to the gate as its size
// and its head, as the ABI asks.
func (h *Host) GateHead(ctx context.Context, size int, head []byte) (*abi.GateResponse, error) {
	request := head
	if size > len(head) || size > abi.MaxRequestBytes {
		request = strconv.AppendInt(make([]byte, 0, 24+min(len(head), abi.GateHeadBytes)), int64(size), 10)
		request = append(append(request, '\n'), head[:min(len(head), abi.GateHeadBytes, size-1)]...)
	}
	out, err := h.Call(ctx, "gate", request)
	if err != nil {
		return nil, err
	}
	if string(out) == `{"verdict":"pass"}` { // most lines, read without decoding
		return &abi.GateResponse{Verdict: abi.GatePass}, nil
	}
	var resp abi.GateResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, abi.Errorf(abi.CodeInternal, "gate: reading the response: %v", err)
	}
	return &resp, nil
}

// ArgumentsTooLarge renders the stdio gate's <validation_error> for a
// tool's arguments too large to check: what a host answers when validate
// refuses their request with REQUEST_TOO_LARGE (the arguments fit the
// request limit, but not with the schema beside them). size is the
// arguments' JSON text in bytes; the error measures the tools/call message
// that carries them (abi/ABI.md, "The stdio gate", "Arguments too large to
// check").
func (h *Host) ArgumentsTooLarge(ctx context.Context, tool string, size int) (*abi.CallToolResult, error) {
	name, err := json.Marshal(tool)
	if err != nil {
		return nil, abi.Errorf(abi.CodeInvalidRequest, "arguments too large: the tool name: %v", err)
	}
	head := append(append([]byte(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":`), name...), `,"arguments":`...)
	request := strconv.AppendInt(nil, int64(len(head)+size+len(`}}`)), 10)
	request = append(append(request, '\n'), head...)
	out, err := h.Call(ctx, "gate", request)
	if err != nil {
		return nil, err
	}
	var verdict abi.GateResponse
	var answer struct {
		Result *abi.CallToolResult `json:"result"`
	}
	if err := json.Unmarshal(out, &verdict); err != nil || verdict.Verdict != abi.GateAnswer {
		return nil, abi.Errorf(abi.CodeInternal, "arguments too large: the gate gave %s", out)
	}
	if err := json.Unmarshal([]byte(verdict.Response), &answer); err != nil || answer.Result == nil {
		return nil, abi.Errorf(abi.CodeInternal, "arguments too large: the gate answered %s", verdict.Response)
	}
	return answer.Result, nil
}

// ServerFailure decides what becomes of a server's failed answer to a
// tools/call (a result with isError true, or a JSON-RPC error): pass it on
// as it is, or send the Result it gives instead, a <tool_error> that keeps
// the server's words (abi/ABI.md, "server_failure"). req.Result or
// req.Error must be exactly one JSON value.
func (h *Host) ServerFailure(ctx context.Context, req abi.ServerFailureRequest) (*abi.ServerFailureResponse, error) {
	for name, v := range map[string]json.RawMessage{"result": req.Result, "error": req.Error} {
		if v != nil {
			if err := oneJSONValue("server_failure", name, v); err != nil {
				return nil, err
			}
		}
	}
	var resp abi.ServerFailureResponse
	if err := h.callJSON(ctx, "server_failure", req, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

func (h *Host) result(ctx context.Context, export string, req any) (*abi.CallToolResult, error) {
	var r abi.CallToolResult
	if err := h.callJSON(ctx, export, req, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ErrorBuilder is a tool error under construction, and an error in its own
// right: a handler can return it (or panic with it) and Wrap renders it
// intact.
//
//	return nil, host.NewError("NOT_FOUND", "No invoice with that ID").
//		Suggest("List invoices first, then retry with a real ID").
//		Actions("billing.list_invoices")
type ErrorBuilder struct {
	req abi.ToolErrorRequest
	err error // the first malformed Details call
}

// NewError starts a tool error with its code and message.
func NewError(code, message string) *ErrorBuilder {
	return &ErrorBuilder{req: abi.ToolErrorRequest{Code: code, Message: message}}
}

// Suggest sets the recovery the model should follow.
func (b *ErrorBuilder) Suggest(suggestion string) *ErrorBuilder {
	b.req.Suggestion = suggestion
	return b
}

// Actions appends tools the model may call next.
func (b *ErrorBuilder) Actions(actions ...string) *ErrorBuilder {
	b.req.AvailableActions = append(b.req.AvailableActions, actions...)
	return b
}

// Severity sets "error", "critical" or "warning".
func (b *ErrorBuilder) Severity(severity string) *ErrorBuilder {
	b.req.Severity = severity
	return b
}

// Details appends key/value details, in order: key, value, key, value...
// Keys are strings; values are strings, numbers or booleans. A call that
// breaks these rules is reported, naming the key, when the error is
// rendered.
func (b *ErrorBuilder) Details(keyValues ...any) *ErrorBuilder {
	for i := 0; i < len(keyValues); i += 2 {
		key, ok := keyValues[i].(string)
		switch {
		case !ok:
			b.fail(fmt.Errorf("details: key %v is a %T, not a string (Details takes key, value pairs)", keyValues[i], keyValues[i]))
		case i+1 >= len(keyValues):
			b.fail(fmt.Errorf("details: key %q has no value (Details takes key, value pairs)", key))
		default:
			b.req.Details = append(b.req.Details, abi.Detail{Key: key, Value: keyValues[i+1]})
		}
	}
	return b
}

// fail keeps the first mistake made while building, for Render to report.
func (b *ErrorBuilder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// RetryAfter sets the seconds to wait before retrying.
func (b *ErrorBuilder) RetryAfter(seconds float64) *ErrorBuilder {
	b.req.RetryAfter = seconds
	return b
}

// Request returns the tool_error request built so far.
func (b *ErrorBuilder) Request() abi.ToolErrorRequest { return b.req }

// Error describes the tool error for logs.
func (b *ErrorBuilder) Error() string { return b.req.Code + ": " + b.req.Message }

// Render renders the envelope through h. A malformed Details call is an
// INVALID_REQUEST naming the key.
func (b *ErrorBuilder) Render(ctx context.Context, h *Host) (*abi.CallToolResult, error) {
	if b.err != nil {
		return nil, abi.Errorf(abi.CodeInvalidRequest, "tool_error: %v", b.err)
	}
	return h.ToolError(ctx, b.req)
}

// MarshalJSON writes the builder as its tool_error request.
func (b *ErrorBuilder) MarshalJSON() ([]byte, error) { return json.Marshal(b.req) }
