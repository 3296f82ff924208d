package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/abi"
)

// Heal makes every tool of s answer failures with the contract's envelopes,
// whether it was added with the typed mcp.AddTool or with Server.AddTool:
//
//   - the arguments of a tools/call are checked against the tool's
//     inputSchema by the contract's validate (on the Native engine unless
//     Options.IsolatedChecks) before the SDK or the handler sees them;
//     invalid arguments get the <validation_error> and the handler is not
//     called;
//   - a handler that returns or panics with a *ErrorBuilder delivers its
//     envelope intact (warnings with IsError false);
//   - any other returned error or panic becomes INTERNAL_ERROR naming the
//     tool, with the error's message and no stack trace;
//   - a call to a tool the server does not have gets UNKNOWN_ACTION (the
//     module's unknown_tool: the name called and the server's tools) as
//     an isError result, instead of the SDK's JSON-RPC error (HealOptions
//     keeps that error instead, if asked);
//   - results the handler built itself pass through unchanged.
//
// Call it once, before serving; it adds a receiving middleware to s.
//
// # Notes
//   - The schema is the one tools/list advertises, read through the
//     server's own tools/list handler, so a tool replaced later is checked
//     against its new schema.
//   - If the module cannot check the arguments (a schema it cannot compile,
//     say), the call goes on to the SDK's own validation unchanged; if they
//     are too large to check beside their schema (validate's
//     REQUEST_TOO_LARGE), they get the stdio gate's too-large
//     <validation_error> (ArgumentsTooLarge).
//   - Heal cannot reach the transport: lines the SDK cannot read (a line
//     that is not JSON-RPC ends its connection; arguments nested 1,000
//     levels, a number beyond a float64) never reach a middleware. Serve
//     the healed server on h.GatedStdio() instead of &mcp.StdioTransport{}
//     and the module's stdio gate answers them.
func (h *Host) Heal(s *mcp.Server) { h.HealWith(s, HealOptions{}) }

// HealOptions adds to what Heal does.
type HealOptions struct {
	// Contract, when set, returns what changed in a tool's contract since
	// the client last calibrated (the deltas of ContractDiff against a
	// lockfile); a validation error of that tool then carries the
	// <contract_awareness> block. nil means none.
	Contract func(tool string) *abi.Contract
	// UnknownTool is how a call to a tool the server does not have is
	// answered: UnknownToolEnvelope (the zero value) or
	// UnknownToolProtocolError.
	UnknownTool UnknownToolAnswer
}

// UnknownToolAnswer is how a healed server answers a call to a tool it does
// not have.
type UnknownToolAnswer int

const (
	// UnknownToolEnvelope answers with an isError result holding the
	// UNKNOWN_ACTION envelope, which lists the server's tools: the default,
	// since a model reads a tool result and can choose again (SEP-1303 made
	// argument errors tool results for that reason), while a JSON-RPC error
	// ends the call for it.
	UnknownToolEnvelope UnknownToolAnswer = iota
	// UnknownToolProtocolError keeps the SDK's own JSON-RPC error
	// (-32602 "unknown tool").
	UnknownToolProtocolError
)

// HealWith is Heal with options.
func (h *Host) HealWith(s *mcp.Server, opts HealOptions) {
	hs := &healer{host: h, opts: opts, schemas: map[*mcp.Tool]json.RawMessage{}}
	s.AddReceivingMiddleware(hs.middleware)
}

// healer is the state of one healed server: the tools' schemas as JSON,
// by tool, so that each call need not marshal its schema again.
type healer struct {
	host    *Host
	opts    HealOptions
	mu      sync.Mutex
	schemas map[*mcp.Tool]json.RawMessage
}

// maxCachedSchemas bounds the schema cache of a server whose tools are
// replaced again and again.
const maxCachedSchemas = 1024

func (hs *healer) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		return hs.callTool(ctx, next, method, call)
	}
}

// callTool runs one tools/call with the arguments checked first and the
// handler's failures rendered.
func (hs *healer) callTool(ctx context.Context, next mcp.MethodHandler, method string, call *mcp.CallToolRequest) (res mcp.Result, err error) {
	name := call.Params.Name
	ours := func(r *mcp.CallToolResult, err error) (mcp.Result, error) { return completed(call, r), err }
	tool, tools := hs.find(ctx, next, call)
	if tool == nil && tools != nil && hs.opts.UnknownTool == UnknownToolEnvelope {
		if r, err := hs.host.UnknownTool(ctx, abi.UnknownToolRequest{Tool: name, Tools: tools}); err == nil {
			return ours(ToMCP(r), nil)
		}
	}
	if invalid := hs.checkArguments(ctx, call, tool); invalid != nil {
		return ours(invalid, nil)
	}
	defer func() {
		if p := recover(); p != nil {
			perr, ok := p.(error)
			if !ok {
				perr = fmt.Errorf("%v", p)
			}
			res, err = ours(hs.host.errorResult(ctx, name, perr))
		}
	}()
	res, err = next(ctx, method, call)
	if err != nil {
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			return res, err // a protocol answer, such as an unknown tool
		}
		return ours(hs.host.errorResult(ctx, name, err))
	}
	result, ok := res.(*mcp.CallToolResult)
	if !ok || result == nil || result.GetError() == nil {
		return res, nil
	}
	failure := result.GetError()
	if sdkRefusedArguments(failure) {
		return ours(hs.refusedArguments(ctx, name, call.Params.Arguments, failure))
	}
	return ours(hs.host.errorResult(ctx, name, failure))
}

// completed is r, a result heal made in place of the SDK's, saying
// "resultType":"complete" when call is of the stateless protocol (MCP
// 2026-07-28), which requires it of every result: the SDK stamps the
// results of a tool's handler so, but not a middleware's, and the Python
// SDK's client refuses a result without it. The SDK keeps the field
// unexported, so the result is made again from its JSON with it.
func completed(call *mcp.CallToolRequest, r *mcp.CallToolResult) *mcp.CallToolResult {
	if r == nil || call.ProtocolVersion() < statelessVersion {
		return r
	}
	b, err := json.Marshal(r)
	if err != nil || len(b) < 2 {
		return r
	}
	b = append(b[:len(b)-1], `,"resultType":"complete"}`...)
	var out mcp.CallToolResult
	if json.Unmarshal(b, &out) != nil {
		return r
	}
	return &out
}

// statelessVersion is the first version of the stateless protocol.
const statelessVersion = "2026-07-28"

// checkArguments returns the <validation_error> result for arguments that
// fail the tool's inputSchema, and nil when they pass or cannot be checked
// (tool nil: no such tool, or the list could not be read).
func (hs *healer) checkArguments(ctx context.Context, call *mcp.CallToolRequest, tool *mcp.Tool) *mcp.CallToolResult {
	if tool == nil {
		return nil
	}
	schema := hs.schemaJSON(tool)
	if schema == nil {
		return nil
	}
	req := abi.ValidateRequest{Action: call.Params.Name, Schema: schema, Args: call.Params.Arguments}
	if hs.opts.Contract != nil {
		req.Contract = hs.opts.Contract(call.Params.Name)
	}
	invalid, err := hs.host.checker().Validate(ctx, req)
	if abiErr := (*abi.Error)(nil); errors.As(err, &abiErr) && abiErr.Code == abi.CodeRequestTooLarge {
		// Arguments that fit a message but not a check beside their schema:
		// too large, not a failure of the server.
		invalid, err = hs.host.ArgumentsTooLarge(ctx, call.Params.Name, len(call.Params.Arguments))
	}
	if err != nil || invalid == nil {
		return nil
	}
	return ToMCP(invalid)
}

// find finds the named tool through the server's tools/list handler, so a
// tool replaced later is found as it is now. When there is no such tool,
// tools is every tool's name, in the server's order (nil when the list
// could not be read).
func (hs *healer) find(ctx context.Context, next mcp.MethodHandler, call *mcp.CallToolRequest) (tool *mcp.Tool, tools []string) {
	params := &mcp.ListToolsParams{}
	names := []string{}
	for {
		res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: call.Session, Params: params, Extra: call.Extra})
		list, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || list == nil {
			return nil, nil
		}
		for _, t := range list.Tools {
			if t == nil {
				continue
			}
			if t.Name == call.Params.Name {
				return t, nil
			}
			names = append(names, t.Name)
		}
		if list.NextCursor == "" {
			return nil, names
		}
		params = &mcp.ListToolsParams{Cursor: list.NextCursor}
	}
}

func (hs *healer) schemaJSON(tool *mcp.Tool) json.RawMessage {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if schema, ok := hs.schemas[tool]; ok {
		return schema
	}
	schema, err := json.Marshal(tool.InputSchema)
	if err != nil || tool.InputSchema == nil {
		return nil
	}
	if len(hs.schemas) >= maxCachedSchemas {
		clear(hs.schemas)
	}
	hs.schemas[tool] = schema
	return schema
}

// sdkRefusedArguments reports whether the typed handler's error is the
// SDK's own refusal of the arguments (its schema check or unmarshalling),
// which the module's check let through.
func sdkRefusedArguments(err error) bool {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	return strings.HasPrefix(err.Error(), `validating "arguments"`) || errors.As(err, &typeErr) || errors.As(err, &syntaxErr)
}

// refusedArguments renders the SDK's refusal as a <validation_error> on the
// arguments as a whole: the model is told to fix them, not that the server
// failed.
func (hs *healer) refusedArguments(ctx context.Context, tool string, args json.RawMessage, refusal error) (*mcp.CallToolResult, error) {
	issues, err := json.Marshal([]map[string]any{{"code": "custom", "path": []any{}, "message": refusal.Error()}})
	if err != nil {
		return nil, err
	}
	r, err := hs.host.FormatValidation(ctx, abi.FormatValidationRequest{Action: tool, Issues: issues, Args: args})
	if err != nil {
		return hs.host.errorResult(ctx, tool, refusal)
	}
	return ToMCP(r), nil
}

// MCP converts what a renderer returns into the MCP Go SDK's result, so that
// a handler can return it as it is:
//
//	return host.MCP(host.NewError("NOT_FOUND", "No invoice with that ID").Render(ctx, h))
//	if res, err := host.MCP(h.Validate(ctx, req)); res != nil || err != nil { return res, err }
//
// A nil result (Validate's answer for valid arguments) stays nil.
func MCP(r *abi.CallToolResult, err error) (*mcp.CallToolResult, error) {
	if err != nil || r == nil {
		return nil, err
	}
	return ToMCP(r), nil
}
