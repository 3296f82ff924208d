package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkProxy measures one tools/call round trip with the Go SDK's
// client: to testdata/plainserver directly, through `toolerr proxy` (the
// module checks the arguments, the child answers), and through the proxy
// with invalid arguments (the module answers; the child is not called).
// make bench reports the ratio of the second to the first.
func BenchmarkProxy(b *testing.B) {
	toolerr, plain := binaries(b)
	valid := json.RawMessage(`{"sku":"ABC-1234","qty":2,"priority":"high","shipping":{"country":"FR"}}`)
	invalid := json.RawMessage(`{"sku":"abc","qty":0,"shipping":{}}`)
	cases := []struct {
		name string
		cmd  func() *exec.Cmd
		args json.RawMessage
	}{
		{"direct", func() *exec.Cmd { return exec.Command(plain) }, valid},
		{"proxied", func() *exec.Cmd {
			return exec.Command(toolerr, "proxy", "--cache", filepath.Join(binDir, "cache"), "--", plain)
		}, valid},
		{"rejected", func() *exec.Cmd {
			return exec.Command(toolerr, "proxy", "--cache", filepath.Join(binDir, "cache"), "--", plain)
		}, invalid},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: c.cmd()}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "orders.create", Arguments: c.args}
			for b.Loop() {
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
