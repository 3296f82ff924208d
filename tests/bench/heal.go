package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// healServer is one language's heal-bench server (tests/heal/servers),
// healed as its binding's README teaches (heal, and the stdio transport
// behind the stdio gate) or plain (the SDK alone, with --plain).
type healServer struct {
	lang    string
	command []string
}

// healServers are what tests/heal/build.sh and make prepare build or
// install.
var healServers = []healServer{
	{"go", []string{"bin/heal-go"}},
	{"node", []string{"node", "tests/heal/servers/node/server.mjs", "--zod", "4"}},
	{"python", []string{".venv/bin/python", "tests/heal/servers/python/server.py"}},
	{"python-fastmcp", []string{".venv/bin/python", "tests/heal/servers/python/server.py", "--sdk", "fastmcp"}},
	{"rust", []string{"bin/heal-rust"}},
	{"java", []string{"java", "-XX:-DontCompileHugeMethods", "-cp", "bin/heal-java:bin/quickstart-java.jar", "heal.Server"}},
}

// healRounds is how many valid calls each server answers, interleaved.
const healRounds = 2000

// healHeading starts the heal section of BENCHMARKS.md.
const healHeading = "\n## Healing on the success path: a valid call, healed and plain\n"

// healBench measures one valid tools/call round trip (read_text_file of
// the heal corpus, whose handler answers "ok") of each language's server,
// healed and plain, with the Go SDK's client over stdio, call by call in
// turn so that the machine's load falls on all of them alike. It returns
// the BENCHMARKS.md section.
func healBench() (string, error) {
	ctx := context.Background()
	args := json.RawMessage(`{"path":"/tmp/notes.txt","head":10}`)
	type path struct {
		lang, mode string
		session    *mcp.ClientSession
	}
	var paths []path
	for _, s := range healServers {
		for _, mode := range []string{"plain", "healed"} {
			argv := s.command
			if mode == "plain" {
				argv = append(append([]string(nil), argv...), "--plain")
			}
			if _, err := os.Stat(argv[0]); strings.Contains(argv[0], "/") && err != nil {
				return "", fmt.Errorf("%s: %s is not built (bash tests/heal/build.sh)", s.lang, argv[0])
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				return "", fmt.Errorf("%s %s: %w", s.lang, mode, err)
			}
			defer cs.Close()
			paths = append(paths, path{s.lang, mode, cs})
		}
	}
	call := func(p path) (time.Duration, error) {
		start := time.Now()
		res, err := p.session.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: args})
		if err == nil && (res.IsError || len(res.Content) != 1) {
			err = fmt.Errorf("not the handler's answer: %+v", res)
		}
		return time.Since(start), err
	}
	for range 200 { // warm-up
		for _, p := range paths {
			if _, err := call(p); err != nil {
				return "", fmt.Errorf("%s %s: %w", p.lang, p.mode, err)
			}
		}
	}
	times := make([][]time.Duration, len(paths))
	for range healRounds {
		for i, p := range paths {
			d, err := call(p)
			if err != nil {
				return "", fmt.Errorf("%s %s: %w", p.lang, p.mode, err)
			}
			times[i] = append(times[i], d)
		}
	}
	var b strings.Builder
	b.WriteString(healHeading + "\n")
	fmt.Fprintf(&b, "Each language's heal-bench server (tests/heal/servers: every tool of the heal corpus on its official MCP SDK; python-fastmcp is the Python server's functions on FastMCP instead, `--sdk fastmcp`) answers a valid `read_text_file` call, plain (the SDK alone) and healed as its binding's README teaches (heal, and the SDK's stdio transport behind toolerr's stdio gate); the Go SDK's client calls every server in turn, %d calls each. Time is the median round trip.\n\n", healRounds)
	b.WriteString("| language | plain | healed | ratio | at most 1.10x |\n|---|---|---|---|---|\n")
	for i := 0; i < len(paths); i += 2 {
		plain, healed := median(times[i]), median(times[i+1])
		ratio := float64(healed) / float64(plain)
		fmt.Fprintf(&b, "| %s | %s | %s | %.2fx | %s |\n", paths[i].lang, duration(float64(plain.Nanoseconds())), duration(float64(healed.Nanoseconds())), ratio, yesNo(ratio <= 1.10))
	}
	return b.String(), nil
}
