package testutil

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallText calls tool with args (JSON text) on cs and returns the text of
// its answer, which must be one text block, and isError; an error of the
// call itself fails the test.
func CallText(t testing.TB, cs *mcp.ClientSession, tool, args string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s %s: %d content blocks", tool, args, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s %s: a %T block", tool, args, res.Content[0])
	}
	return text.Text, res.IsError
}
