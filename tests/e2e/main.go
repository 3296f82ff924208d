// Command e2e drives every example server of examples/servers.json through
// the billing scenario of examples/scenario.json with the official Go SDK's
// client, and demands from every one of them the scenario's exact answers
// (hence byte-identical answers across servers); then it plays the calls of
// examples/quickstart.json against every quickstart server listed there, and
// raw hostile lines (hostile.go) against every billing server and every
// quickstart.
//
//	go run ./tests/e2e [-servers go,node] [-skip-prepare]
//
// Run it from the repository root (it is part of `make test`).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/host"
)

// proxyBuild builds the CLI that serves the proxied servers.
const proxyBuild = "go build -o bin/toolerr ./host/cmd/toolerr"

type server struct {
	Name    string `json:"name"`
	Prepare string `json:"prepare"`
	Start   string `json:"start"`
}

// answer is what one call returned: isError and every text block.
type answer struct {
	IsError bool
	Texts   []string
	Err     string // a protocol-level error
}

func (a answer) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "isError: %v", a.IsError)
	if a.Err != "" {
		fmt.Fprintf(&b, "\nprotocol error: %s", a.Err)
	}
	for i, t := range a.Texts {
		fmt.Fprintf(&b, "\ncontent[%d]:\n%s", i, t)
	}
	return b.String()
}

func main() {
	os.Exit(run())
}

func run() int {
	only := flag.String("servers", "", "comma-separated server names (default: all)")
	skipPrepare := flag.Bool("skip-prepare", false, "do not run the prepare commands")
	realOnly := flag.Bool("real-only", false, "play only the real servers of tests/realservers")
	flag.Parse()
	if *realOnly {
		h, err := host.New(context.Background(), host.Options{Engine: host.Native})
		if err != nil {
			return fail(err)
		}
		passed, failed := playRealServers(context.Background(), h)
		fmt.Printf("e2e: %d passed, %d failed\n", passed, failed)
		if failed > 0 {
			return 1
		}
		return 0
	}
	var cfg struct{ Servers, Quickstarts []server }
	raw, err := os.ReadFile("examples/servers.json")
	if err == nil {
		err = json.Unmarshal(raw, &cfg)
	}
	if err != nil {
		return fail(err)
	}
	selected := func(list []server) []server {
		var out []server
		for _, s := range list {
			if *only == "" || strings.Contains(","+*only+",", ","+s.Name+",") {
				out = append(out, s)
			}
		}
		return out
	}
	servers, quickstarts := selected(cfg.Servers), selected(cfg.Quickstarts)
	// Each server again behind `toolerr proxy`, which must change no byte:
	// the server's envelopes pass through, and the proxy's own check of the
	// arguments (with the same lockfile) gives the server's answer.
	for _, s := range servers { // the range reads the list before the loop appends
		servers = append(servers, server{Name: s.Name + "+proxy", Prepare: proxyBuild,
			Start: "bin/toolerr proxy --lock examples/billing.lock.json -- " + s.Start})
	}
	if len(servers) == 0 {
		return fail(fmt.Errorf("no server selected"))
	}
	ctx := context.Background()
	h, err := host.New(ctx, host.Options{Engine: host.Native})
	if err != nil {
		return fail(err)
	}

	// Every server plays every session; answers[session][server][call].
	sessions, err := loadScenario()
	if err != nil {
		return fail(err)
	}
	answers := make([]map[string][]answer, len(sessions))
	schemas := map[string]string{}
	for _, s := range servers {
		start := time.Now()
		if !*skipPrepare && s.Prepare != "" {
			cmd := exec.Command("bash", "-c", s.Prepare)
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				return fail(fmt.Errorf("%s: prepare: %w", s.Name, err))
			}
		}
		prepared := time.Now()
		for i, sess := range sessions {
			list, got, err := play(ctx, s, sess.calls)
			if err != nil {
				return fail(fmt.Errorf("%s: %s session: %w", s.Name, sess.name, err))
			}
			if answers[i] == nil {
				answers[i] = map[string][]answer{}
			}
			answers[i][s.Name] = got
			schemas[s.Name] = list
		}
		fmt.Fprintf(os.Stderr, "%s: prepared in %.1fs, sessions in %.1fs\n", s.Name, prepared.Sub(start).Seconds(), time.Since(prepared).Seconds())
	}

	passed, failed := 0, 0
	ref := servers[0].Name
	for _, s := range servers[1:] {
		if schemas[s.Name] != schemas[ref] {
			fmt.Printf("FAIL tools/list: %s advertises\n%s\n%s advertises\n%s\n", s.Name, schemas[s.Name], ref, schemas[ref])
			failed++
		} else {
			passed++
		}
	}
	calls := 0
	for i, sess := range sessions {
		calls += len(sess.calls)
		for j, c := range sess.calls {
			ok := true
			for _, s := range servers {
				if diff := sameAnswer(answers[i][s.Name][j], c.want); diff != "" {
					fmt.Printf("FAIL %s #%d %s %s %s: %s differs from %s\n%s\n", sess.name, j+1, c.name, c.tool, c.args, s.Name, scenarioPath, diff)
					ok = false
				}
			}
			if err := c.check(ctx, h, c.want); err != nil {
				fmt.Printf("FAIL %s #%d %s %s %s: %s: %v\n%s\n", sess.name, j+1, c.name, c.tool, c.args, scenarioPath, err, c.want)
				ok = false
			}
			if ok {
				passed++
			} else {
				failed++
			}
		}
	}
	qsPassed, qsFailed, err := playQuickstarts(ctx, h, quickstarts, *skipPrepare)
	if err != nil {
		return fail(err)
	}
	passed, failed = passed+qsPassed, failed+qsFailed
	// The same calls through the Python SDK's own Client, in whichever
	// protocol it and each quickstart's SDK agree on.
	if qsPassed, qsFailed, err = playQuickstartsSDKClient(ctx, quickstarts); err != nil {
		return fail(err)
	}
	passed, failed = passed+qsPassed, failed+qsFailed
	// Raw lines no SDK client sends, to the servers themselves and to every
	// quickstart (hostile.go): each request answered with its id, alike.
	hsPassed, hsFailed := playHostile(ctx, h, "billing", selected(cfg.Servers), billingLines())
	qhPassed, qhFailed := playHostile(ctx, h, "quickstart", quickstarts, quickstartLines())
	passed, failed = passed+hsPassed+qhPassed, failed+hsFailed+qhFailed
	// Servers no one here wrote, directly and through the proxy
	// (realservers.go).
	rsPassed, rsFailed := playRealServers(ctx, h)
	passed, failed = passed+rsPassed, failed+rsFailed
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	sort.Strings(names)
	fmt.Printf("servers: %s; calls per server: %d; quickstarts: %d\n", strings.Join(names, ", "), calls, len(quickstarts))
	fmt.Printf("e2e: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

// play starts the server, lists its tools and makes every call in order.
func play(ctx context.Context, s server, calls []call) (string, []answer, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.Command("bash", "-c", "exec "+s.Start)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "toolerr-e2e", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return "", nil, fmt.Errorf("initialize: %w", err)
	}
	defer session.Close()
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		return "", nil, fmt.Errorf("tools/list: %w", err)
	}
	listed, err := canonicalTools(list.Tools)
	if err != nil {
		return "", nil, err
	}
	var out []answer
	for _, c := range calls {
		params := &mcp.CallToolParams{Name: c.tool}
		if c.args != "" { // none: the call sends no arguments
			params.Arguments = json.RawMessage(c.args)
		}
		res, err := session.CallTool(ctx, params)
		if err != nil {
			out = append(out, answer{Err: err.Error()})
			continue
		}
		a := answer{IsError: res.IsError}
		for _, block := range res.Content {
			if t, ok := block.(*mcp.TextContent); ok {
				a.Texts = append(a.Texts, t.Text)
			} else {
				a.Texts = append(a.Texts, fmt.Sprintf("(non-text block %T)", block))
			}
		}
		out = append(out, a)
	}
	return listed, out, nil
}

// canonicalTools renders the advertised tools sorted by name, each as name,
// description and its input schema re-encoded with sorted keys.
func canonicalTools(tools []*mcp.Tool) (string, error) {
	var lines []string
	for _, t := range tools {
		raw, err := json.Marshal(t.InputSchema)
		if err != nil {
			return "", err
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", err
		}
		schema, _ := json.Marshal(v) // maps marshal with sorted keys
		lines = append(lines, t.Name+"\n  "+t.Description+"\n  "+string(schema))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n"), nil
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "e2e:", err)
	return 2
}
