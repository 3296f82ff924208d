package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callTimeout bounds one tools/call.
const callTimeout = 20 * time.Second

// Server is one running MCP server over stdio, driven by the Go SDK's
// client.
type Server struct {
	Name    string
	session *mcp.ClientSession
	stderr  *bytes.Buffer
	tools   int
}

// Start runs argv (from the repository root) as a stdio MCP server and
// lists its tools.
func Start(ctx context.Context, root, name string, argv []string) (*Server, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "heal-bench", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: connect: %w\n%s", name, err, tail(stderr.String()))
	}
	s := &Server{Name: name, session: session, stderr: &stderr}
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			session.Close()
			return nil, fmt.Errorf("%s: tools/list: %w\n%s", name, err, tail(stderr.String()))
		}
		_ = tool
		s.tools++
	}
	return s, nil
}

// Close ends the session and the process.
func (s *Server) Close() { s.session.Close() }

// Outcome is what a call came back with: the text the model reads.
type Outcome struct {
	Text     string // every text block, joined by a blank line; or the JSON-RPC error
	IsError  bool
	Protocol bool // a JSON-RPC error, not a tool result
}

// Passed reports whether the call reached the handler and succeeded.
func (o Outcome) Passed() bool { return !o.IsError && !o.Protocol }

// Call makes one tools/call with args (sent as their compact JSON).
func (s *Server) Call(ctx context.Context, tool string, args any) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(encode(args))})
	if err != nil {
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			return Outcome{Text: fmt.Sprintf("JSON-RPC error %d: %s", wire.Code, wire.Message), IsError: true, Protocol: true}, nil
		}
		return Outcome{}, fmt.Errorf("%s: tools/call %s: %w\n%s", s.Name, tool, err, tail(s.stderr.String()))
	}
	var texts []string
	for _, block := range res.Content {
		if t, ok := block.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	return Outcome{Text: strings.Join(texts, "\n\n"), IsError: res.IsError}, nil
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}
