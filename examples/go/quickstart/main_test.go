package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// quickstartCall is one call of examples/quickstart.json.
type quickstartCall struct {
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	IsError    bool            `json:"isError"`
	StartsWith string          `json:"startsWith"`
	JSON       json.RawMessage `json:"json"`
}

// TestQuickstart_Answers builds the server, starts it over stdio and checks
// every call of examples/quickstart.json: each answer is one text block
// that starts as that file says, with its isError, and a validation error
// holds exactly one field.
func TestQuickstart_Answers(t *testing.T) {
	var spec struct{ Calls []quickstartCall }
	data, err := os.ReadFile("../../quickstart.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &spec); err != nil || len(spec.Calls) == 0 {
		t.Fatalf("quickstart.json: %v (%d calls)", err, len(spec.Calls))
	}
	bin := filepath.Join(t.TempDir(), "quickstart-go")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Stderr = &stderr
	session, err := mcp.NewClient(&mcp.Implementation{Name: "quickstart-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer session.Close()
	for _, c := range spec.Calls {
		t.Run(c.Tool+" "+string(c.Arguments), func(t *testing.T) {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Arguments})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Content) != 1 {
				t.Fatalf("%d content blocks, want 1", len(res.Content))
			}
			data, _ := json.Marshal(c)
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError != c.IsError || !answers(text, c) {
				t.Errorf("got isError=%v\n%s\nwant isError=%v and %s", res.IsError, text, c.IsError, data)
			}
			if strings.HasPrefix(text, "<validation_error") && strings.Count(text, "<field ") != 1 {
				t.Errorf("want exactly one field:\n%s", text)
			}
		})
	}
}

// answers reports whether text is what c expects: its prefix, or the same
// JSON value.
func answers(text string, c quickstartCall) bool {
	if c.JSON == nil {
		return strings.HasPrefix(text, c.StartsWith)
	}
	var got, want any
	return json.Unmarshal([]byte(text), &got) == nil && json.Unmarshal(c.JSON, &want) == nil && reflect.DeepEqual(got, want)
}
