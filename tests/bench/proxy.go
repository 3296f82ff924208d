package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// everything is server-everything of tests/realservers (make prepare
// installs it).
var everything = []string{"node", "tests/realservers/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"}

// proxyPath is one way to reach server-everything.
type proxyPath struct {
	key, label string
	command    []string
	args       json.RawMessage
}

// proxyRounds is how many calls each path makes, interleaved.
const proxyRounds = 3000

// proxyBench measures one tools/call round trip of server-everything's
// echo with the Go SDK's client, directly and through `toolerr proxy`
// (its default engine, and wazero), interleaved call by call in one run so
// that the machine's load falls on every path alike; and each proxy's own
// peak RSS. It returns the BENCHMARKS.md section.
func proxyBench() (string, error) {
	valid := json.RawMessage(`{"message":"hello through the relay"}`)
	invalid := json.RawMessage(`{"message":5}`)
	proxy := func(flags ...string) []string {
		return append(append(append([]string{"bin/toolerr", "proxy"}, flags...), "--"), everything...)
	}
	paths := []proxyPath{
		{"direct", "direct", everything, valid},
		{"proxied", "through `toolerr proxy` (default engine, native): checked, then forwarded", proxy(), valid},
		{"proxied-wazero", "through `toolerr proxy --engine wazero`: checked, then forwarded", proxy("--engine", "wazero"), valid},
		{"rejected", "through `toolerr proxy`, invalid arguments (the proxy answers)", proxy(), invalid},
	}
	ctx := context.Background()
	sessions := make([]*mcp.ClientSession, len(paths))
	cmds := make([]*exec.Cmd, len(paths))
	for i, p := range paths {
		cmds[i] = exec.Command(p.command[0], p.command[1:]...)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmds[i]}, nil)
		if err != nil {
			return "", fmt.Errorf("%s: %w", p.key, err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	call := func(i int) (time.Duration, error) {
		start := time.Now()
		_, err := sessions[i].CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: paths[i].args})
		return time.Since(start), err
	}
	for range 200 { // warm-up
		for i := range paths {
			if _, err := call(i); err != nil {
				return "", fmt.Errorf("%s: %w", paths[i].key, err)
			}
		}
	}
	times := make([][]time.Duration, len(paths))
	for range proxyRounds {
		for i := range paths {
			d, err := call(i)
			if err != nil {
				return "", fmt.Errorf("%s: %w", paths[i].key, err)
			}
			times[i] = append(times[i], d)
		}
	}
	var b strings.Builder
	b.WriteString(proxyHeading + "\n")
	fmt.Fprintf(&b, "The Go SDK's client calls `echo` of `@modelcontextprotocol/server-everything` (tests/realservers) over stdio, directly and through `toolerr proxy`, which gates the line and checks the arguments in the module before forwarding them; %d calls per path, interleaved call by call in one run. Time is the median; RSS is the proxy process's own peak (VmHWM), after the calls.\n\n", proxyRounds)
	b.WriteString("| path | time | ratio to direct | proxy RSS |\n|---|---|---|---|\n")
	direct := median(times[0])
	for i, p := range paths {
		rss := "-"
		if i > 0 {
			if kb, err := peakRSS(cmds[i].Process.Pid); err == nil {
				rss = fmt.Sprintf("%.1f MB", float64(kb)/1024)
			}
		}
		m := median(times[i])
		fmt.Fprintf(&b, "| %s | %s | %.2fx | %s |\n", p.label, duration(float64(m.Nanoseconds())), float64(m)/float64(direct), rss)
	}
	return b.String(), nil
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// peakRSS reads a process's peak resident set, in KiB.
func peakRSS(pid int) (int, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, fmt.Errorf("no VmHWM for %d", pid)
}

// proxyHeading starts the proxy section of BENCHMARKS.md.
const proxyHeading = "\n## toolerr proxy: one tools/call round trip\n"

// rewriteSection measures one section of BENCHMARKS.md alone (measure
// writes it, starting with heading) and puts it in place of the one there,
// or after the others when there is none yet.
func rewriteSection(heading string, measure func() (string, error)) error {
	section, err := measure()
	if err != nil {
		return err
	}
	raw, err := os.ReadFile("BENCHMARKS.md")
	if err != nil {
		return err
	}
	md := string(raw)
	start := strings.Index(md, heading)
	if start < 0 {
		return os.WriteFile("BENCHMARKS.md", []byte(strings.TrimRight(md, "\n")+"\n"+section), 0o644)
	}
	end := strings.Index(md[start+len(heading):], "\n## ")
	if end < 0 {
		end = len(md)
	} else {
		end += start + len(heading)
	}
	return os.WriteFile("BENCHMARKS.md", []byte(md[:start]+section+md[end:]), 0o644)
}
