package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	quickstartcalls "github.com/toolerr/toolerr/examples/go/quickstart/calls"
)

// TestQuickstart_Answers builds the server, starts it over stdio and checks
// every call of examples/quickstart.json: each answer is one text block
// that is what that file says, with its isError, and a validation error
// holds exactly one field.
func TestQuickstart_Answers(t *testing.T) {
	calls, err := quickstartcalls.Load("../../quickstart.json")
	if err != nil {
		t.Fatal(err)
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
	for _, c := range calls {
		t.Run(c.Tool+" "+string(c.Arguments), func(t *testing.T) {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Arguments})
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, block := range res.Content {
				texts = append(texts, block.(*mcp.TextContent).Text)
			}
			if problem := c.Check(texts, res.IsError); problem != "" {
				t.Fatalf("%s; got isError=%v\n%s", problem, res.IsError, strings.Join(texts, "\n----\n"))
			}
			if text := texts[0]; strings.HasPrefix(text, "<validation_error") && strings.Count(text, "<field ") != 1 {
				t.Errorf("want exactly one field:\n%s", text)
			}
		})
	}
}

// TestQuickstart_LinksNoExtism: a server on the default engine does not
// link the Extism Go SDK (package host/extism brings it, when imported).
func TestQuickstart_LinksNoExtism(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/extism/") || pkg == "github.com/toolerr/toolerr/host/extism" {
			t.Errorf("the quickstart links %s", pkg)
		}
	}
}
