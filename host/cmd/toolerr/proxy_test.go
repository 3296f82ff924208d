package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
	"github.com/toolerr/toolerr/internal/testutil"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds this command and testdata/plainserver once per test run.
func binaries(t testing.TB) (toolerr, plain string) {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "toolerr-proxy-test"); buildErr != nil {
			return
		}
		for _, b := range [][2]string{{"toolerr", "."}, {"plainserver", "./testdata/plainserver"}} {
			if out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, b[0]), b[1]).CombinedOutput(); err != nil {
				buildErr = &buildFailure{b[1], string(out)}
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "toolerr"), filepath.Join(binDir, "plainserver")
}

type buildFailure struct{ pkg, out string }

func (e *buildFailure) Error() string { return "go build " + e.pkg + ": " + e.out }

// proxied starts `toolerr proxy FLAGS -- plainserver` and connects the Go
// SDK's client to it; the returned command reports the proxy's exit.
func proxied(t *testing.T, flags ...string) (*mcp.ClientSession, *exec.Cmd, *testutil.SyncBuffer) {
	t.Helper()
	toolerr, plain := binaries(t)
	args := append([]string{"proxy", "--cache", filepath.Join(binDir, "cache")}, flags...)
	cmd := exec.Command(toolerr, append(args, "--", plain)...)
	var stderr testutil.SyncBuffer // written by the process's copying goroutine while the test reads it
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs, cmd, &stderr
}

func direct(t *testing.T) *mcp.ClientSession {
	t.Helper()
	_, plain := binaries(t)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(plain)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func nativeHost(t *testing.T) *host.Host {
	t.Helper()
	h, err := host.New(context.Background(), host.Options{Engine: host.Native})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestProxy_PlainServer(t *testing.T) {
	cs, _, stderr := proxied(t)
	plain := direct(t)
	ctx := context.Background()
	h := nativeHost(t)

	// What passes through: server info, instructions, tools and prompts.
	got, want := cs.InitializeResult(), plain.InitializeResult()
	if got.ServerInfo.Name != want.ServerInfo.Name || got.ServerInfo.Version != want.ServerInfo.Version || got.Instructions != want.Instructions {
		t.Errorf("initialize: got %+v %q, want %+v %q", got.ServerInfo, got.Instructions, want.ServerInfo, want.Instructions)
	}
	listed := func(cs *mcp.ClientSession) string {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.Tools)
		return string(b)
	}
	if g, w := listed(cs), listed(plain); g != w {
		t.Errorf("tools/list through the proxy:\n%s\nwant\n%s", g, w)
	}
	if p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err != nil || p.Messages[0].Content.(*mcp.TextContent).Text != "hello" {
		t.Errorf("prompts/get: %v %v", p, err)
	}

	schema, err := os.ReadFile("testdata/plainserver/orders.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	invalid := func(args string) string {
		r, err := h.Validate(ctx, abi.ValidateRequest{Action: "orders.create", Schema: schema, Args: json.RawMessage(args)})
		if err != nil || r == nil {
			t.Fatalf("Validate(%s) = %v, %v", args, r, err)
		}
		return r.Text()
	}
	// A plain-text failure becomes the module's envelope for it.
	failed := func(text, tool string) string {
		result, _ := json.Marshal(abi.CallToolResult{Content: []abi.Content{{Type: "text", Text: text}}, IsError: true})
		r, err := h.ServerFailure(ctx, abi.ServerFailureRequest{Tool: tool, Result: result})
		if err != nil || r.Verdict != abi.FailureRewrite {
			t.Fatalf("server_failure: %+v %v", r, err)
		}
		var res abi.CallToolResult
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatal(err)
		}
		return res.Text()
	}
	for _, args := range []string{
		`{}`,
		`{"sku":"abc","qty":1,"shipping":{"country":"FR"}}`,
		`{"sku":"ABC-1234","qty":0,"shipping":{"country":"FR"}}`,
		`{"sku":"ABC-1234","qty":1,"priority":"urgent","shipping":{"country":"FR"}}`,
		`{"sku":"ABC-1234","qty":1,"shipping":{"country":"France"}}`,
		`{"sku":"ABC-1234","qty":"one","shipping":{}}`,
		`{"sku":"ABC-1234","qty":1,"shipping":{"country":"FR"},"note":"x"}`,
	} {
		if got, isError := testutil.CallText(t, cs, "orders.create", args); got != invalid(args) || !isError {
			t.Errorf("orders.create %s: got isError=%v\n%s\nwant\n%s", args, isError, got, invalid(args))
		}
	}
	if !strings.Contains(invalid(`{"sku":"ABC-1234","qty":1,"shipping":{"country":"France"}}`), `<field name="shipping.country">`) {
		t.Errorf("a nested field is not named by its path")
	}
	ok := `{"sku":"ABC-1234","qty":2,"priority":"high","shipping":{"country":"FR"}}`
	gotOK, isError := testutil.CallText(t, cs, "orders.create", ok)
	if wantOK, _ := testutil.CallText(t, plain, "orders.create", ok); gotOK != wantOK || isError {
		t.Errorf("success: got isError=%v %q, want %q", isError, gotOK, wantOK)
	}
	cases := []struct{ tool, want string }{
		{"orders.fail", failed("database is down", "orders.fail")},
		{"orders.rpcfail", failed("ledger unreachable", "orders.rpcfail")},
		{"orders.envelope", "<tool_error code=\"CONFLICT\" severity=\"error\">\n<message>Order already shipped</message>\n</tool_error>"},
	}
	for _, tc := range cases {
		if got, isError := testutil.CallText(t, cs, tc.tool, `{}`); got != tc.want || !isError {
			t.Errorf("%s: got isError=%v\n%s\nwant\n%s", tc.tool, isError, got, tc.want)
		}
	}
	// The plain server answers a tool it does not have with a protocol
	// error; through the proxy it is UNKNOWN_ACTION, listing the tools.
	if _, err := plain.CallTool(ctx, &mcp.CallToolParams{Name: "orders.nope", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("unknown tool, direct: %v", err)
	}
	if got, isError := testutil.CallText(t, cs, "orders.nope", `{}`); !isError || !strings.HasPrefix(got, `<tool_error code="UNKNOWN_ACTION">`+"\n"+`<message>The tool "orders.nope" does not exist.</message>`) || !strings.Contains(got, "orders.create") {
		t.Errorf("unknown tool, proxied: got isError=%v\n%s", isError, got)
	}
	if s := stderr.String(); s != "" {
		t.Logf("proxy stderr:\n%s", s)
	}
}

func TestProxy_FollowsListChanged(t *testing.T) {
	cs, _, _ := proxied(t)
	if got, _ := testutil.CallText(t, cs, "orders.more", `{}`); got != "added orders.extra" {
		t.Fatalf("orders.more: %q", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tool := range res.Tools {
			found = found || tool.Name == "orders.extra"
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("orders.extra never appeared through the proxy")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got, isError := testutil.CallText(t, cs, "orders.extra", `{}`); got != "extra" || isError {
		t.Errorf("orders.extra: %q %v", got, isError)
	}
}

func TestProxy_Lockfile(t *testing.T) {
	toolerr, _ := binaries(t)
	dir := t.TempDir()
	// The locked contract had no "priority" and no "qty" minimum.
	old := `[{"name":"orders.create","inputSchema":{"type":"object","required":["sku","shipping"],"properties":{"sku":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{4}$"},"qty":{"type":"integer"},"shipping":{"type":"object","required":["country"],"properties":{"country":{"type":"string","minLength":2,"maxLength":2}}}},"additionalProperties":false}}]`
	var out, errOut bytes.Buffer
	lockCmd := exec.Command(toolerr, "lock", "--engine", "native")
	lockCmd.Stdin, lockCmd.Stdout, lockCmd.Stderr = strings.NewReader(old), &out, &errOut
	if err := lockCmd.Run(); err != nil {
		t.Fatalf("toolerr lock: %v %s", err, errOut.String())
	}
	lock := filepath.Join(dir, "orders.lock.json")
	if err := os.WriteFile(lock, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _, proxyErr := proxied(t, "--lock", lock)
	got, isError := testutil.CallText(t, cs, "orders.create", `{"sku":"ABC-1234","shipping":{"country":"FR"}}`)
	if !isError || !strings.Contains(got, "<contract_awareness>") || !strings.Contains(got, `<max_severity>BREAKING</max_severity>`) {
		t.Errorf("a validation error of a changed tool lacks the awareness block:\n%s\n%s", got, proxyErr)
	}

	// A lockfile that is not one JSON value is refused at start.
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[], "before": []`), 0o644)
	code, _, stderr := runCLI(t, "", "proxy", "--lock", bad, "--", "true")
	if code != 2 || !strings.Contains(stderr, "not one JSON value") {
		t.Errorf("bad lockfile: exit %d, %s", code, stderr)
	}
}

func TestProxy_Usage(t *testing.T) {
	for _, args := range [][]string{{"proxy"}, {"proxy", "--"}, {"proxy", "--call-timeout", "0s", "--", "x"}, {"proxy", "--bogus", "--", "x"}, {"proxy", "--unknown-tool", "drop", "--", "x"},
		{"proxy", "--upstream", "http://127.0.0.1:9/mcp", "--", "x"}, {"proxy", "--upstream", "ftp://example.com/mcp"}, {"proxy", "--upstream", "http://127.0.0.1:9/mcp", "--header", "no colon"},
		{"proxy", "--header", "X-Key: v", "--", "x"}, {"proxy", "--max-sessions", "3", "--", "x"}, {"proxy", "--auth-token", "t", "--", "x"},
		{"proxy", "--listen", "127.0.0.1:0", "--max-sessions", "0", "--", "x"}, {"proxy", "--listen", "no port", "--", "x"}} {
		if code, _, _ := runCLI(t, "", args...); code != 64 {
			t.Errorf("%q: exit %d, want 64", args, code)
		}
	}
}

// exitOf waits for the proxy to exit on its own and returns its status.
func exitOf(t *testing.T, cs *mcp.ClientSession, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan struct{})
	go func() { cs.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the proxy did not exit")
	}
	cs.Close()
	if cmd.ProcessState == nil {
		t.Fatal("no exit status")
	}
	return cmd.ProcessState.ExitCode()
}

func TestProxy_ChildCrashMidCall(t *testing.T) {
	cs, cmd, stderr := proxied(t, "--call-timeout", "30s")
	hung := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fault.hang", Arguments: map[string]any{}})
		if err != nil {
			hung <- "error: " + err.Error()
			return
		}
		hung <- res.Content[0].(*mcp.TextContent).Text
	}()
	time.Sleep(200 * time.Millisecond) // fault.hang is in flight
	got, isError := testutil.CallText(t, cs, "fault.crash", `{}`)
	want := "<tool_error code=\"HANDOFF_UPSTREAM_UNAVAILABLE\" severity=\"error\">\n<message>The server behind tool \"fault.crash\" stopped before answering; the call may or may not have taken effect.</message>\n<recovery>Do not call this tool again in this session; tell the user its server stopped.</recovery>\n</tool_error>"
	if got != want || !isError {
		t.Errorf("the crashing call: got\n%s\nwant\n%s", got, want)
	}
	select {
	case other := <-hung:
		if !strings.HasPrefix(other, `<tool_error code="HANDOFF_UPSTREAM_UNAVAILABLE"`) || !strings.Contains(other, `tool "fault.hang"`) {
			t.Errorf("the call pending when the child crashed: %s", other)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pending call got no answer")
	}
	if code := exitOf(t, cs, cmd); code != 3 {
		t.Errorf("proxy exit status %d, want the child's 3\n%s", code, stderr)
	}
}

func TestProxy_ChildNeverAnswers(t *testing.T) {
	cs, cmd, stderr := proxied(t, "--call-timeout", "500ms")
	start := time.Now()
	got, isError := testutil.CallText(t, cs, "fault.hang", `{}`)
	want := "<tool_error code=\"TIMEOUT\" severity=\"error\">\n<message>Tool \"fault.hang\" did not answer within 500ms.</message>\n<recovery>The call may still complete on the server. Check its effect before calling again, and tell the user if it keeps timing out.</recovery>\n</tool_error>"
	if got != want || !isError {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("the timeout took %v", elapsed)
	}
	// The child is still there and the proxy still serves.
	if got, _ := testutil.CallText(t, cs, "orders.create", `{"sku":"ABC-1234","qty":1,"shipping":{"country":"FR"}}`); got != `{"created":"ABC-1234","qty":1}` {
		t.Errorf("after a timeout: %q", got)
	}
	cs.Close()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("proxy exit status %d when the client left, want 0 (the child's)\n%s", code, stderr)
	}
}

// TestProxy_ChildWritesGarbage: a line on the child's stdout that is not
// JSON-RPC, or not valid JSON (which ends the Go SDK client's session if
// it reaches it), is noted on stderr and skipped; the session goes on.
func TestProxy_ChildWritesGarbage(t *testing.T) {
	cs, _, stderr := proxied(t)
	if got, isError := testutil.CallText(t, cs, "fault.garbage", `{}`); got != "still here" || isError {
		t.Errorf("the call after the garbage line: isError=%v %q", isError, got)
	}
	if got, _ := testutil.CallText(t, cs, "orders.create", `{"sku":"ABC-1234","qty":1,"shipping":{"country":"FR"}}`); got != `{"created":"ABC-1234","qty":1}` {
		t.Errorf("the next call: %q", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stderr.String(), `a line that is not JSON-RPC (20 bytes: "this is not JSON-RPC")`) ||
		!strings.Contains(stderr.String(), "a message that is not valid JSON") {
		if time.Now().After(deadline) {
			t.Fatalf("stderr does not name the line:\n%s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestProxy_AnswerTooLarge: an answer longer than the proxy reads (the Go
// SDK writes its id first) is RESPONSE_TOO_LARGE at once, not a TIMEOUT
// after --call-timeout; the session serves on.
func TestProxy_AnswerTooLarge(t *testing.T) {
	cs, _, _ := proxied(t, "--call-timeout", "10m")
	got, isError := testutil.CallText(t, cs, "fault.huge", `{}`)
	if !isError || !strings.HasPrefix(got, `<tool_error code="RESPONSE_TOO_LARGE" severity="error">`) || !strings.Contains(got, `tool "fault.huge" is longer than the 64 MiB`) {
		t.Errorf("the huge answer: isError=%v %.300q", isError, got)
	}
	if got, _ := testutil.CallText(t, cs, "orders.create", `{"sku":"ABC-1234","qty":1,"shipping":{"country":"FR"}}`); got != `{"created":"ABC-1234","qty":1}` {
		t.Errorf("the next call: %q", got)
	}
}

func TestProxy_Restart(t *testing.T) {
	cs, _, _ := proxied(t, "--restart")
	got, _ := testutil.CallText(t, cs, "fault.crash", `{}`)
	if !strings.Contains(got, "<recovery>The server is being restarted.") {
		t.Errorf("the crashing call under --restart:\n%s", got)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, _ := testutil.CallText(t, cs, "orders.fail", `{}`)
		if strings.HasPrefix(got, `<tool_error code="TOOL_FAILURE"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child never came back: %s", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
