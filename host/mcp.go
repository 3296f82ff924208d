package host

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/abi"
)

// ToMCP converts a rendered result into the MCP Go SDK's type.
func ToMCP(r *abi.CallToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError, Content: make([]mcp.Content, 0, len(r.Content))}
	for _, c := range r.Content {
		out.Content = append(out.Content, &mcp.TextContent{Text: c.Text})
	}
	return out
}

// FromMCP keeps the text blocks of an MCP SDK result.
func FromMCP(r *mcp.CallToolResult) *abi.CallToolResult {
	out := &abi.CallToolResult{IsError: r.IsError, Content: []abi.Content{}}
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			out.Content = append(out.Content, abi.Content{Type: "text", Text: t.Text})
		}
	}
	return out
}

// Wrap guards an MCP tool handler: a returned or panicked *ErrorBuilder is
// rendered intact; any other error or panic becomes an INTERNAL_ERROR
// envelope naming the tool, with the error's message and no stack trace.
func (h *Host) Wrap(tool string, handler mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if p := recover(); p != nil {
				perr, ok := p.(error)
				if !ok {
					perr = fmt.Errorf("%v", p)
				}
				res, err = h.errorResult(ctx, tool, perr)
			}
		}()
		res, err = handler(ctx, req)
		if err != nil {
			return h.errorResult(ctx, tool, err)
		}
		return res, nil
	}
}

// errorResult renders what a handler failed with.
func (h *Host) errorResult(ctx context.Context, tool string, failure error) (*mcp.CallToolResult, error) {
	var built *ErrorBuilder
	if errors.As(failure, &built) {
		r, err := built.Render(ctx, h)
		if err == nil {
			return ToMCP(r), nil
		}
		failure = fmt.Errorf("tool error %s could not be rendered: %w", built.req.Code, err)
	}
	r, err := h.InternalError(ctx, abi.InternalErrorRequest{Message: failure.Error(), Tool: tool})
	if err != nil {
		return nil, fmt.Errorf("toolerr: rendering internal error: %w", err)
	}
	return ToMCP(r), nil
}

// ClientError is a tool's failure as a client sees it: the module's
// check_result projection of an isError result.
type ClientError struct {
	Kind             string // "tool_error", "validation_error", or "" when the result held no envelope
	Code             string // VALIDATION_ERROR for a validation error, UNKNOWN without an envelope
	Severity         string
	Message          string
	Recovery         *string
	AvailableActions []string
	Details          abi.Details
	RetryAfter       *float64
	Action           string              // of a validation error
	Fields           []abi.Field         // of a validation error
	Contract         *abi.ParsedContract // of a validation error that carries contract awareness
	Raw              *mcp.CallToolResult
}

func (e *ClientError) Error() string {
	msg := e.Code + ": " + e.Message
	if e.Recovery != nil {
		msg += " (recovery: " + *e.Recovery + ")"
	}
	return msg
}

// CheckResult returns nil for a successful result (warnings included) and a
// *ClientError for an isError result, as the module's check_result projects
// it: a tool error's own code and message; VALIDATION_ERROR and "invalid
// arguments for ACTION: fields" for a validation error; Code "UNKNOWN" and
// the first text block as Message when there is no envelope.
func (h *Host) CheckResult(ctx context.Context, res *mcp.CallToolResult) error {
	if res == nil {
		return nil
	}
	var resp abi.CheckResultResponse
	if err := h.callJSON(ctx, "check_result", abi.CheckResultRequest{Result: FromMCP(res)}, &resp); err != nil {
		return err
	}
	p := resp.ClientError
	if p == nil {
		return nil
	}
	return &ClientError{
		Kind: p.Kind, Code: p.Code, Severity: p.Severity, Message: p.Message, Recovery: p.Recovery,
		AvailableActions: p.AvailableActions, Details: p.Details, RetryAfter: p.RetryAfter,
		Action: p.Action, Fields: p.Fields, Contract: p.Contract, Raw: res,
	}
}
