package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	quickstartcalls "github.com/toolerr/toolerr/examples/go/quickstart/calls"
	"github.com/toolerr/toolerr/host"
	"github.com/toolerr/toolerr/host/relay"
	"github.com/toolerr/toolerr/internal/testutil"
)

// Real MCP servers no one here wrote (tests/realservers, pinned by its
// lockfile and installed by make test's prepare phase), each played
// through one scripted session directly and through `toolerr proxy`, by a
// raw JSON-RPC client that compares what it receives byte for byte: the
// answers in order, and everything the server sent besides (notifications,
// and its own requests, which the client answers), as a set. Only failing
// tool calls may differ, and only into envelopes. Each session runs for a
// client that declares sampling, elicitation and roots, and for one that
// declares nothing.

// realServer is one server and its session.
type realServer struct {
	name  string
	start func(dir string) (string, []string, []string) // command, args, extra environment
	setup func(dir string) error                        // files a session reads, made before each run
	steps func(dir string, full bool) []step
	// failures checks the proxied answers of the failing calls.
	failures func(dir string) map[string]failureWant
	// profiles names the two sessions (steps with full true, then false)
	// when they are not a client with every capability and one with none.
	profiles [2]string
}

// step is one message the client sends; a request (id set) waits for its
// answer. wait pauses after sending, for what the server does on its own.
type step struct {
	name   string
	method string
	params string
	notify bool
	fails  bool // a tool call that fails: the proxy may answer with an envelope instead
	// cancelAfter: a request the client cancels after this long; it must
	// get no answer.
	cancelAfter time.Duration
	wait        time.Duration
	// paramsFrom makes params from the answers before (a task's id).
	paramsFrom func(answers map[string][]byte) string
}

// failureWant is what the proxied answer to a failing call must be: an
// envelope of code that keeps the server's text (the direct answer's); or,
// for a tool the server does not have, UNKNOWN_ACTION whose first
// available action is closest; or, for an answer longer than the proxy
// reads (tooLarge), an envelope of code in its stead.
type failureWant struct {
	code, closest string
	tooLarge      bool
}

const realDir = "tests/realservers/node_modules/@modelcontextprotocol"

// venvPython runs the Python servers of tests/realservers/requirements.txt,
// which make prepare installs into the project's virtual environment.
const venvPython = ".venv/bin/python"

func realServers() []realServer {
	node := func(pkg string, args ...string) (string, []string) {
		return "node", append([]string{filepath.Join(realDir, pkg, "dist", "index.js")}, args...)
	}
	return []realServer{
		{
			name: "server-everything",
			start: func(string) (string, []string, []string) {
				cmd, args := node("server-everything", "stdio")
				return cmd, args, nil
			},
			steps: everythingSteps,
		},
		{
			name: "server-filesystem",
			start: func(dir string) (string, []string, []string) {
				cmd, args := node("server-filesystem", dir)
				return cmd, args, nil
			},
			setup: func(dir string) error {
				// A file whose contents make an answer longer than the
				// proxy reads (the TypeScript SDK writes its id last).
				return os.WriteFile(filepath.Join(dir, "huge.txt"), bytes.Repeat([]byte("0123456789abcdef\n"), relay.MaxLineBytes/17+1), 0o644)
			},
			steps: filesystemSteps,
			failures: func(dir string) map[string]failureWant {
				return map[string]failureWant{"read a missing file": {code: "NOT_FOUND"}, "read outside the root": {code: "FORBIDDEN"},
					"call a tool it does not have":            {code: "UNKNOWN_ACTION", closest: "read_text_file"},
					"read a file longer than the proxy reads": {code: "RESPONSE_TOO_LARGE", tooLarge: true}}
			},
		},
		{
			name: "server-memory",
			start: func(dir string) (string, []string, []string) {
				cmd, args := node("server-memory")
				return cmd, args, []string{"MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl")}
			},
			steps: memorySteps,
			failures: func(string) map[string]failureWant {
				return map[string]failureWant{"observe an entity that does not exist": {code: "NOT_FOUND"}}
			},
		},
		{
			name: "mcp-server-time (Python)",
			start: func(string) (string, []string, []string) {
				return venvPython, []string{"-m", "mcp_server_time", "--local-timezone", "UTC"}, nil
			},
			steps: timeSteps,
			failures: func(string) map[string]failureWant {
				// Closest by edit distance: 5 to convert_time, 8 to get_current_time.
				return map[string]failureWant{"a tool it does not have": {code: "UNKNOWN_ACTION", closest: "convert_time"},
					"an empty timezone": {code: "VALIDATION_ERROR"}} // "Missing required argument: timezone"
			},
			profiles: [2]string{"the handshake protocol, a client with sampling, elicitation and roots", "the stateless protocol (2026-07-28)"},
		},
	}
}

func req(name, method, params string) step { return step{name: name, method: method, params: params} }

func toolCall(name, tool, args string) step {
	return req(name, "tools/call", `{"name":"`+tool+`","arguments":`+args+`}`)
}

func failing(s step) step { s.fails = true; return s }

// opening is every session's start: initialize, initialized, and a pause
// for what the server does after it (server-everything registers more
// tools and, for a client with roots, asks for them).
func opening(full bool) []step {
	caps := `{}`
	if full {
		caps = `{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}`
	}
	return []step{
		req("initialize", "initialize", `{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"toolerr-e2e","version":"1.0.0"}}`),
		{name: "initialized", method: "notifications/initialized", notify: true, wait: 500 * time.Millisecond},
		req("ping", "ping", `{}`),
		req("tools/list", "tools/list", `{}`),
	}
}

func everythingSteps(_ string, full bool) []step {
	const doc = "demo://resource/static/document/features.md"
	s := opening(full)
	s = append(s,
		req("prompts/list", "prompts/list", `{}`),
		req("prompts/get simple", "prompts/get", `{"name":"simple-prompt"}`),
		req("prompts/get with arguments", "prompts/get", `{"name":"args-prompt","arguments":{"city":"Paris","state":"IDF"}}`),
		req("resources/list", "resources/list", `{}`),
		req("resources/templates/list", "resources/templates/list", `{}`),
		req("resources/read", "resources/read", `{"uri":"`+doc+`"}`),
		req("completion/complete", "completion/complete", `{"ref":{"type":"ref/prompt","name":"completable-prompt"},"argument":{"name":"department","value":"S"}}`),
		req("completion/complete with context", "completion/complete", `{"ref":{"type":"ref/prompt","name":"completable-prompt"},"argument":{"name":"name","value":""},"context":{"arguments":{"department":"Sales"}}}`),
		req("resources/subscribe", "resources/subscribe", `{"uri":"`+doc+`"}`),
		req("resources/unsubscribe", "resources/unsubscribe", `{"uri":"`+doc+`"}`),
		req("logging/setLevel", "logging/setLevel", `{"level":"debug"}`),
		toolCall("echo", "echo", `{"message":"hello through the relay"}`),
		toolCall("get-sum", "get-sum", `{"a":1.5,"b":2}`),
		toolCall("structured content", "get-structured-content", `{"location":"Chicago"}`),
		toolCall("an image", "get-tiny-image", `{}`),
		toolCall("annotations", "get-annotated-message", `{"messageType":"success","includeImage":true}`),
		req("progress", "tools/call", `{"name":"trigger-long-running-operation","arguments":{"duration":0.3,"steps":3},"_meta":{"progressToken":"progress-1"}}`),
		step{name: "a cancelled call", method: "tools/call", params: `{"name":"trigger-long-running-operation","arguments":{"duration":1,"steps":2}}`, cancelAfter: 200 * time.Millisecond},
		req("an unknown method", "no/such-method", `{}`),
		// A call run as a task (2025-11-25), and its result: the server
		// asks a client that can answer for a clarification on the way.
		req("a call run as a task", "tools/call", `{"name":"simulate-research-query","arguments":{"topic":"tides","ambiguous":`+strconv.FormatBool(full)+`},"task":{"ttl":60000}}`),
		step{name: "the task's result", method: "tasks/result", paramsFrom: taskOf("a call run as a task")},
		failing(toolCall("echo without its message", "echo", `{}`)),
		failing(toolCall("echo with a number", "echo", `{"message":5}`)),
		failing(toolCall("an unknown tool", "no-such-tool", `{}`)),
	)
	if full {
		s = append(s,
			toolCall("sampling", "trigger-sampling-request", `{"prompt":"Say hi","maxTokens":16}`),
			toolCall("elicitation", "trigger-elicitation-request", `{}`),
			toolCall("roots", "get-roots-list", `{}`),
			step{name: "roots changed", method: "notifications/roots/list_changed", notify: true, wait: 300 * time.Millisecond},
			toolCall("roots after the change", "get-roots-list", `{}`),
		)
	}
	return append(s, req("ping at the end", "ping", `{}`))
}

func filesystemSteps(dir string, full bool) []step {
	file := func(name string) string { b, _ := json.Marshal(filepath.Join(dir, name)); return string(b) }
	return append(opening(full),
		toolCall("allowed directories", "list_allowed_directories", `{}`),
		toolCall("write a file", "write_file", `{"path":`+file("notes.txt")+`,"content":"line one\nline two\n"}`),
		toolCall("read it", "read_text_file", `{"path":`+file("notes.txt")+`}`),
		toolCall("read its head", "read_text_file", `{"path":`+file("notes.txt")+`,"head":1}`),
		toolCall("make a directory", "create_directory", `{"path":`+file("sub")+`}`),
		toolCall("list the root", "list_directory", `{"path":`+file("")+`}`),
		toolCall("a tree", "directory_tree", `{"path":`+file("")+`}`),
		failing(toolCall("read a missing file", "read_text_file", `{"path":`+file("missing.txt")+`}`)),
		failing(toolCall("read outside the root", "read_text_file", `{"path":"/etc/hostname"}`)),
		failing(toolCall("read without a path", "read_text_file", `{}`)),
		failing(toolCall("call a tool it does not have", "read_txt_file", `{"path":`+file("notes.txt")+`}`)),
		failing(toolCall("read a file longer than the proxy reads", "read_text_file", `{"path":`+file("huge.txt")+`}`)),
		req("ping at the end", "ping", `{}`),
	)
}

// timeSteps: the full client's session speaks the handshake protocol; the
// other the stateless one (MCP 2026-07-28): server/discover, no
// handshake, no ping, and the version and the client's capabilities in the
// _meta of every request. The server's answers name today's date and
// weekday (unstamped blanks them).
func timeSteps(_ string, full bool) []step {
	calls := []step{
		toolCall("the time in UTC", "get_current_time", `{"timezone":"UTC"}`),
		toolCall("convert a time", "convert_time", `{"source_timezone":"Europe/Paris","time":"12:00","target_timezone":"Asia/Kathmandu"}`),
		failing(toolCall("a timezone that does not exist", "get_current_time", `{"timezone":"Mars/Olympus"}`)),
		failing(toolCall("a time that is not HH:MM", "convert_time", `{"source_timezone":"UTC","time":"noon","target_timezone":"Asia/Tokyo"}`)),
		failing(toolCall("an empty timezone", "get_current_time", `{"timezone":""}`)),
		failing(toolCall("no timezone", "get_current_time", `{}`)),
		failing(toolCall("a timezone that is a number", "get_current_time", `{"timezone":5}`)),
		failing(toolCall("a tool it does not have", "get_time", `{"timezone":"UTC"}`)),
	}
	if full {
		return append(append(opening(true), calls...), req("ping at the end", "ping", `{}`))
	}
	s := append([]step{req("server/discover", "server/discover", `{}`), req("tools/list", "tools/list", `{}`)}, calls...)
	for i := range s {
		s[i].params = strings.TrimSuffix(s[i].params, "}")
		if s[i].params != "{" {
			s[i].params += ","
		}
		s[i].params += `"_meta":{"` + protocolVersionKey + `":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
	}
	return s
}

// protocolVersionKey is the member of _meta by which a request of the
// stateless protocol names its version.
const protocolVersionKey = "io.modelcontextprotocol/protocolVersion"

func memorySteps(_ string, full bool) []step {
	return append(opening(full),
		toolCall("create entities", "create_entities", `{"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]},{"name":"Engine","entityType":"machine","observations":[]}]}`),
		toolCall("create a relation", "create_relations", `{"relations":[{"from":"Ada","to":"Engine","relationType":"programmed"}]}`),
		toolCall("add observations", "add_observations", `{"observations":[{"entityName":"Engine","contents":["analytical"]}]}`),
		toolCall("read the graph", "read_graph", `{}`),
		toolCall("search", "search_nodes", `{"query":"Ada"}`),
		toolCall("open nodes", "open_nodes", `{"names":["Engine"]}`),
		failing(toolCall("observe an entity that does not exist", "add_observations", `{"observations":[{"entityName":"Nobody","contents":["x"]}]}`)),
		failing(toolCall("entities of the wrong shape", "create_entities", `{"entities":"Ada"}`)),
		toolCall("delete an entity", "delete_entities", `{"entityNames":["Engine"]}`),
		req("ping at the end", "ping", `{}`),
	)
}

// transcript is what one session received.
type transcript struct {
	answers map[string][]byte // by step name; nil for a cancelled call that got none
	others  []string          // notifications and server requests, as received
}

// rawClient is a JSON-RPC client over a server's stdio that answers the
// server's requests itself: sampling with a fixed message, elicitation
// declined, roots with dir.
type rawClient struct {
	*stdioServer
	dir    string
	mu     sync.Mutex
	others []string
}

func startRaw(ctx context.Context, dir, command string, args, env []string) (*rawClient, error) {
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Env = append(os.Environ(), env...)
	p, err := startStdio(cmd)
	if err != nil {
		return nil, err
	}
	return &rawClient{stdioServer: p, dir: dir}, nil
}

// handle records a message that is not the awaited answer, answering a
// server request.
func (c *rawClient) handle(msg []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(msg, &m)
	c.mu.Lock()
	c.others = append(c.others, string(msg))
	c.mu.Unlock()
	if m.Method == "" || len(m.ID) == 0 {
		return
	}
	var result string
	switch m.Method {
	case "sampling/createMessage":
		result = `{"role":"assistant","content":{"type":"text","text":"Hi from the test client"},"model":"test-model","stopReason":"endTurn"}`
	case "elicitation/create":
		result = `{"action":"decline"}`
	case "roots/list":
		uri, _ := json.Marshal("file://" + c.dir)
		result = `{"roots":[{"uri":` + string(uri) + `,"name":"test root"}]}`
	case "ping":
		result = `{}`
	default:
		c.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`)
		return
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`)
}

// await reads until the answer to id, handling everything else; nil at
// the deadline.
func (c *rawClient) await(id string, deadline time.Duration) []byte {
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	for {
		select {
		case msg, ok := <-c.lines:
			if !ok {
				return nil
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(msg, &m) == nil && m.Method == "" && string(m.ID) == id {
				return msg
			}
			c.handle(msg)
		case <-timer.C:
			return nil
		}
	}
}

// drain handles what arrives for d.
func (c *rawClient) drain(d time.Duration) { c.await(`"never"`, d) }

// play runs steps and returns what came back.
func (c *rawClient) play(steps []step) (*transcript, error) {
	t := &transcript{answers: map[string][]byte{}}
	for i, s := range steps {
		if s.notify {
			if err := c.send(`{"jsonrpc":"2.0","method":"` + s.method + `","params":{}}`); err != nil {
				return nil, err
			}
			c.drain(s.wait)
			continue
		}
		id := fmt.Sprint(i + 1)
		params := s.params
		if s.paramsFrom != nil {
			params = s.paramsFrom(t.answers)
		}
		if err := c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + s.method + `","params":` + params + `}`); err != nil {
			return nil, err
		}
		if s.cancelAfter > 0 {
			c.drain(s.cancelAfter)
			c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"the test cancels it"}}`)
			t.answers[s.name] = c.await(id, 1500*time.Millisecond) // the operation's length and more
			continue
		}
		answer := c.await(id, 30*time.Second)
		if answer == nil {
			return nil, fmt.Errorf("%s: no answer", s.name)
		}
		t.answers[s.name] = answer
		c.drain(s.wait)
	}
	c.mu.Lock()
	t.others = append([]string(nil), c.others...)
	c.mu.Unlock()
	return t, nil
}

// playRealServers runs every real server's session for both clients,
// directly and through the proxy, and compares them.
func playRealServers(ctx context.Context, h *host.Host) (passed, failed int) {
	if _, err := os.Stat(realDir); err != nil {
		fmt.Printf("FAIL real servers: %s is missing (make prepare installs it): %v\n", realDir, err)
		return 0, 1
	}
	// The sessions run three at a time, each pair (direct, then proxied)
	// in a directory of its own.
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, 3)
	for _, rs := range realServers() {
		for _, full := range []bool{true, false} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				slots <- struct{}{}
				defer func() { <-slots }()
				profile := "a client that declares nothing"
				if full {
					profile = "a client with sampling, elicitation and roots"
				}
				if rs.profiles[0] != "" {
					profile = rs.profiles[map[bool]int{true: 0, false: 1}[full]]
				}
				start := time.Now()
				p, f := playReal(ctx, h, rs, full)
				mu.Lock()
				defer mu.Unlock()
				passed, failed = passed+p, failed+f
				fmt.Fprintf(os.Stderr, "%s, %s: %d checks alike, %d differ, in %.1fs\n", rs.name, profile, p, f, time.Since(start).Seconds())
			}()
		}
	}
	wg.Wait()
	p, f := playSDKClient(ctx, h)
	return passed + p, failed + f
}

func playReal(ctx context.Context, h *host.Host, rs realServer, full bool) (passed, failed int) {
	dir, err := os.MkdirTemp("", "toolerr-real-")
	if err != nil {
		fmt.Printf("FAIL %s: %v\n", rs.name, err)
		return 0, 1
	}
	defer os.RemoveAll(dir)
	dir, _ = filepath.EvalSymlinks(dir)
	run := func(proxied bool) (*transcript, error) {
		// The same directory, emptied, for both runs: the servers' texts
		// name its paths.
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
		if rs.setup != nil {
			if err := rs.setup(dir); err != nil {
				return nil, err
			}
		}
		command, args, env := rs.start(dir)
		if proxied {
			args = append([]string{"proxy", "--", command}, args...)
			command = "bin/toolerr"
		}
		c, err := startRaw(ctx, dir, command, args, env)
		if err != nil {
			return nil, err
		}
		defer c.stop(2 * time.Second) // then SIGTERM, as the Python SDK's client stops a server
		return c.play(rs.steps(dir, full))
	}
	direct, err := run(false)
	if err != nil {
		fmt.Printf("FAIL %s direct: %v\n", rs.name, err)
		return 0, 1
	}
	proxied, err := run(true)
	if err != nil {
		fmt.Printf("FAIL %s through the proxy: %v\n", rs.name, err)
		return 0, 1
	}
	var wants map[string]failureWant
	if rs.failures != nil {
		wants = rs.failures(dir)
	}
	for _, s := range rs.steps(dir, full) {
		if s.notify {
			continue
		}
		d, p := unstamped(direct.answers[s.name]), unstamped(proxied.answers[s.name])
		problem := ""
		switch {
		case s.cancelAfter > 0 && (d != nil || p != nil):
			problem = fmt.Sprintf("a cancelled call was answered: direct %s, proxied %s", d, p)
		case bytes.Equal(d, p):
			if want, ok := wants[s.name]; ok {
				problem = fmt.Sprintf("a failing call passed unchanged, want a %s envelope: %s", want.code, p)
			}
		case s.fails:
			problem = checkEnvelope(ctx, h, d, p, wants[s.name])
			if problem == "" && strings.Contains(s.params, protocolVersionKey) && !bytes.Contains(p, []byte(`"resultType":"complete"`)) {
				// The stateless protocol requires it of every result: the
				// Python SDK's client refuses one without it.
				problem = fmt.Sprintf("the answer to a request of the stateless protocol has no resultType: %s", p)
			}
		default:
			problem = fmt.Sprintf("direct:\n%s\nproxied:\n%s", d, p)
		}
		if os.Getenv("E2E_SHOW") != "" && (s.fails || strings.HasPrefix(s.name, "sampling") || s.name == "progress" || s.name == "initialize") {
			fmt.Fprintf(os.Stderr, "== %s %s\ndirect:  %.600s\nproxied: %.600s\n", rs.name, s.name, d, p)
		}
		if problem != "" {
			fmt.Printf("FAIL %s %q (full client %v): %s\n", rs.name, s.name, full, problem)
			failed++
		} else {
			passed++
		}
	}
	if d, p := sortedCopy(direct.others), sortedCopy(proxied.others); strings.Join(d, "\n") != strings.Join(p, "\n") {
		fmt.Printf("FAIL %s (full client %v): the server's own messages differ\ndirect:\n%s\nproxied:\n%s\n", rs.name, full, strings.Join(d, "\n"), strings.Join(p, "\n"))
		failed++
	} else {
		passed++
	}
	return passed, failed
}

// checkEnvelope: the proxied answer to a failing call is a result holding
// an envelope; with want, a tool_error of want.code that keeps the
// server's text and does not say the arguments were fine.
func checkEnvelope(ctx context.Context, h *host.Host, direct, proxied []byte, want failureWant) string {
	var p struct {
		Result *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if json.Unmarshal(proxied, &p) != nil || p.Result == nil || !p.Result.IsError || len(p.Result.Content) == 0 {
		return fmt.Sprintf("the proxied answer is not an isError result: %s", proxied)
	}
	env, err := h.Parse(ctx, p.Result.Content[0].Text)
	if err != nil || env == nil {
		return fmt.Sprintf("the proxied answer holds no envelope: %s", proxied)
	}
	if want.code == "" {
		return ""
	}
	if env.Kind != "tool_error" || env.Code != want.code {
		return fmt.Sprintf("want a %s tool_error, got %s %s: %s", want.code, env.Kind, env.Code, proxied)
	}
	if want.closest != "" {
		if len(env.AvailableActions) == 0 || env.AvailableActions[0] != want.closest {
			return fmt.Sprintf("want the tools listed, %s first: %v", want.closest, env.AvailableActions)
		}
		return ""
	}
	if want.tooLarge {
		if len(direct) <= relay.MaxLineBytes || bytes.Contains(direct, []byte(`"isError":true`)) {
			return fmt.Sprintf("the direct answer is not a success longer than %d bytes (%d bytes)", relay.MaxLineBytes, len(direct))
		}
		return ""
	}
	if env.Recovery != nil && strings.Contains(*env.Recovery, "not a problem with your arguments") {
		return "the envelope says the arguments were fine: " + *env.Recovery
	}
	var d struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	json.Unmarshal(direct, &d)
	said := d.Error.Message
	if len(d.Result.Content) > 0 {
		said = d.Result.Content[0].Text
	}
	if said == "" || !strings.Contains(env.Message, said) {
		return fmt.Sprintf("the envelope's message %q does not keep the server's text %q", env.Message, said)
	}
	return ""
}

// sortedCopy is s unstamped, in order.
func sortedCopy(s []string) []string {
	out := make([]string, len(s))
	for i, m := range s {
		out[i] = string(unstamped([]byte(m)))
	}
	sort.Strings(out)
	return out
}

// stamps are what differs between two runs of the same session: a task's
// id and times; dates with times, and weekdays (the time server's).
var (
	stamps   = regexp.MustCompile(`"(taskId|createdAt|lastUpdatedAt)":"[^"]*"`)
	dates    = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{2}:[0-9]{2}`)
	weekdays = regexp.MustCompile(`\b(Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b`)
)

// unstamped is msg with its stamps blanked (nil stays nil).
func unstamped(msg []byte) []byte {
	if msg == nil {
		return nil
	}
	msg = stamps.ReplaceAll(msg, []byte(`"$1":"…"`))
	msg = dates.ReplaceAll(msg, []byte(`DATE`))
	return weekdays.ReplaceAll(msg, []byte(`WEEKDAY`))
}

// taskOf makes tasks/result params naming the task that the answer to
// step started.
func taskOf(step string) func(map[string][]byte) string {
	return func(answers map[string][]byte) string {
		var a struct {
			Result struct {
				Task struct {
					TaskID string `json:"taskId"`
				} `json:"task"`
			} `json:"result"`
		}
		json.Unmarshal(answers[step], &a)
		id, _ := json.Marshal(a.Result.Task.TaskID)
		return `{"taskId":` + string(id) + `}`
	}
}

// The Python SDK's own Client (tests/e2e/sdk_client.py) through `toolerr
// proxy` in front of the Python time server, in the stateless protocol
// (the Client's default with a server that has it) and in the handshake
// one: every answer the proxy writes must be one the Client reads (the
// stateless protocol requires resultType of every result, and the Client
// raises on a result without it), and every failure an envelope.

// sdkCall is one call the Client makes, and what its answer must be: an
// envelope of code (validation: a <validation_error>), or a success.
type sdkCall struct {
	tool string
	args any
	code string // "" for a success
}

func sdkCalls() []sdkCall {
	deep := any(1)
	for range 70 {
		deep = []any{deep}
	}
	return []sdkCall{
		{"get_current_time", map[string]any{"timezone": "UTC"}, ""},
		{"get_current_time", map[string]any{"timezone": 5}, "validation"},                // the proxy checks the schema
		{"get_current_time", map[string]any{"timezone": deep}, "validation"},             // the module's gate
		{"get_current_time", map[string]any{"timezone": "Mars/Olympus"}, "TOOL_FAILURE"}, // the server's own failure, rewritten
		{"get_time", map[string]any{"timezone": "UTC"}, "UNKNOWN_ACTION"},                // the server's protocol error, rewritten
		{"convert_time", map[string]any{"source_timezone": "UTC", "time": "noon", "target_timezone": "UTC"}, "TOOL_FAILURE"},
	}
}

func playSDKClient(ctx context.Context, h *host.Host) (passed, failed int) {
	calls := sdkCalls()
	in := make([][2]any, len(calls))
	for i, c := range calls {
		in[i] = [2]any{c.tool, c.args}
	}
	stdin, _ := json.Marshal(in)
	server := []string{venvPython, "-m", "mcp_server_time", "--local-timezone", "UTC"}
	// Over HTTP: the proxy serves --listen (with flags), one of it for
	// every run.
	listen := func(ctx context.Context, flags ...string) (string, func(), error) {
		args := append(append([]string{"proxy", "--listen", "127.0.0.1:0"}, flags...), "--")
		cmd := exec.CommandContext(ctx, "bin/toolerr", append(args, server...)...)
		stderr := &testutil.SyncBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			return "", nil, err
		}
		stop := func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, rest, ok := strings.Cut(stderr.String(), "serving MCP at "); ok && strings.Contains(rest, "\n") {
				url, _, _ := strings.Cut(rest, "\n")
				return url, stop, nil
			}
		}
		stop()
		return "", nil, fmt.Errorf("the proxy did not say where it serves: %s", stderr)
	}
	for _, run := range []struct{ mode, version, transport string }{
		{"auto", "2026-07-28", "stdio"}, {"2026-07-28", "2026-07-28", "stdio"}, {"legacy", "2025-11-25", "stdio"},
		{"auto", "2025-11-25", "http"}, // without --stateless the Client falls back to a session
		{"auto", "2026-07-28", "http --stateless"}, {"2026-07-28", "2026-07-28", "http --stateless"}, {"legacy", "2025-11-25", "http --stateless"},
	} {
		start := time.Now()
		runCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
		var problems []string
		target := append([]string{"bin/toolerr", "proxy", "--"}, server...)
		if transport, flags, _ := strings.Cut(run.transport, " "); transport == "http" {
			url, stop, err := listen(runCtx, strings.Fields(flags)...)
			if err != nil {
				problems = append(problems, err.Error())
			} else {
				defer stop()
				target = []string{url}
			}
		}
		if len(problems) == 0 {
			cmd := exec.CommandContext(runCtx, venvPython, append([]string{"tests/e2e/sdk_client.py", run.mode}, target...)...)
			cmd.Stdin = bytes.NewReader(stdin)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			problems = checkSDKClient(ctx, h, out, run.version, calls)
			if err != nil {
				problems = append(problems, fmt.Sprintf("the client ended with %v: %s", err, lastLines(stderr.String(), 5)))
			}
		}
		cancel()
		for _, p := range problems {
			fmt.Printf("FAIL the Python SDK's Client (%s, %s) through the proxy: %s\n", run.mode, run.transport, p)
		}
		if len(problems) > 0 {
			failed++
		} else {
			passed++
		}
		fmt.Fprintf(os.Stderr, "the Python SDK's Client through the proxy, mode %s over %s: %d calls, %d problems, in %.1fs\n", run.mode, run.transport, len(calls), len(problems), time.Since(start).Seconds())
	}
	return passed, failed
}

// checkSDKClient reads sdk_client.py's lines: the protocol, then each
// call's answer.
func checkSDKClient(ctx context.Context, h *host.Host, out []byte, version string, calls []sdkCall) []string {
	var problems []string
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			problems = append(problems, fmt.Sprintf("a line that is not JSON: %q", line))
			continue
		}
		lines = append(lines, m)
	}
	if len(lines) != len(calls)+1 {
		return append(problems, fmt.Sprintf("%d lines, want %d: %s", len(lines), len(calls)+1, out))
	}
	if got := lines[0]["protocolVersion"]; got != version {
		problems = append(problems, fmt.Sprintf("protocol %v, want %s", got, version))
	}
	for i, c := range calls {
		l := lines[i+1]
		text := ""
		if texts, _ := l["texts"].([]any); len(texts) > 0 {
			text, _ = texts[0].(string)
		}
		switch {
		case l["raised"] != nil:
			problems = append(problems, fmt.Sprintf("%s %v: the Client raised %v", c.tool, c.args, l["raised"]))
		case c.code == "":
			if l["isError"] != false {
				problems = append(problems, fmt.Sprintf("%s: not a success: %s", c.tool, text))
			}
		case l["isError"] != true:
			problems = append(problems, fmt.Sprintf("%s: not a failure: %s", c.tool, text))
		case c.code == "validation":
			if !strings.HasPrefix(text, `<validation_error action="`+c.tool+`">`) {
				problems = append(problems, fmt.Sprintf("%s: not a validation error: %s", c.tool, text))
			}
		default:
			if env, err := h.Parse(ctx, text); err != nil || env == nil || env.Code != c.code {
				problems = append(problems, fmt.Sprintf("%s: not a %s envelope: %s", c.tool, c.code, text))
			}
		}
	}
	return problems
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// playQuickstartsSDKClient plays examples/quickstart.json's calls, and
// arguments nested too deeply for the module's gate, against every
// quickstart through the Python SDK's own Client (tests/e2e/sdk_client.py)
// in its default mode, which speaks the stateless protocol (2026-07-28) to
// a server whose SDK has it and the handshake to the others: every answer
// must be one the Client reads, and what the calls say.
func playQuickstartsSDKClient(ctx context.Context, quickstarts []server) (passed, failed int, err error) {
	spec, err := quickstartcalls.Load("examples/quickstart.json")
	if err != nil {
		return 0, 0, err
	}
	deep := json.RawMessage(`{"id":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`)
	spec = append(spec, quickstartcalls.Call{Tool: "billing.get_invoice", Arguments: deep, IsError: true,
		StartsWith: `<validation_error action="billing.get_invoice">` + "\n" + `<field name="(root)">The arguments are nested too deeply`})
	in := make([][2]json.RawMessage, len(spec))
	for i, c := range spec {
		in[i] = [2]json.RawMessage{json.RawMessage(strconv.Quote(c.Tool)), c.Arguments}
	}
	stdin, _ := json.Marshal(in)
	for _, s := range quickstarts {
		runCtx, cancel := context.WithTimeout(ctx, 90*time.Second)
		cmd := exec.CommandContext(runCtx, venvPython, append([]string{"tests/e2e/sdk_client.py", "auto"}, strings.Fields(s.Start)...)...)
		cmd.Stdin = bytes.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, runErr := cmd.Output()
		cancel()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		var first struct{ ProtocolVersion string }
		json.Unmarshal([]byte(lines[0]), &first)
		if runErr != nil || len(lines) != len(spec)+1 {
			fmt.Printf("FAIL quickstart %s with the Python SDK's Client: %v, %d lines for %d calls: %s\n", s.Name, runErr, len(lines), len(spec), lastLines(stderr.String(), 5))
			failed++
			continue
		}
		for i, c := range spec {
			var got struct {
				IsError bool
				Texts   []string
				Raised  string
			}
			json.Unmarshal([]byte(lines[i+1]), &got)
			problem := got.Raised
			if problem == "" {
				problem = c.Check(got.Texts, got.IsError)
			} else {
				problem = "the Client raised " + problem
			}
			if problem != "" {
				fmt.Printf("FAIL quickstart %s with the Python SDK's Client (%s) %s %.80s: %s\n%q\n", s.Name, first.ProtocolVersion, c.Tool, c.Arguments, problem, got.Texts)
				failed++
			} else {
				passed++
			}
		}
		fmt.Fprintf(os.Stderr, "quickstart %s with the Python SDK's Client: protocol %s\n", s.Name, first.ProtocolVersion)
	}
	return passed, failed, nil
}
