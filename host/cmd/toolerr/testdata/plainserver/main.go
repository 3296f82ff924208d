// Command plainserver is an MCP server that knows nothing of toolerr: raw
// Server.AddTool handlers with JSON Schemas, plain-text failures, a
// JSON-RPC error, and tools that crash, hang or write garbage. The proxy's
// tests put `toolerr proxy` in front of it.
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// orderSchema is orders.create's inputSchema; the proxy's tests read the
// same file.
//
//go:embed orders.schema.json
var orderSchema string

func text(s string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isError}
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "plainserver", Version: "0.1.0"}, &mcp.ServerOptions{Instructions: "Orders, plainly."})
	empty := json.RawMessage(`{"type":"object"}`)
	add := func(name string, schema json.RawMessage, h mcp.ToolHandler) {
		server.AddTool(&mcp.Tool{Name: name, Description: "the " + name + " tool", InputSchema: schema}, h)
	}
	add("orders.create", json.RawMessage(orderSchema), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			SKU string `json:"sku"`
			Qty int    `json:"qty"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return text("bad arguments: "+err.Error(), true), nil
		}
		return text(fmt.Sprintf(`{"created":%q,"qty":%d}`, in.SKU, in.Qty), false), nil
	})
	add("orders.fail", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("database is down", true), nil
	})
	add("orders.rpcfail", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("ledger unreachable")
	})
	add("orders.envelope", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("<tool_error code=\"CONFLICT\" severity=\"error\">\n<message>Order already shipped</message>\n</tool_error>", true), nil
	})
	add("orders.more", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		server.AddTool(&mcp.Tool{Name: "orders.extra", Description: "added later", InputSchema: empty}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("extra", false), nil
		})
		return text("added orders.extra", false), nil
	})
	add("fault.crash", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		os.Exit(3)
		return nil, nil
	})
	add("fault.hang", empty, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	add("fault.garbage", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		os.Stdout.WriteString("this is not JSON-RPC\n")
		// Routable, but not JSON: a NaN, as Python's json.dumps writes one.
		os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":NaN}}` + "\n")
		return text("still here", false), nil
	})
	add("fault.huge", empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(strings.Repeat("0123456789abcdef", 4<<20+1), false), nil // over 64 MiB, the proxy's line limit
	})
	server.AddPrompt(&mcp.Prompt{Name: "greet", Description: "a greeting"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
	})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
}
