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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	session, _, _ := start(ctx, t)
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

// TestQuickstart_QuietOnFailures: 200 failing calls (every failing call of
// examples/quickstart.json in turn: invalid arguments, NOT_FOUND, a failing
// dependency, an unknown tool) are each answered, and the server writes
// nothing on stderr, a stdio server's only log.
func TestQuickstart_QuietOnFailures(t *testing.T) {
	calls, err := quickstartcalls.Load("../../quickstart.json")
	if err != nil {
		t.Fatal(err)
	}
	var failing []quickstartcalls.Call
	for _, c := range calls {
		if c.IsError {
			failing = append(failing, c)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	session, cmd, stderr := start(ctx, t)
	for i := range 200 {
		c := failing[i%len(failing)]
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Arguments})
		if err != nil {
			t.Fatalf("call %d (%s): %v", i, c.Tool, err)
		}
		if !res.IsError {
			t.Fatalf("call %d (%s): not an error", i, c.Tool)
		}
	}
	session.Close()
	_ = cmd.Wait()
	if stderr.Len() != 0 {
		t.Fatalf("stderr after 200 failing calls: %d bytes:\n%s", stderr.Len(), stderr.String())
	}
}

// start builds the server and connects the SDK's client to it over stdio;
// the server's stderr is collected.
func start(ctx context.Context, t *testing.T) (*mcp.ClientSession, *exec.Cmd, *bytes.Buffer) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "quickstart-go")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	stderr := new(bytes.Buffer)
	cmd := exec.Command(bin)
	cmd.Stderr = stderr
	session, err := mcp.NewClient(&mcp.Implementation{Name: "quickstart-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	return session, cmd, stderr
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
