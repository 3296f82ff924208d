package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
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
	command    []string // a stdio path: what the client runs
	endpoint   string   // an HTTP path: where the client posts
	pid        int      // the proxy's process, for its RSS; 0 for none
	proxy      bool     // command is the proxy (its pid is taken)
	args       json.RawMessage
	base       int // the path whose time its ratio is to
}

// proxyRounds is how many calls each path makes, interleaved.
const proxyRounds = 3000

// proxyBench measures one tools/call round trip of server-everything's
// echo with the Go SDK's client, interleaved call by call in one run so
// that the machine's load falls on every path alike: over stdio, directly
// and through `toolerr proxy` (its default engine, and wazero); over
// Streamable HTTP, directly (server-everything's streamableHttp
// transport), through `toolerr proxy --listen` (in front of its stdio
// transport) and through `toolerr proxy --upstream` (in front of its
// streamableHttp transport, served on stdio); and each proxy's own peak
// RSS. It returns the BENCHMARKS.md section.
func proxyBench() (string, error) {
	valid := json.RawMessage(`{"message":"hello through the relay"}`)
	invalid := json.RawMessage(`{"message":5}`)
	proxy := func(flags ...string) []string {
		return append(append(append([]string{"bin/toolerr", "proxy"}, flags...), "--"), everything...)
	}
	var cleanup []func()
	defer func() {
		for _, f := range cleanup {
			f()
		}
	}()
	upstream, stopUpstream, err := startEverythingHTTP()
	if err != nil {
		return "", err
	}
	cleanup = append(cleanup, stopUpstream)
	listen, listenPid, stopListen, err := startListening(append([]string{"bin/toolerr", "proxy", "--listen", "127.0.0.1:0", "--"}, everything...))
	if err != nil {
		return "", err
	}
	cleanup = append(cleanup, stopListen)
	paths := []proxyPath{
		{key: "direct", label: "direct, stdio", command: everything, args: valid},
		{proxy: true, key: "proxied", label: "through `toolerr proxy` (default engine, native): checked, then forwarded", command: proxy(), args: valid},
		{proxy: true, key: "proxied-wazero", label: "through `toolerr proxy --engine wazero`: checked, then forwarded", command: proxy("--engine", "wazero"), args: valid},
		{proxy: true, key: "rejected", label: "through `toolerr proxy`, invalid arguments (the proxy answers)", command: proxy(), args: invalid},
		{key: "direct-http", label: "direct, Streamable HTTP (server-everything's streamableHttp)", endpoint: upstream, args: valid, base: 4},
		{key: "listen", label: "through `toolerr proxy --listen` (HTTP in front, server-everything on stdio behind)", endpoint: listen, pid: listenPid, args: valid, base: 4},
		{proxy: true, key: "upstream", label: "through `toolerr proxy --upstream` (stdio in front, server-everything's streamableHttp behind)", command: []string{"bin/toolerr", "proxy", "--upstream", upstream}, args: valid, base: 4},
	}
	ctx := context.Background()
	sessions := make([]*mcp.ClientSession, len(paths))
	for i := range paths {
		p := &paths[i]
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
		var cs *mcp.ClientSession
		if p.command != nil {
			cmd := exec.Command(p.command[0], p.command[1:]...)
			if cs, err = client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil); err == nil && p.proxy {
				p.pid = cmd.Process.Pid
			}
		} else {
			cs, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.endpoint}, nil)
		}
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
	fmt.Fprintf(&b, "The Go SDK's client calls `echo` of `@modelcontextprotocol/server-everything` (tests/realservers), directly and through `toolerr proxy`, which gates the message and checks the arguments in the module before forwarding them: over stdio, and over Streamable HTTP (the Go SDK's `StreamableClientTransport` and server-everything's own `streamableHttp` transport; `--listen` fronts its stdio transport with HTTP, `--upstream` fronts its HTTP transport on stdio). %d calls per path, interleaved call by call in one run. Time is the median; the ratio is to the direct path over the same transport as the client's (stdio, or HTTP for the three HTTP rows); RSS is the proxy process's own peak (VmHWM), after the calls.\n\n", proxyRounds)
	b.WriteString("| path | time | ratio to direct | proxy RSS |\n|---|---|---|---|\n")
	rssMB := map[string]float64{}
	for i, p := range paths {
		rss := "-"
		if p.pid != 0 {
			if kb, err := peakRSS(p.pid); err == nil {
				rssMB[p.key] = float64(kb) / 1024
				rss = fmt.Sprintf("%.1f MB", rssMB[p.key])
			}
		}
		m := median(times[i])
		fmt.Fprintf(&b, "| %s | %s | %.2fx | %s |\n", p.label, duration(float64(m.Nanoseconds())), float64(m)/float64(median(times[p.base])), rss)
	}
	// The module's own cost in memory: the same proxy on wazero against
	// the native core (goal: at most 20 MB more).
	if wz, nat := rssMB["proxied-wazero"], rssMB["proxied"]; wz > 0 && nat > 0 {
		fmt.Fprintf(&b, "\nThe module on wazero adds %.1f MB to the proxy's peak RSS against the native core (at most 20 MB: %s).\n", wz-nat, yesNo(wz-nat <= 20))
	}
	return b.String(), nil
}

// startEverythingHTTP starts server-everything's streamableHttp transport
// on a free loopback port and returns its endpoint.
func startEverythingHTTP() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cmd := exec.Command(everything[0], everything[1], "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port)
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			return "http://127.0.0.1:" + port + "/mcp", stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("server-everything's streamableHttp does not listen on %s", port)
		}
	}
}

// startListening starts `toolerr proxy --listen` and returns its endpoint,
// read from its stderr.
func startListening(command []string) (string, int, func(), error) {
	cmd := exec.Command(command[0], command[1:]...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", 0, nil, err
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, url, ok := strings.Cut(sc.Text(), "serving MCP at "); ok {
				found <- url
			}
		}
	}()
	select {
	case url := <-found:
		return url, cmd.Process.Pid, stop, nil
	case <-time.After(30 * time.Second):
		stop()
		return "", 0, nil, fmt.Errorf("toolerr proxy --listen does not serve")
	}
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
