package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolerr/toolerr/host"
	"github.com/toolerr/toolerr/host/relay"
)

const proxyUsage = `usage: toolerr proxy [flags] -- COMMAND [ARGS...]     a stdio server, served on stdio
       toolerr proxy --listen HOST:PORT [flags] -- COMMAND [ARGS...]
                                                    ... served over Streamable HTTP, one COMMAND per session
       toolerr proxy --upstream URL [--header "Name: value"]... [--listen HOST:PORT] [flags]
                                                    a Streamable HTTP server, served on stdio or HTTP

Relays MCP between the client (on stdin/stdout, or over MCP's Streamable
HTTP transport at http://HOST:PORT/mcp with --listen) and the server
(COMMAND over its stdin/stdout, or the remote server at URL with
--upstream), message by message. Everything passes as it is (initialize
and its answer, tools/list, prompts, resources, completions, logging,
progress, cancellations, notifications, the server's own requests such as
sampling, elicitation and roots, and their answers), except:

  - every client message goes through toolerr's stdio gate first: one
    that is not JSON-RPC is ignored (a note on stderr; over HTTP, a 400),
    a malformed request is answered with a JSON-RPC error, and tool
    arguments no server reads intact (too large, too deep, out of range,
    not an object) with a <validation_error>; none of them reaches the
    server;
  - tools/call: the arguments are checked against the tool's inputSchema
    (as the server listed it) inside toolerr's module; invalid ones are
    answered with the <validation_error> (with <contract_awareness> under
    --lock) and never reach the server;
  - the server's failed answers to tools/call: an isError result whose
    text is exactly one envelope passes; any other isError result, or a
    JSON-RPC error for a failure of the tool (not an unknown tool or a
    malformed request), becomes a <tool_error> that keeps the server's text
    and is classified by what it says (ENOENT or "not found": NOT_FOUND;
    "access denied": FORBIDDEN; "rate limit": RATE_LIMITED; ...; else
    TOOL_FAILURE, "the tool did not say why"); a call run as a task is
    answered with the task, and the task's result (tasks/result) is read
    as that call's answer;
  - a failed call of a tool the server did not list: UNKNOWN_ACTION, the
    name called and the tools it lists, closest first (with --unknown-tool
    server, the server's own answer);
  - no answer within --call-timeout: TIMEOUT; COMMAND gone, or the
    upstream out of reach or dropping the call, with calls pending:
    HANDOFF_UPSTREAM_UNAVAILABLE for them;
  - a server message that is not valid JSON (a NaN) reaches no client (a
    note on stderr); an answer so written is lost, as above;
  - an answer longer than the proxy reads (64 MiB): RESPONSE_TOO_LARGE
    for a call, at once; a JSON-RPC error for any other request; a
    request of the server that long: -32600 to the server.

On stdio the proxy ends when the client leaves, closing COMMAND's stdin
(SIGTERM 10 s later if it has not ended); SIGINT or SIGTERM to the proxy
sends COMMAND SIGTERM at once, and the proxy ends with its status; on
Linux, COMMAND also gets SIGTERM if the proxy is killed.

--listen serves POST (answered as JSON, or as an event stream when the
server sends something first), GET (the server's own stream) and DELETE
(ends a session), with Mcp-Session-Id. Each session has a COMMAND of its
own, started on initialize and stopped on DELETE, after --idle-timeout, or
when the proxy stops (SIGINT, SIGTERM: SIGTERM to every COMMAND at once);
a COMMAND that exits ends its session only. With --stateless, requests
of the stateless protocol (MCP 2026-07-28: no session, the version in
_meta and in Mcp-Protocol-Version) are served too, sharing one COMMAND
for each Authorization presented, each id and progress token the
client's own, and getting nothing of the server's but their answer and
progress; a request whose headers say otherwise than its body is
refused (400, -32020). Without it they get 400, and a client falls back
to a session of its own. Security: HOST defaults to 127.0.0.1 (a bare PORT or :PORT
binds loopback; name 0.0.0.0 to serve other machines); on loopback a
request whose Host is not a loopback name is refused (DNS rebinding); a
browser Origin other than a loopback one or an --allow-origin is refused
with 403; --auth-token (or TOOLERR_PROXY_TOKEN) makes every request present
"Authorization: Bearer TOKEN" (else 401); a body over the module's request
limit is answered by the gate from its head.

--upstream: the client's initialize opens the upstream's session; the
upstream's event streams are relayed to the client; --header lines go with
every request; with --listen and no --auth-token, the client's
Authorization header is passed on (the proxy holds no credentials of its
own beyond --header). An upstream that ends the session gets a new one
(the client's initialize replayed). A request of the stateless protocol
goes without a session, with the headers that protocol mirrors from its
body (Mcp-Protocol-Version, Mcp-Method, Mcp-Name).

The contract's logic runs in toolerr's module core: natively by default
(--engine native), or in toolerr.wasm with --engine wazero or extism;
every engine gives the same bytes.

Exit status on stdio: COMMAND's (128+N when a signal N ended it), whether
it exited first or was stopped when the client left (0 for an upstream); 1
when it could not start (or, with --listen, when the address cannot be
served); 2 for a bad lockfile; 64 for a usage error. With --listen, 0 once
stopped.
`

// headerFlags is a repeatable --header "Name: value".
type headerFlags struct{ h http.Header }

func (f *headerFlags) String() string { return "" }
func (f *headerFlags) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("want \"Name: value\", got %q", v)
	}
	if f.h == nil {
		f.h = http.Header{}
	}
	f.h.Add(name, strings.TrimSpace(value))
	return nil
}

// listFlag is a repeatable string flag.
type listFlag []string

func (f *listFlag) String() string     { return strings.Join(*f, ",") }
func (f *listFlag) Set(v string) error { *f = append(*f, v); return nil }

// proxyCommand parses the proxy's flags and runs it until the client or,
// without --restart, the child leaves (with --listen, until a signal).
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
	// The proxy runs the module's core natively by default: the same
	// sources, byte for byte (the vectors run on every engine), at a
	// fraction of wazero's memory and per-call cost (RATIONALE.md).
	hf := addHostFlags(fs, host.Native)
	lockPath := fs.String("lock", "", "a contract lockfile (toolerr lock): validation errors of a tool changed since carry what changed")
	callTimeout := fs.Duration("call-timeout", 60*time.Second, "how long a tools/call may wait for the server")
	initTimeout := fs.Duration("init-timeout", 30*time.Second, "how long initialize may wait for the server")
	restart := fs.Bool("restart", false, "start COMMAND again when it exits, instead of exiting with it (ending its session, with --listen)")
	unknownTool := fs.String("unknown-tool", "envelope", "a failed call of a tool the server did not list: envelope (UNKNOWN_ACTION, listing its tools) or server (the server's own answer)")
	listen := fs.String("listen", "", "serve MCP's Streamable HTTP transport at http://HOST:PORT/mcp instead of stdio (HOST defaults to 127.0.0.1)")
	maxSessions := fs.Int("max-sessions", 32, "with --listen: the most sessions at once (each runs its own COMMAND); more are refused with 503")
	idleTimeout := fs.Duration("idle-timeout", 15*time.Minute, "with --listen: end a session no request has used for this long")
	authToken := fs.String("auth-token", "", "with --listen: the bearer token every request must present (default $TOOLERR_PROXY_TOKEN)")
	stateless := fs.Bool("stateless", false, "with --listen: also serve the stateless protocol (MCP 2026-07-28), its requests sharing one COMMAND for each Authorization")
	var origins listFlag
	fs.Var(&origins, "allow-origin", "with --listen: a browser origin allowed besides loopback ones (scheme://host:port, or *); repeatable")
	upstream := fs.String("upstream", "", "relay to the Streamable HTTP MCP server at this URL instead of a COMMAND")
	var headers headerFlags
	fs.Var(&headers, "header", "with --upstream: a header sent with every request to the upstream, \"Name: value\"; repeatable")
	if err := fs.Parse(args[:cut]); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, proxyUsage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return 0
	} else if err != nil {
		fmt.Fprint(stderr, proxyUsage)
		return 64
	}
	usageError := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "toolerr proxy: "+format+"\n", a...)
		return 64
	}
	if fs.NArg() > 0 {
		return usageError("unexpected %q: give the server's command after --", fs.Args())
	}
	var command []string
	if *upstream != "" {
		if cut < len(args) {
			return usageError("--upstream and a command after -- are two servers; give one")
		}
		if u, err := url.Parse(*upstream); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageError("--upstream wants an http:// or https:// URL, got %q", *upstream)
		}
	} else {
		if cut >= len(args)-1 {
			fmt.Fprint(stderr, "toolerr proxy: give the server's command after --, or --upstream URL\n"+proxyUsage)
			return 64
		}
		command = args[cut+1:]
		if headers.h != nil {
			return usageError("--header goes with --upstream")
		}
	}
	if *callTimeout <= 0 || *initTimeout <= 0 {
		return usageError("--call-timeout and --init-timeout must be positive")
	}
	if *unknownTool != "envelope" && *unknownTool != "server" {
		return usageError("--unknown-tool must be envelope or server, got %q", *unknownTool)
	}
	if *listen == "" {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for _, name := range []string{"max-sessions", "idle-timeout", "auth-token", "allow-origin", "stateless"} {
			if set[name] {
				return usageError("--%s goes with --listen", name)
			}
		}
	} else if *maxSessions <= 0 || *idleTimeout <= 0 {
		return usageError("--max-sessions and --idle-timeout must be positive")
	}
	engine, ok := hf.parseEngine(stderr)
	if !ok {
		return 64
	}
	opts := relay.Options{CallTimeout: *callTimeout, InitTimeout: *initTimeout, Restart: *restart, Log: stderr,
		UnknownToolError: *unknownTool == "server"}
	if *upstream != "" {
		// An upstream is reached anew after it ends the session (or was
		// out of reach at a replayed initialize): always "restarted".
		opts.Name, opts.Restart = *upstream, true
		opts.Start = func(context.Context) (relay.Server, error) {
			return relay.Upstream(relay.UpstreamOptions{URL: *upstream, Header: headers.h, Log: stderr}), nil
		}
	} else {
		opts.Name = command[0]
		opts.Start = func(context.Context) (relay.Server, error) { return relay.Command(command[0], command[1:], stderr) }
	}
	if *lockPath != "" {
		var err error
		if opts.Lock, err = readJSONFile(*lockPath); err != nil {
			fmt.Fprintf(stderr, "toolerr proxy: --lock: %v\n", err)
			return 2
		}
	}
	hopts := host.Options{Engine: engine}
	if engine == host.Native {
		// The native core cannot be interrupted anyway, and its calls are
		// linear in their requests: a deadline per call would only cost
		// a timer for each of the two calls of every message.
		hopts.CallTimeout = -1
	}
	h, ok := hf.openWith(ctx, hopts, stderr)
	if !ok {
		return 1
	}
	defer h.Close(ctx)
	opts.Host = h
	if *listen != "" {
		token := *authToken
		if token == "" {
			token = os.Getenv("TOOLERR_PROXY_TOKEN")
		}
		return serveHTTP(ctx, *listen, relay.HTTPOptions{MaxSessions: *maxSessions, IdleTimeout: *idleTimeout, AuthToken: token, Stateless: *stateless,
			AllowOrigins: origins, PassAuthorization: *upstream != "", Log: stderr,
			Session: func(id string, client func() http.Header) relay.Options {
				o := opts
				o.Name = opts.Name + " (session " + id[:8] + ")"
				if *upstream != "" {
					o.Start = func(context.Context) (relay.Server, error) {
						return relay.Upstream(relay.UpstreamOptions{URL: *upstream, Header: headers.h, Client: client, Log: stderr}), nil
					}
				}
				return o
			}}, stderr)
	}
	if oneProcessor {
		runtime.GOMAXPROCS(1)
	}
	client := relay.Stdio(stdin, stdout)
	defer client.Close() // stdin and stdout as they were
	// A client stops its server with SIGTERM when it does not end on its
	// own; the proxy passes it on, rather than leave COMMAND running.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return relay.New(opts).Run(ctx, client)
}

// oneProcessor is set by main (not by tests, which call run in their own
// process) unless GOMAXPROCS is: a proxy on stdio then runs its goroutines
// on one processor. It relays one message at a time between one client and
// one server, and a second processor only let the Go scheduler wake a
// thread to look for work after each message and put it back to sleep,
// on a machine the client and the server share (measured in front of
// server-everything, interleaved with the direct path:
// a valid call through the proxy about 2% faster, its CPU time 10% lower).
// The module is compiled before, with every processor.
var oneProcessor bool

// listenAddress is --listen's address: a bare PORT or :PORT is loopback's.
func listenAddress(listen string) (addr string, loopback bool, err error) {
	if _, err := strconv.Atoi(listen); err == nil {
		listen = ":" + listen
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", false, fmt.Errorf("--listen wants HOST:PORT, got %q", listen)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	loopback = host == "localhost" || ip != nil && ip.IsLoopback()
	return net.JoinHostPort(host, port), loopback, nil
}

// serveHTTP serves the Streamable HTTP transport at /mcp until ctx ends or
// a signal comes, then ends every session.
func serveHTTP(ctx context.Context, listen string, opts relay.HTTPOptions, stderr io.Writer) int {
	addr, loopback, err := listenAddress(listen)
	if err != nil {
		fmt.Fprintf(stderr, "toolerr proxy: %v\n", err)
		return 64
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "toolerr proxy: %v\n", err)
		return 1
	}
	opts.LoopbackOnly = loopback
	if !loopback && opts.AuthToken == "" {
		fmt.Fprintf(stderr, "toolerr proxy: serving %s, which is not loopback, without --auth-token: anyone who reaches it can use the server\n", addr)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	handler := relay.NewHTTPHandler(opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	fmt.Fprintf(stderr, "toolerr proxy: serving MCP at http://%s/mcp\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	status := 0
	select {
	case <-ctx.Done():
	case err := <-served:
		fmt.Fprintf(stderr, "toolerr proxy: %v\n", err)
		status = 1
	}
	handler.Close() // every session's server stopped, and its streams ended
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shutdown)
	return status
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
