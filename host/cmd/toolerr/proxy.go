package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

const proxyUsage = `usage: toolerr proxy [--lock FILE] [--call-timeout D] [--restart] [--engine E] [--cache DIR] -- COMMAND [ARGS...]

Starts COMMAND as a stdio MCP server and serves MCP on stdin/stdout: tool
arguments are checked against each tool's inputSchema inside toolerr.wasm
before COMMAND sees them, and COMMAND's failures reach the client as
<tool_error> envelopes. Exit status: COMMAND's (128+N when a signal N
ended it), whether it exited first or was stopped when the client left;
at least 1 when COMMAND wrote something that is not JSON-RPC; 2 for a bad
lockfile; 64 for a usage error.
`

// proxyOptions are the proxy's flags.
type proxyOptions struct {
	command     []string
	lock        json.RawMessage // nil without --lock
	callTimeout time.Duration
	restart     bool
}

// proxyCommand parses the proxy's flags and runs it until the client or,
// without --restart, the child leaves.
func proxyCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cut := len(args)
	for i, a := range args {
		if a == "--" {
			cut = i
			break
		}
	}
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	hf := addHostFlags(fs)
	lockPath := fs.String("lock", "", "a contract lockfile (toolerr lock): validation errors of a tool changed since carry what changed")
	callTimeout := fs.Duration("call-timeout", 60*time.Second, "how long a tools/call may wait for COMMAND")
	restart := fs.Bool("restart", false, "start COMMAND again when it exits, instead of exiting with it")
	if err := fs.Parse(args[:cut]); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, proxyUsage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return 0
	} else if err != nil {
		fmt.Fprint(stderr, proxyUsage)
		return 64
	}
	if fs.NArg() > 0 || cut >= len(args)-1 {
		fmt.Fprint(stderr, "toolerr proxy: give the server's command after --\n"+proxyUsage)
		return 64
	}
	if *callTimeout <= 0 {
		fmt.Fprint(stderr, "toolerr proxy: --call-timeout must be positive\n")
		return 64
	}
	engine, ok := hf.parseEngine(stderr)
	if !ok {
		return 64
	}
	opts := proxyOptions{command: args[cut+1:], callTimeout: *callTimeout, restart: *restart}
	if *lockPath != "" {
		var err error
		if opts.lock, err = readJSONFile(*lockPath); err != nil {
			fmt.Fprintf(stderr, "toolerr proxy: --lock: %v\n", err)
			return 2
		}
	}
	h, ok := hf.open(ctx, engine, stderr)
	if !ok {
		return 1
	}
	defer h.Close(ctx)
	return (&proxy{h: h, opts: opts, stderr: stderr}).run(ctx, stdin, stdout)
}

// readJSONFile reads a file that must hold one JSON value.
func readJSONFile(path string) (json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("%s is not one JSON value", path)
	}
	return data, nil
}

// proxy serves one client on behalf of one child server at a time.
//
// # Notes
//   - Tools, prompts and resources are the child's, re-listed whenever the
//     child says its lists changed; the server's own list_changed
//     notifications then tell the client.
//   - Every tools/call runs through Host.HealWith: the module checks the
//     arguments first, and a failure the forwarding handler returns
//     becomes an envelope (see forwardTool for which).
type proxy struct {
	h      *host.Host
	opts   proxyOptions
	stderr io.Writer
	server *mcp.Server

	mu      sync.Mutex
	child   *mcp.ClientSession         // nil while none is connected
	schemas map[string]json.RawMessage // each tool's inputSchema as the child wrote it
	deltas  []abi.Delta                // the lockfile against the child's tools
	listed  map[string]map[string]bool
	syncMu  sync.Mutex // one re-listing at a time
	pending sync.WaitGroup
}

// run starts the child, serves the client and decides what the child's
// end means.
func (p *proxy) run(ctx context.Context, stdin io.Reader, stdout io.Writer) int {
	child, cmd, err := p.startChild(ctx)
	if err != nil {
		fmt.Fprintf(p.stderr, "toolerr proxy: starting %s: %v\n", p.opts.command[0], err)
		return 1
	}
	init := child.InitializeResult()
	info := &mcp.Implementation{Name: "toolerr-proxy", Version: "1"}
	if init != nil && init.ServerInfo != nil {
		info = init.ServerInfo
	}
	serverOpts := &mcp.ServerOptions{Capabilities: forwardedCapabilities(init)}
	if init != nil {
		serverOpts.Instructions = init.Instructions
	}
	p.server = mcp.NewServer(info, serverOpts)
	p.h.HealWith(p.server, host.HealOptions{Contract: p.contract})
	p.server.AddReceivingMiddleware(p.countCalls) // outermost: counts a call until its envelope is rendered
	if err := p.sync(ctx, child); err != nil {
		fmt.Fprintf(p.stderr, "toolerr proxy: listing the server's tools: %v\n", err)
		child.Close()
		return 1
	}
	p.setChild(child)

	serveCtx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	out := &quietWriter{w: stdout}
	served := make(chan error, 1)
	go func() {
		served <- p.server.Run(serveCtx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: out})
	}()
	for {
		ended := make(chan error, 1)
		go func() { ended <- child.Wait() }()
		var broken error // why the session with the child ended
		select {
		case <-served: // the client left: stop the child and pass its status on
			p.setChild(nil)
			child.Close()
			return p.exitStatus(cmd, <-ended) // why the session ended, if it had before
		case broken = <-ended:
		}
		p.setChild(nil)
		child.Close() // reaps the process, or stops one whose output broke the session
		status := p.exitStatus(cmd, broken)
		p.pending.Wait() // every call in flight has its envelope
		if !p.opts.restart {
			out.settle() // the envelopes of those calls are on their way out
			stopServing()
			<-served
			return status
		}
		fmt.Fprintf(p.stderr, "toolerr proxy: %s ended (status %d); starting it again\n", p.opts.command[0], status)
		for {
			if child, cmd, err = p.startChild(ctx); err == nil {
				if err = p.sync(ctx, child); err == nil {
					break
				}
				child.Close()
			}
			fmt.Fprintf(p.stderr, "toolerr proxy: restarting: %v\n", err)
			select {
			case <-served:
				return 0
			case <-time.After(time.Second):
			}
		}
		p.setChild(child)
	}
}

// startChild starts the command and initializes an MCP session with it.
func (p *proxy) startChild(ctx context.Context) (*mcp.ClientSession, *exec.Cmd, error) {
	cmd := exec.Command(p.opts.command[0], p.opts.command[1:]...)
	cmd.Stderr = p.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "toolerr-proxy", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { go p.resync() },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { go p.resync() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { go p.resync() },
	})
	child, err := client.Connect(ctx, &schemaKeeper{inner: &mcp.CommandTransport{Command: cmd}, keep: p.keepSchemas}, nil)
	if err != nil {
		return nil, nil, err
	}
	return child, cmd, nil
}

func (p *proxy) setChild(child *mcp.ClientSession) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.child = child
}

func (p *proxy) currentChild() *mcp.ClientSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.child
}

// contract is what changed in tool's contract since the lockfile; nil
// without --lock or when nothing did.
func (p *proxy) contract(tool string) *abi.Contract {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.deltas) == 0 {
		return nil
	}
	return &abi.Contract{Tool: tool, Deltas: p.deltas}
}

func (p *proxy) resync() {
	child := p.currentChild()
	if child == nil {
		return
	}
	if err := p.sync(context.Background(), child); err != nil {
		fmt.Fprintf(p.stderr, "toolerr proxy: re-listing after list_changed: %v\n", err)
	}
}

// sync makes the served tools, prompts and resources the child's, and
// diffs the lockfile against the child's tools.
func (p *proxy) sync(ctx context.Context, child *mcp.ClientSession) error {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	caps := child.InitializeResult().Capabilities
	now := map[string]map[string]bool{"tools": {}, "prompts": {}, "resources": {}, "templates": {}}
	if caps != nil && caps.Tools != nil {
		var tools []*mcp.Tool
		for t, err := range child.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			tools = append(tools, t)
		}
		if err := p.diffLock(ctx, tools); err != nil {
			return err
		}
		for _, t := range tools {
			if p.addTool(t) {
				now["tools"][t.Name] = true
			}
		}
	}
	if caps != nil && caps.Prompts != nil {
		for pr, err := range child.Prompts(ctx, nil) {
			if err != nil {
				return err
			}
			p.server.AddPrompt(pr, p.forwardPrompt)
			now["prompts"][pr.Name] = true
		}
	}
	if caps != nil && caps.Resources != nil {
		for r, err := range child.Resources(ctx, nil) {
			if err != nil {
				return err
			}
			p.server.AddResource(r, p.forwardResource)
			now["resources"][r.URI] = true
		}
		for t, err := range child.ResourceTemplates(ctx, nil) {
			if err != nil {
				return err
			}
			p.server.AddResourceTemplate(t, p.forwardResource)
			now["templates"][t.URITemplate] = true
		}
	}
	stale := func(kind string) []string {
		var out []string
		for name := range p.listed[kind] {
			if !now[kind][name] {
				out = append(out, name)
			}
		}
		return out
	}
	if s := stale("tools"); len(s) > 0 {
		p.server.RemoveTools(s...)
	}
	if s := stale("prompts"); len(s) > 0 {
		p.server.RemovePrompts(s...)
	}
	if s := stale("resources"); len(s) > 0 {
		p.server.RemoveResources(s...)
	}
	if s := stale("templates"); len(s) > 0 {
		p.server.RemoveResourceTemplates(s...)
	}
	p.listed = now
	return nil
}

// diffLock computes what changed since the lockfile, when there is one.
func (p *proxy) diffLock(ctx context.Context, tools []*mcp.Tool) error {
	if p.opts.lock == nil {
		return nil
	}
	current, err := json.Marshal(tools)
	if err != nil {
		return err
	}
	d, err := p.h.ContractDiff(ctx, p.opts.lock, current)
	if err != nil {
		return fmt.Errorf("diffing --lock against the tools: %w", err)
	}
	p.mu.Lock()
	p.deltas = d.Deltas
	p.mu.Unlock()
	return nil
}

// keepSchemas records the inputSchemas of a tools/list result as the
// child wrote them.
func (p *proxy) keepSchemas(tools map[string]json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.schemas == nil {
		p.schemas = map[string]json.RawMessage{}
	}
	maps.Copy(p.schemas, tools)
}

// addTool serves one of the child's tools, unchanged: its inputSchema is
// the child's own text, since the module reads member order (issues come
// in the order of the schema's properties). The SDK refuses (by
// panicking) a tool whose inputSchema is not an object schema; such a tool
// is left out, with a line on stderr.
func (p *proxy) addTool(t *mcp.Tool) (added bool) {
	p.mu.Lock()
	if raw, ok := p.schemas[t.Name]; ok {
		copied := *t
		copied.InputSchema = raw
		t = &copied
	}
	p.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(p.stderr, "toolerr proxy: leaving out tool %q: %v\n", t.Name, r)
			added = false
		}
	}()
	p.server.AddTool(t, p.forwardTool(t.Name))
	return true
}

// forwardTool calls the child's tool with the client's arguments (which
// HealWith has checked). What comes back:
//   - a success, or an isError result holding an envelope: returned as it is;
//   - an isError result with plain text, or a JSON-RPC error for the call:
//     returned as a plain error, which HealWith renders as INTERNAL_ERROR
//     with that text;
//   - no answer within --call-timeout: TIMEOUT;
//   - the child gone (exited, or its output broke the session):
//     HANDOFF_UPSTREAM_UNAVAILABLE.
func (p *proxy) forwardTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		child := p.currentChild()
		if child == nil {
			return nil, p.unavailable(name)
		}
		callCtx, cancel := context.WithTimeout(ctx, p.opts.callTimeout)
		defer cancel()
		params := &mcp.CallToolParams{Meta: req.Params.Meta, Name: name}
		if req.Params.Arguments != nil {
			params.Arguments = req.Params.Arguments
		}
		res, err := child.CallTool(callCtx, params)
		var wire *jsonrpc.Error
		switch {
		case err == nil && !res.IsError:
			return res, nil
		case err == nil:
			env, perr := p.h.ParseResult(ctx, host.FromMCP(res))
			if perr == nil && env != nil {
				return res, nil
			}
			return nil, errors.New(host.FromMCP(res).Text())
		case ctx.Err() != nil:
			return nil, ctx.Err() // the client cancelled: nobody reads the answer
		case errors.Is(callCtx.Err(), context.DeadlineExceeded):
			return nil, host.NewError("TIMEOUT", fmt.Sprintf("Tool %q did not answer within %s.", name, p.opts.callTimeout)).
				Suggest("The call may still complete on the server. Check its effect before calling again, and tell the user if it keeps timing out.")
		case errors.As(err, &wire):
			return nil, errors.New(wire.Message)
		default:
			return nil, p.unavailable(name)
		}
	}
}

// unavailable is the envelope of a call whose server is gone.
func (p *proxy) unavailable(name string) *host.ErrorBuilder {
	b := host.NewError("HANDOFF_UPSTREAM_UNAVAILABLE", fmt.Sprintf("The server behind tool %q stopped before answering; the call may or may not have taken effect.", name))
	if p.opts.restart {
		return b.Suggest("The server is being restarted. Check whether the call took effect, then call again.")
	}
	return b.Suggest("Do not call this tool again in this session; tell the user its server stopped.")
}

func (p *proxy) forwardPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	child := p.currentChild()
	if child == nil {
		return nil, errors.New("the server behind this prompt stopped")
	}
	return child.GetPrompt(ctx, req.Params)
}

func (p *proxy) forwardResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	child := p.currentChild()
	if child == nil {
		return nil, errors.New("the server behind this resource stopped")
	}
	return child.ReadResource(ctx, req.Params)
}

// forwardedCapabilities advertises what the proxy forwards of the child's
// capabilities: tools, prompts, resources (without subscriptions) and
// logging. Lists may change whenever the child's do, or it restarts.
func forwardedCapabilities(init *mcp.InitializeResult) *mcp.ServerCapabilities {
	caps := &mcp.ServerCapabilities{}
	if init == nil || init.Capabilities == nil {
		return caps
	}
	c := init.Capabilities
	if c.Tools != nil {
		caps.Tools = &mcp.ToolCapabilities{ListChanged: true}
	}
	if c.Prompts != nil {
		caps.Prompts = &mcp.PromptCapabilities{ListChanged: true}
	}
	if c.Resources != nil {
		caps.Resources = &mcp.ResourceCapabilities{ListChanged: true}
	}
	if c.Logging != nil {
		caps.Logging = &mcp.LoggingCapabilities{}
	}
	return caps
}

// exitStatus is the child's exit status as a shell reports it (its exit
// code, or 128+N when signal N ended it), and at least 1 when the session
// ended because the child wrote something that is not JSON-RPC.
func (p *proxy) exitStatus(cmd *exec.Cmd, ended error) int {
	status := 1
	if st := cmd.ProcessState; st != nil {
		status = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = 128 + int(ws.Signal())
		}
	}
	if brokenOutput(ended) {
		fmt.Fprintf(p.stderr, "toolerr proxy: %s wrote something that is not JSON-RPC (%v); stopped it\n", p.opts.command[0], ended)
		status = max(status, 1)
	}
	return status
}

// schemaKeeper is the child's transport, watching the answers to
// tools/list: the SDK's client decodes each inputSchema into a map, which
// loses the order of its members, so the raw text is kept aside.
type schemaKeeper struct {
	inner mcp.Transport
	keep  func(map[string]json.RawMessage)
}

func (k *schemaKeeper) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := k.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &schemaKeeperConn{Connection: conn, keep: k.keep, lists: map[jsonrpc.ID]bool{}}, nil
}

type schemaKeeperConn struct {
	mcp.Connection
	keep  func(map[string]json.RawMessage)
	mu    sync.Mutex
	lists map[jsonrpc.ID]bool // the tools/list requests awaiting an answer
}

func (c *schemaKeeperConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.IsCall() {
		c.mu.Lock()
		c.lists[req.ID] = true
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *schemaKeeperConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok {
		return msg, err
	}
	c.mu.Lock()
	listed := c.lists[resp.ID]
	delete(c.lists, resp.ID)
	c.mu.Unlock()
	if listed {
		var result struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if json.Unmarshal(resp.Result, &result) == nil {
			schemas := make(map[string]json.RawMessage, len(result.Tools))
			for _, t := range result.Tools {
				if len(t.InputSchema) > 0 {
					schemas[t.Name] = t.InputSchema
				}
			}
			c.keep(schemas)
		}
	}
	return msg, nil
}

// brokenOutput reports whether a session ended because the child wrote
// something that is not a JSON-RPC message (rather than by exiting, or by
// the proxy closing it).
func brokenOutput(ended error) bool {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return ended != nil && (errors.As(ended, &syntax) || errors.As(ended, &typ) ||
		strings.Contains(ended.Error(), "jsonrpc message") || strings.Contains(ended.Error(), "version tag"))
}

// countCalls tracks the tools/call requests in flight, so that the proxy
// stops only once each has its answer.
func (p *proxy) countCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			p.pending.Add(1)
			defer p.pending.Done()
		}
		return next(ctx, method, req)
	}
}

// quietWriter is the proxy's stdout as the SDK's transport writes it. The
// SDK writes a response right after its handler returns, so once every
// handler has returned, settle waits for the writes to stop.
type quietWriter struct {
	w      io.Writer
	mu     sync.Mutex
	writes int
}

func (q *quietWriter) Write(b []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.writes++
	return q.w.Write(b)
}

// Close leaves the process's stdout open.
func (q *quietWriter) Close() error { return nil }

// settle returns once nothing was written for 50 ms (at most 2 s).
func (q *quietWriter) settle() {
	count := func() int {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.writes
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		before := count()
		time.Sleep(50 * time.Millisecond)
		if count() == before {
			return
		}
	}
}
