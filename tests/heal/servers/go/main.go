// Command heal-go serves every tool of tests/heal/corpus.json over stdio with
// the MCP Go SDK's typed mcp.AddTool, each tool advertising its schema as its
// server published it and answering "ok" to arguments that reach it. With
// -plain it is the SDK alone (its own validation, its own texts); without,
// toolerr's two lines add what the README teaches: h.Heal(server), and the
// stdio transport behind the stdio gate. The heal bench (go run
// ./tests/heal) and make bench drive it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/host"
)

type corpus struct {
	Tools []struct {
		Tool        string          `json:"tool"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
}

func main() {
	corpusPath := flag.String("corpus", "tests/heal/corpus.json", "the corpus of tool schemas")
	plain := flag.Bool("plain", false, "serve without toolerr (the SDK's own answers)")
	flag.Parse()
	log.SetFlags(0)
	data, err := os.ReadFile(*corpusPath)
	if err != nil {
		log.Fatal(err)
	}
	var c corpus
	if err := json.Unmarshal(data, &c); err != nil {
		log.Fatalf("%s: %v", *corpusPath, err)
	}
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "heal-go", Version: "1.0.0"}, nil)
	var transport mcp.Transport = &mcp.StdioTransport{}
	if !*plain {
		h, err := host.New(ctx, host.Options{})
		if err != nil {
			log.Fatal(err)
		}
		defer h.Close(ctx)
		h.Heal(server)
		transport = h.GatedStdio()
	}
	for _, t := range c.Tools {
		mcp.AddTool(server, &mcp.Tool{Name: t.Tool, InputSchema: t.InputSchema}, ok)
	}
	if err := server.Run(ctx, transport); err != nil {
		log.Fatal(err)
	}
}

// ok is every tool's handler: arguments that reach it passed validation.
func ok(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
}
