package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/internal/testutil"
)

// `toolerr proxy --listen` and `--upstream`, as built, with real clients
// and servers: the TypeScript SDK's StreamableHTTPClientTransport and
// server-everything (tests/realservers, installed by make test's prepare
// phase), the Go SDK's Streamable HTTP client and server, and plainserver.

const realServers = "../../../tests/realservers"

// needRealServers skips when tests/realservers has not been installed.
func needRealServers(t *testing.T) (everything string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(realServers, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skipf("tests/realservers/node_modules is absent (make test's prepare phase installs it: npm ci --prefix tests/realservers): %v", err)
	}
	abs, err := filepath.Abs(filepath.Join(realServers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

var servingAt = regexp.MustCompile(`serving MCP at (http://\S+)`)

// proxyProc is a running `toolerr proxy --listen`.
type proxyProc struct {
	url    string
	cmd    *exec.Cmd
	stderr *testutil.SyncBuffer
	exited chan struct{}
	status int // once exited is closed
}

func (p *proxyProc) pid() int { return p.cmd.Process.Pid }

// listening starts `toolerr proxy --listen 127.0.0.1:0 ARGS...` and waits
// until it serves; the proxy is stopped (SIGTERM) at the test's end.
func listening(t *testing.T, args ...string) *proxyProc {
	t.Helper()
	toolerr, _ := binaries(t)
	p := &proxyProc{stderr: &testutil.SyncBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(toolerr, append([]string{"proxy", "--listen", "127.0.0.1:0", "--cache", filepath.Join(binDir, "cache")}, args...)...)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		p.status = p.cmd.ProcessState.ExitCode()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			p.cmd.Process.Kill()
			t.Errorf("the proxy did not stop on SIGTERM\n%s", p.stderr)
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if m := servingAt.FindStringSubmatch(p.stderr.String()); m != nil {
			p.url = m[1]
			return p
		}
		select {
		case <-p.exited:
			t.Fatalf("the proxy exited: %s", p.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the proxy does not serve:\n%s", p.stderr)
		}
	}
}

// stop ends the proxy with SIGTERM and returns its exit status.
func (p *proxyProc) stop(t *testing.T) int {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the proxy did not stop on SIGTERM")
	}
	return p.status
}

// children lists the processes pid started that still exist.
func children(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		raw, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(raw)) {
			if n, err := strconv.Atoi(field); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// running reports whether process pid exists and is not a zombie.
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, fields, _ := strings.Cut(string(stat), ") ") // after the command's name, which may hold spaces
	return !strings.HasPrefix(fields, "Z")
}

// rss is a process's resident set, in KiB.
func rss(t *testing.T, pid int) int {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// tsClientReport is what tests/realservers/streamable-client.mjs saw.
type tsClientReport struct {
	Errors           []string
	SamplingRequests []string
	SessionID        string
	ProtocolVersion  string
	ServerName       string
	Tools            []string
	Echo             mcp.CallToolResult
	Invalid          mcp.CallToolResult
	Progress         []struct{ Progress, Total float64 }
	LongRunning      mcp.CallToolResult
	Sampling         mcp.CallToolResult
}

// runTSClient runs the TypeScript SDK's client against url.
func runTSClient(t *testing.T, url string) *tsClientReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(realServers, "streamable-client.mjs"), url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the TypeScript client: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	var r tsClientReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("the TypeScript client's report: %v\n%s", err, stdout.String())
	}
	return &r
}

func firstText(r *mcp.CallToolResult) string {
	if len(r.Content) == 0 {
		return ""
	}
	if tc, ok := r.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// checkEverythingSession checks a session with server-everything: tools
// listed, a valid call, invalid arguments answered with the
// <validation_error>, progress notifications, a sampling request answered
// by the client (its reply in the tool's result).
func checkEverythingSession(t *testing.T, r *tsClientReport, reply string) {
	t.Helper()
	if r.ServerName != "mcp-servers/everything" || r.SessionID == "" {
		t.Errorf("server %q, session %q", r.ServerName, r.SessionID)
	}
	for _, want := range []string{"echo", "trigger-long-running-operation", "trigger-sampling-request"} {
		if !strings.Contains(","+strings.Join(r.Tools, ",")+",", ","+want+",") {
			t.Errorf("tools/list lacks %s: %v", want, r.Tools)
		}
	}
	if got := firstText(&r.Echo); got != "Echo: hello over Streamable HTTP" || r.Echo.IsError {
		t.Errorf("a valid call: %q", got)
	}
	want := "<validation_error action=\"echo\">\n<field name=\"message\">Expected string, received number. You sent: 5.</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"
	if got := firstText(&r.Invalid); got != want || !r.Invalid.IsError {
		t.Errorf("invalid arguments:\n%s\nwant\n%s", got, want)
	}
	if len(r.Progress) != 3 || r.Progress[2].Progress != 3 || r.Progress[2].Total != 3 {
		t.Errorf("progress notifications: %+v", r.Progress)
	}
	if got := firstText(&r.LongRunning); !strings.HasPrefix(got, "Long running operation completed.") {
		t.Errorf("the long operation: %q", got)
	}
	if len(r.SamplingRequests) != 1 || !strings.Contains(firstText(&r.Sampling), reply) {
		t.Errorf("sampling: requests %q, result %q", r.SamplingRequests, firstText(&r.Sampling))
	}
	if len(r.Errors) > 0 {
		t.Errorf("the transport reported errors: %q", r.Errors)
	}
}

// TestProxyHTTP_TypeScriptClient: the official TypeScript SDK's
// StreamableHTTPClientTransport against `toolerr proxy --listen` in front
// of server-everything over stdio; its DELETE stops the child.
func TestProxyHTTP_TypeScriptClient(t *testing.T) {
	everything := needRealServers(t)
	p := listening(t, "--", "node", everything, "stdio")
	r := runTSClient(t, p.url)
	checkEverythingSession(t, r, "Hi from the TypeScript client")
	testutil.WaitUntil(t, "the session's server reaped after DELETE", 20*time.Second, func() bool { return len(children(p.pid())) == 0 })
	if !strings.Contains(p.stderr.String(), "session "+r.SessionID[:8]+" ended") {
		t.Errorf("the session's end is not noted:\n%s", p.stderr)
	}
	if code := p.stop(t); code != 0 {
		t.Errorf("exit status %d after SIGTERM\n%s", code, p.stderr)
	}
}

// everythingHTTP starts server-everything with its streamableHttp
// transport and returns its endpoint.
func everythingHTTP(t *testing.T, everything string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cmd := exec.Command("node", everything, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port)
	out := &testutil.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		testutil.WaitOrStop(cmd, 10*time.Second)
	})
	testutil.WaitUntil(t, "server-everything listens", 30*time.Second, func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return "http://127.0.0.1:" + port + "/mcp"
}

// TestProxyHTTP_UpstreamEverything: `toolerr proxy --upstream` in front of
// server-everything's own Streamable HTTP transport: the same session,
// served on stdio to the Go SDK's client, and over HTTP (--listen) to the
// TypeScript SDK's.
func TestProxyHTTP_UpstreamEverything(t *testing.T) {
	everything := needRealServers(t)
	upstream := everythingHTTP(t, everything)

	t.Run("stdio", func(t *testing.T) {
		toolerr, _ := binaries(t)
		cmd := exec.Command(toolerr, "proxy", "--upstream", upstream, "--cache", filepath.Join(binDir, "cache"))
		stderr := &testutil.SyncBuffer{}
		cmd.Stderr = stderr
		var mu sync.Mutex
		var progress []float64
		var sampled []string
		client := mcp.NewClient(&mcp.Implementation{Name: "upstream-test", Version: "0"}, &mcp.ClientOptions{
			CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				mu.Lock()
				sampled = append(sampled, req.Params.Messages[0].Content.(*mcp.TextContent).Text)
				mu.Unlock()
				return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "Hi from the Go client"}}, nil
			},
			ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				progress = append(progress, req.Params.Progress)
				mu.Unlock()
			},
		})
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, stderr)
		}
		defer cs.Close()
		var tools []string
		for range 50 { // the sampling tool comes once the server has read the client's capabilities
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			tools = tools[:0]
			for _, tool := range res.Tools {
				tools = append(tools, tool.Name)
			}
			if strings.Contains(strings.Join(tools, ","), "trigger-sampling-request") {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		call := func(name string, args any, meta mcp.Meta) *mcp.CallToolResult {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, stderr)
			}
			return res
		}
		r := &tsClientReport{ServerName: cs.InitializeResult().ServerInfo.Name, SessionID: "-", Tools: tools}
		r.Echo = *call("echo", map[string]any{"message": "hello over Streamable HTTP"}, nil)
		r.Invalid = *call("echo", map[string]any{"message": 5}, nil)
		r.LongRunning = *call("trigger-long-running-operation", map[string]any{"duration": 0.3, "steps": 3}, mcp.Meta{"progressToken": "p1"})
		r.Sampling = *call("trigger-sampling-request", map[string]any{"prompt": "Say hi", "maxTokens": 16}, nil)
		mu.Lock()
		for _, p := range progress {
			r.Progress = append(r.Progress, struct{ Progress, Total float64 }{p, 3})
		}
		r.SamplingRequests = sampled
		mu.Unlock()
		checkEverythingSession(t, r, "Hi from the Go client")
	})

	t.Run("listen", func(t *testing.T) {
		p := listening(t, "--upstream", upstream)
		checkEverythingSession(t, runTSClient(t, p.url), "Hi from the TypeScript client")
	})
}

// TestProxyHTTP_Load: 16 sessions at once, 40 concurrent calls in each
// (a fifth of them with invalid arguments), through --listen: every answer
// is its own call's, the proxy's memory stays bounded, and every session's
// server is reaped.
func TestProxyHTTP_Load(t *testing.T) {
	_, plain := binaries(t)
	p := listening(t, "--max-sessions", "16", "--", plain)
	url, pid, stderr := p.url, p.pid(), p.stderr
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const sessions, calls = 16, 40
	session := func(n int) error {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			return fmt.Errorf("session %d: %v", n, err)
		}
		defer cs.Close()
		errs := make(chan error, calls)
		for i := range calls {
			go func() {
				sku, qty := fmt.Sprintf("ABC-%04d", n*100+i), i+1
				invalid := i%5 == 4
				if invalid {
					qty = 0
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "orders.create", Arguments: map[string]any{"sku": sku, "qty": qty, "shipping": map[string]any{"country": "FR"}}})
				if err != nil {
					errs <- fmt.Errorf("session %d call %d: %v", n, i, err)
					return
				}
				got := firstText(res)
				want := fmt.Sprintf(`{"created":%q,"qty":%d}`, sku, qty)
				if invalid {
					if !res.IsError || !strings.HasPrefix(got, `<validation_error action="orders.create">`) || !strings.Contains(got, `<field name="qty">`) {
						errs <- fmt.Errorf("session %d call %d (invalid): %s", n, i, got)
						return
					}
				} else if got != want || res.IsError {
					errs <- fmt.Errorf("session %d call %d: got %s, want %s", n, i, got, want)
					return
				}
				errs <- nil
			}()
		}
		for range calls {
			if err := <-errs; err != nil {
				return err
			}
		}
		return nil
	}
	if err := session(0); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	testutil.WaitUntil(t, "the first session's server reaped", 20*time.Second, func() bool { return len(children(pid)) == 0 })
	first := rss(t, pid)
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	peak := 0
	for n := range sessions {
		wg.Go(func() { errs <- session(n + 1) })
	}
	go func() { wg.Wait(); close(errs) }()
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
		peak = max(peak, len(children(pid)))
	}
	if t.Failed() {
		t.Fatalf("proxy stderr:\n%.4000s", stderr)
	}
	testutil.WaitUntil(t, "every session's server reaped", 30*time.Second, func() bool { return len(children(pid)) == 0 })
	after := rss(t, pid)
	t.Logf("proxy RSS: %d KiB after the first session, %d KiB after %d sessions of %d calls (up to %d servers at once)", first, after, sessions, calls, peak)
	if after > 2*first {
		t.Errorf("the proxy's RSS grew from %d KiB to %d KiB", first, after)
	}
}

// TestProxyHTTP_ChildDies: a child that exits ends its own session only;
// the call it had gets HANDOFF_UPSTREAM_UNAVAILABLE. SIGTERM stops the
// proxy and the children of the sessions still open.
func TestProxyHTTP_ChildDies(t *testing.T) {
	_, plain := binaries(t)
	p := listening(t, "--", plain)
	url, pid, stderr := p.url, p.pid(), p.stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	connect := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b := connect(), connect()
	testutil.WaitUntil(t, "two servers", 20*time.Second, func() bool { return len(children(pid)) == 2 })
	got, _ := testutil.CallText(t, a, "fault.crash", `{}`)
	if !strings.HasPrefix(got, `<tool_error code="HANDOFF_UPSTREAM_UNAVAILABLE"`) {
		t.Errorf("the crashing call: %s", got)
	}
	testutil.WaitUntil(t, "the crashed server reaped", 20*time.Second, func() bool { return len(children(pid)) == 1 })
	// The proxy ends the session once it has seen its child exit: a call
	// made just before that is answered (upstream unavailable), and every
	// call after it fails.
	testutil.WaitUntil(t, "the crashed session ended", 20*time.Second, func() bool {
		_, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "orders.fail", Arguments: map[string]any{}})
		return err != nil
	})
	if got, _ := testutil.CallText(t, b, "orders.create", `{"sku":"ABC-1234","qty":1,"shipping":{"country":"FR"}}`); got != `{"created":"ABC-1234","qty":1}` {
		t.Errorf("the other session: %s", got)
	}
	c := connect()
	if got, _ := testutil.CallText(t, c, "orders.fail", `{}`); !strings.HasPrefix(got, `<tool_error code="TOOL_FAILURE"`) {
		t.Errorf("a new session: %s", got)
	}
	left := children(pid)
	if code := p.stop(t); code != 0 {
		t.Errorf("exit status %d\n%s", code, stderr)
	}
	for _, pid := range left {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			t.Errorf("server %d outlived the proxy", pid)
		}
	}
}

// TestProxy_SignalsReachTheServer: SIGTERM to the proxy stops COMMAND at
// once, with SIGTERM, as the client would have stopped it: while the
// client is there, and while the proxy gives COMMAND its grace after the
// client left (stdin closed: a server that does not end on it). Nothing is
// left running, and the proxy's status is COMMAND's. A proxy killed
// (SIGKILL) leaves nothing running either: COMMAND gets SIGTERM.
func TestProxy_SignalsReachTheServer(t *testing.T) {
	toolerr, _ := binaries(t)
	for _, c := range []struct {
		clientLeft bool
		sig        syscall.Signal
	}{{false, syscall.SIGTERM}, {true, syscall.SIGTERM}, {false, syscall.SIGKILL}} {
		clientLeft := c.clientLeft
		pidFile := filepath.Join(t.TempDir(), "pid")
		cmd := exec.Command(toolerr, "proxy", "--cache", filepath.Join(binDir, "cache"), "--", "sh", "-c", `echo $$ > "$0.new"; mv "$0.new" "$0"; exec sleep 300`, pidFile)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var pid int
		testutil.WaitUntil(t, "the server starts", 30*time.Second, func() bool {
			b, err := os.ReadFile(pidFile)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil && pid > 0
		})
		if clientLeft {
			stdin.Close()
			time.Sleep(300 * time.Millisecond) // the proxy is in the server's grace (10 s)
		}
		start := time.Now()
		cmd.Process.Signal(c.sig)
		testutil.WaitOrStop(cmd, 8*time.Second)
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("client left %v, %v: the proxy took %v to stop", clientLeft, c.sig, took)
		}
		if status := cmd.ProcessState.ExitCode(); c.sig == syscall.SIGTERM && status != 128+int(syscall.SIGTERM) {
			t.Errorf("client left %v: status %d, want the server's 143", clientLeft, status)
		}
		// The server may be a zombie for a moment (once the proxy is
		// gone, whoever adopted it reaps it).
		deadline := time.Now().Add(5 * time.Second)
		for running(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if running(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("client left %v, %v: the server is still running", clientLeft, c.sig)
		}
	}
}

// TestProxyHTTP_StopsServersAtOnce: SIGTERM to the proxy sends every
// session's server SIGTERM at once, not after the grace a server gets to
// end on its stdin's end (here one that does not: plainserver, then sleep).
func TestProxyHTTP_StopsServersAtOnce(t *testing.T) {
	_, plain := binaries(t)
	p := listening(t, "--", "sh", "-c", `"$0"; exec sleep 300`, plain)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.url}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, p.stderr)
	}
	defer cs.Close()
	if got, _ := testutil.CallText(t, cs, "orders.fail", `{}`); !strings.HasPrefix(got, `<tool_error code="TOOL_FAILURE"`) {
		t.Errorf("a call: %s", got)
	}
	left := children(p.pid())
	start := time.Now()
	p.stop(t)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the proxy took %v to stop (the grace is 10 s)", took)
	}
	for _, pid := range left {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("server %d outlived the proxy", pid)
		}
	}
}

// TestProxyHTTP_Security: --auth-token, Origin and --max-sessions, as the
// CLI sets them (the relay's own tests cover each rule's cases).
func TestProxyHTTP_Security(t *testing.T) {
	_, plain := binaries(t)
	url := listening(t, "--auth-token", "tok3n", "--max-sessions", "1", "--", plain).url
	for _, c := range []struct {
		name, token, origin string
		status              int
	}{
		{"no token", "", "", 401},
		{"a foreign origin", "tok3n", "https://attacker.example", 403},
		{"the token", "tok3n", "", 200},
		{"a second session", "tok3n", "", 503},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(body), `"jsonrpc":"2.0"`) {
			t.Errorf("%s: %d %s, want %d", c.name, resp.StatusCode, body, c.status)
		}
	}
}

// TestProxyHTTP_UpstreamFaults: `toolerr proxy --upstream` on stdio in
// front of the Go SDK's Streamable HTTP server: slower than
// --call-timeout is TIMEOUT; a call whose stream drops, and a call while
// the upstream is down, get HANDOFF_UPSTREAM_UNAVAILABLE; the proxy serves
// on, and once the upstream is back the calls go through.
func TestProxyHTTP_UpstreamFaults(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	var ts *httptest.Server
	var tsMu sync.Mutex
	empty := json.RawMessage(`{"type":"object"}`)
	server.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Message string }
		json.Unmarshal(req.Params.Arguments, &in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Message}}}, nil
	})
	server.AddTool(&mcp.Tool{Name: "hang", InputSchema: empty}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-ctx.Done(): // the proxy's cancellation, after its timeout
		case <-time.After(10 * time.Second): // or the end of the test: the SDK server's DELETE waits for its handlers
		}
		return nil, ctx.Err()
	})
	server.AddTool(&mcp.Tool{Name: "drop", InputSchema: empty}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tsMu.Lock()
		ts.CloseClientConnections()
		tsMu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
		return nil, ctx.Err()
	})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	serveAt := func(addr string) {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		s := httptest.NewUnstartedServer(handler)
		s.Listener.Close()
		s.Listener = ln
		s.Start()
		tsMu.Lock()
		ts = s
		tsMu.Unlock()
	}
	down := func() {
		tsMu.Lock()
		s := ts
		tsMu.Unlock()
		s.CloseClientConnections()
		s.Close()
	}
	serveAt("127.0.0.1:0")
	addr := ts.Listener.Addr().String()
	t.Cleanup(down)

	toolerr, _ := binaries(t)
	cmd := exec.Command(toolerr, "proxy", "--upstream", "http://"+addr+"/mcp", "--call-timeout", "500ms", "--cache", filepath.Join(binDir, "cache"))
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	defer cs.Close()

	if got, isError := testutil.CallText(t, cs, "hang", `{}`); !isError || !strings.HasPrefix(got, "<tool_error code=\"TIMEOUT\" severity=\"error\">\n<message>Tool \"hang\" did not answer within 500ms.</message>") {
		t.Errorf("slower than --call-timeout: %s", got)
	}
	if got, _ := testutil.CallText(t, cs, "drop", `{}`); !strings.HasPrefix(got, `<tool_error code="HANDOFF_UPSTREAM_UNAVAILABLE"`) {
		t.Errorf("a call whose stream drops: %s", got)
	}
	if got, _ := testutil.CallText(t, cs, "echo", `{"message":"after the drop"}`); got != "echo: after the drop" {
		t.Errorf("after the drop: %s", got)
	}
	down()
	want := "<tool_error code=\"HANDOFF_UPSTREAM_UNAVAILABLE\" severity=\"error\">\n<message>The server behind tool \"echo\" could not be reached, or dropped the call before answering; the call may or may not have taken effect.</message>\n<recovery>Check whether the call took effect before calling again; if the server stays unreachable, tell the user.</recovery>\n</tool_error>"
	if got, isError := testutil.CallText(t, cs, "echo", `{"message":"while down"}`); got != want || !isError {
		t.Errorf("the upstream down: %s", got)
	}
	serveAt(addr)
	testutil.WaitUntil(t, "the upstream serves again", 20*time.Second, func() bool {
		got, _ := testutil.CallText(t, cs, "echo", `{"message":"back"}`)
		return got == "echo: back"
	})
}

// TestProxyHTTP_Stateless: the Go SDK's client, which speaks the stateless
// protocol (MCP 2026-07-28) to a server that has it, through --listen
// --stateless in front of the Go SDK's stdio server: two clients share one
// server, and every answer is the contract's.
func TestProxyHTTP_Stateless(t *testing.T) {
	_, plain := binaries(t)
	p := listening(t, "--stateless", "--", plain)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var sessions []*mcp.ClientSession
	for range 2 {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.url}, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, p.stderr)
		}
		t.Cleanup(func() { cs.Close() })
		sessions = append(sessions, cs)
	}
	for i, cs := range sessions {
		if got, _ := testutil.CallText(t, cs, "orders.create", fmt.Sprintf(`{"sku":"ABC-000%d","qty":1,"shipping":{"country":"FR"}}`, i)); got != fmt.Sprintf(`{"created":"ABC-000%d","qty":1}`, i) {
			t.Errorf("client %d: orders.create: %s", i, got)
		}
		if got, isError := testutil.CallText(t, cs, "orders.create", `{"sku":"ABC-0001","qty":0,"shipping":{"country":"FR"}}`); !isError || !strings.HasPrefix(got, `<validation_error action="orders.create">`) {
			t.Errorf("client %d: invalid arguments: %s", i, got)
		}
		if got, _ := testutil.CallText(t, cs, "orders.fail", `{}`); !strings.HasPrefix(got, `<tool_error code="TOOL_FAILURE"`) {
			t.Errorf("client %d: a plain failure: %s", i, got)
		}
		if got, _ := testutil.CallText(t, cs, "orders.cancel", `{}`); !strings.HasPrefix(got, `<tool_error code="UNKNOWN_ACTION">`) {
			t.Errorf("client %d: a tool it does not have: %s", i, got)
		}
	}
	if n := len(children(p.pid())); n != 1 {
		t.Errorf("%d servers for two stateless clients, want 1\n%s", n, p.stderr)
	}
}
