package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
)

// maxRounds is how many repaired calls the repairer may make after the
// first failed one: a model reads each new answer and tries again.
const maxRounds = 4

// Path is one way a tool call reaches a model: toolerr's integration for
// one SDK (Healed) and the same server without it (Plain: the SDK's own
// answers).
type Path struct {
	Name   string
	Title  string
	Healed []string // argv, from the repository root
	Plain  []string
}

// Paths are every path the bench measures; bin is where bin/heal-go,
// bin/heal-rust and bin/toolerr are (relative to the repository root, or
// absolute).
func Paths(bin string) []Path {
	goSrv := []string{filepath.Join(bin, "heal-go")}
	goPlain := append(append([]string{}, goSrv...), "-plain")
	rust := filepath.Join(bin, "heal-rust")
	node := []string{"node", "tests/heal/servers/node/server.mjs"}
	python := []string{".venv/bin/python", "tests/heal/servers/python/server.py"}
	with := func(argv []string, extra ...string) []string { return append(append([]string{}, argv...), extra...) }
	return []Path{
		{"go", "Go: go-sdk `mcp.AddTool` + `h.Heal(server)`", goSrv, goPlain},
		{"node-zod3", "Node: `McpServer.registerTool` (zod v3) + `heal(server)`", with(node, "--zod", "3"), with(node, "--zod", "3", "--plain")},
		{"node-zod4", "Node: `McpServer.registerTool` (zod v4) + `heal(server)`", with(node, "--zod", "4"), with(node, "--zod", "4", "--plain")},
		{"python", "Python: `MCPServer` (pydantic) + `toolerr.heal(server)`", python, with(python, "--plain")},
		{"rust", "Rust: rmcp `ToolRouter` + `toolerr::heal`", []string{rust}, []string{rust, "--plain"}},
		{"proxy", "`toolerr proxy` in front of the plain Go server", with([]string{filepath.Join(bin, "toolerr"), "proxy", "--"}, goPlain...), goPlain},
	}
}

// Side is one case on one server: the first answer, what it says, and
// whether the repairer got from it to a call that passes.
type Side struct {
	Accepted bool // the mutated call passed: the server did not refuse it
	First    Outcome
	Measure  Measure
	Repaired bool
	Rounds   int     // repaired calls made
	Last     Outcome // the last answer
}

// Result is one case on one path.
type Result struct {
	Case   *Case
	Path   string
	Healed Side
	Plain  Side
}

// PathRun is every result of one path.
type PathRun struct {
	Path         Path
	Results      []Result
	ValidRefused map[string]string // tools whose valid arguments a server refused, with its text
}

// RunPath starts both servers of p and plays every case on each.
func RunPath(ctx context.Context, root string, p Path, tools []*Tool, cases []Case) (*PathRun, error) {
	run := &PathRun{Path: p, ValidRefused: map[string]string{}}
	run.Results = make([]Result, len(cases))
	for i := range cases {
		run.Results[i] = Result{Case: &cases[i], Path: p.Name}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for side, argv := range [][]string{p.Healed, p.Plain} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[side] = runSide(ctx, root, p.Name, side == 0, argv, tools, run)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return run, nil
}

var validMu sync.Mutex

func runSide(ctx context.Context, root, name string, healed bool, argv []string, tools []*Tool, run *PathRun) error {
	label := name + "/plain"
	if healed {
		label = name + "/healed"
	}
	s, err := Start(ctx, root, label, argv)
	if err != nil {
		return err
	}
	defer s.Close()
	if s.tools != len(tools) {
		return fmt.Errorf("%s lists %d tools, the corpus has %d", label, s.tools, len(tools))
	}
	for _, t := range tools {
		args, _ := decode(t.Valid)
		out, err := s.Call(ctx, t.Name, args)
		if err != nil {
			return err
		}
		if !out.Passed() {
			validMu.Lock()
			run.ValidRefused[label+" "+t.Name] = out.Text
			validMu.Unlock()
		}
	}
	for i := range run.Results {
		r := &run.Results[i]
		side := &r.Plain
		if healed {
			side = &r.Healed
		}
		if err := play(ctx, s, r.Case, side); err != nil {
			return err
		}
	}
	return nil
}

// play makes the case's call, measures the answer and lets the repairer try.
func play(ctx context.Context, s *Server, c *Case, side *Side) error {
	out, err := s.Call(ctx, c.Call, c.Args)
	if err != nil {
		return err
	}
	side.First, side.Last = out, out
	if out.Passed() {
		side.Accepted = true
		return nil
	}
	side.Measure = measureText(*c, out.Text)
	tool, args := c.Call, c.Args
	for round := 1; round <= maxRounds && !out.Passed(); round++ {
		nextTool, nextArgs, changed := Repair(out.Text, tool, args)
		if !changed {
			break
		}
		tool, args = nextTool, nextArgs
		if out, err = s.Call(ctx, tool, args); err != nil {
			return err
		}
		side.Rounds, side.Last = round, out
	}
	side.Repaired = out.Passed() && tool == c.Tool.Name
	return nil
}
