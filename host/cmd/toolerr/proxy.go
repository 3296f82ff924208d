package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/toolerr/toolerr/host"
	"github.com/toolerr/toolerr/host/relay"
)

const proxyUsage = `usage: toolerr proxy [--lock FILE] [--call-timeout D] [--init-timeout D] [--restart] [--unknown-tool envelope|server] [--engine E] [--cache DIR] -- COMMAND [ARGS...]

Starts COMMAND as a stdio MCP server and relays MCP between it and the
client on stdin/stdout, message by message. Everything passes as it is
(initialize and its answer, tools/list, prompts, resources, completions,
logging, progress, cancellations, notifications, the server's own requests
such as sampling, elicitation and roots, and their answers), except:

  - every client line goes through toolerr's stdio gate first: a line that
    is not JSON-RPC is ignored (a note on stderr), a malformed request is
    answered with a JSON-RPC error, and tool arguments no server reads
    intact (too large, too deep, out of range, not an object) with a
    <validation_error>; none of them reaches COMMAND;
  - tools/call: the arguments are checked against the tool's inputSchema
    (as COMMAND listed it) inside toolerr's module; invalid ones are
    answered with the <validation_error> (with <contract_awareness> under
    --lock) and never reach COMMAND;
  - COMMAND's failed answers to tools/call: an isError result whose text is
    exactly one envelope passes; any other isError result, or a JSON-RPC
    error for a failure of the tool (not an unknown tool or a malformed
    request), becomes a <tool_error> that keeps the server's text and is
    classified by what it says (ENOENT or "not found": NOT_FOUND; "access
    denied": FORBIDDEN; "rate limit": RATE_LIMITED; ...; else
    TOOL_FAILURE, "the tool did not say why");
  - a failed call of a tool COMMAND did not list: UNKNOWN_ACTION, the
    name called and the tools COMMAND lists, closest first (with
    --unknown-tool server, COMMAND's own answer);
  - no answer within --call-timeout: TIMEOUT; COMMAND gone with calls
    pending: HANDOFF_UPSTREAM_UNAVAILABLE for them.

The contract's logic runs in toolerr's module core: natively by default
(--engine native), or in toolerr.wasm with --engine wazero or extism;
every engine gives the same bytes.

Exit status: COMMAND's (128+N when a signal N ended it), whether it exited
first or was stopped when the client left; 1 when it could not start; 2
for a bad lockfile; 64 for a usage error.
`

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
	// The proxy runs the module's core natively by default: the same
	// sources, byte for byte (the vectors run on every engine), at a
	// fraction of wazero's memory and per-call cost (RATIONALE.md).
	hf := addHostFlags(fs, host.Native)
	lockPath := fs.String("lock", "", "a contract lockfile (toolerr lock): validation errors of a tool changed since carry what changed")
	callTimeout := fs.Duration("call-timeout", 60*time.Second, "how long a tools/call may wait for COMMAND")
	initTimeout := fs.Duration("init-timeout", 30*time.Second, "how long initialize may wait for COMMAND")
	restart := fs.Bool("restart", false, "start COMMAND again when it exits, instead of exiting with it")
	unknownTool := fs.String("unknown-tool", "envelope", "a failed call of a tool COMMAND did not list: envelope (UNKNOWN_ACTION, listing its tools) or server (COMMAND's own answer)")
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
	if *callTimeout <= 0 || *initTimeout <= 0 {
		fmt.Fprint(stderr, "toolerr proxy: --call-timeout and --init-timeout must be positive\n")
		return 64
	}
	if *unknownTool != "envelope" && *unknownTool != "server" {
		fmt.Fprintf(stderr, "toolerr proxy: --unknown-tool must be envelope or server, got %q\n", *unknownTool)
		return 64
	}
	engine, ok := hf.parseEngine(stderr)
	if !ok {
		return 64
	}
	command := args[cut+1:]
	opts := relay.Options{CallTimeout: *callTimeout, InitTimeout: *initTimeout, Restart: *restart, Log: stderr, Name: command[0],
		UnknownToolError: *unknownTool == "server",
		Start:            func(context.Context) (relay.Server, error) { return relay.Command(command[0], command[1:], stderr) }}
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
	return relay.New(opts).Run(ctx, relay.Stdio(stdin, stdout))
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
