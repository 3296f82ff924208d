// Command toolerr runs toolerr's contract from the command line, through
// the embedded toolerr.wasm.
//
//	toolerr demo [--engine E]            render the demo envelopes and parse one back
//	toolerr call EXPORT [--engine E]     one JSON request on stdin, the response on stdout
//	toolerr batch [--engine E]           the batch protocol: JSON lines in, JSON lines out
//	toolerr describe [--engine E]        what the module says of itself
//	toolerr lock [--engine E]            MCP tools on stdin, their contract lockfile on stdout
//	toolerr diff OLD NEW [--json]        compare two contracts; exit 1 when a change is BREAKING
//	toolerr proxy [flags] -- COMMAND...  relay MCP to COMMAND, its failures as the contract's envelopes
//	toolerr proxy --listen HOST:PORT ... the same over Streamable HTTP (one COMMAND per session)
//	toolerr proxy --upstream URL ...     the same in front of a remote Streamable HTTP server
//
// E is wazero (the default), extism or native. An ABI error exits 2 with the
// error object on stderr; a usage error exits 64.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
	_ "github.com/toolerr/toolerr/host/extism" // the engine "extism"
	"github.com/toolerr/toolerr/plugin"
)

const usage = `usage:
  toolerr demo [--engine wazero|extism|native]
  toolerr call EXPORT [--engine ...]   < request.json
  toolerr batch [--engine ...]         < requests.jsonl
  toolerr describe [--engine ...]
  toolerr lock [--engine ...]          < tools.json > toolerr.lock.json
  toolerr diff OLD NEW [--json] [--engine ...]
  toolerr proxy [--lock FILE] [--call-timeout D] [--init-timeout D] [--restart] [--engine ...] -- COMMAND [ARGS...]
  toolerr proxy --listen HOST:PORT [--max-sessions N] [--idle-timeout D] [--auth-token T] [--allow-origin O]... [...] -- COMMAND [ARGS...]
  toolerr proxy --upstream URL [--header "Name: value"]... [--listen HOST:PORT] [...]
  toolerr help                          this text (also -h, --help, and after any command)

Flags may come before or after the arguments. --engine: wazero (default), extism or native;
--cache DIR: wazero's compilation cache (default under the user cache directory, "" for none).
`

func main() {
	oneProcessor = os.Getenv("GOMAXPROCS") == ""
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// positionals is how many arguments each command takes besides its flags.
var positionals = map[string]int{"demo": 0, "call": 1, "batch": 0, "describe": 0, "lock": 0, "diff": 2}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 64
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case "proxy":
		return proxyCommand(ctx, rest, stdin, stdout, stderr)
	}
	want, known := positionals[cmd]
	if !known {
		fmt.Fprintf(stderr, "toolerr: unknown command %q\n%s", cmd, usage)
		return 64
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	hf := addHostFlags(fs, host.Wazero)
	asJSON := fs.Bool("json", false, "diff: print the deltas as JSON")
	args, err := parseInterspersed(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolerr %s: %v\n%s", cmd, err, usage)
		return 64
	}
	if len(args) != want {
		fmt.Fprintf(stderr, "toolerr %s: takes %d argument(s) besides its flags, got %d %q\n%s", cmd, want, len(args), args, usage)
		return 64
	}
	engine, ok := hf.parseEngine(stderr)
	if !ok {
		return 64
	}
	var export string
	if cmd == "call" {
		if export = args[0]; !abi.HasExport(export) {
			msg := fmt.Sprintf("unknown export %q; the exports are %s", export, strings.Join(abi.ExportNames(), ", "))
			return refused(stderr, abi.Errorf(abi.CodeInvalidRequest, "%s", msg))
		}
	}
	h, ok := hf.open(ctx, engine, stderr)
	if !ok {
		return 1
	}
	defer h.Close(ctx)
	switch cmd {
	case "demo":
		return demo(ctx, h, stdout, stderr)
	case "call":
		return call(ctx, h, export, stdin, stdout, stderr)
	case "describe":
		return call(ctx, h, "describe", nil, stdout, stderr)
	case "lock":
		return lock(ctx, h, stdin, stdout, stderr)
	case "diff":
		return diff(ctx, h, args[0], args[1], *asJSON, stdout, stderr)
	default:
		if err := batch(ctx, h, stdin, stdout); err != nil {
			fmt.Fprintln(stderr, "toolerr batch:", err)
			return 1
		}
		return 0
	}
}

// call runs one request read whole from stdin (nil means {}).
func call(ctx context.Context, h *host.Host, export string, stdin io.Reader, stdout, stderr io.Writer) int {
	req := []byte("{}")
	if stdin != nil {
		var err error
		if req, err = io.ReadAll(io.LimitReader(stdin, abi.MaxRequestBytes+1)); err != nil {
			fmt.Fprintln(stderr, "toolerr call: reading stdin:", err)
			return 1
		}
	}
	out, err := h.Call(ctx, export, req)
	if err != nil {
		return refused(stderr, err)
	}
	fmt.Fprintf(stdout, "%s\n", out)
	return 0
}

// parseInterspersed parses flags anywhere among the arguments (`call
// --engine native required_field` and `call required_field --engine
// native` alike) and returns the other arguments in order; after "--"
// everything is an argument.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}

// refused writes err, a request's refusal, on stderr as the ABI error
// object, and returns the exit status of a refused request.
func refused(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "%s\n", errorJSON(err))
	return 2
}

// errorJSON renders err as the ABI error object.
func errorJSON(err error) []byte {
	var e *abi.Error
	if !errors.As(err, &e) {
		e = &abi.Error{Code: abi.CodeInternal, Message: err.Error()}
	}
	return plugin.ErrorJSON(e)
}

// hostFlags are the flags of every command that loads the module: the
// engine and wazero's compilation cache.
type hostFlags struct{ engine, cache *string }

func addHostFlags(fs *flag.FlagSet, engine host.Engine) hostFlags {
	return hostFlags{
		engine: fs.String("engine", string(engine), "engine: wazero, extism or native"),
		cache:  fs.String("cache", defaultCacheDir(), "directory for wazero's compilation cache (\"\" for none)"),
	}
}

// parseEngine reads the engine flag, saying on stderr what is wrong with a
// bad one (a usage error: the caller exits 64, before its other checks).
func (f hostFlags) parseEngine(stderr io.Writer) (host.Engine, bool) {
	engine, err := host.ParseEngine(*f.engine)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return "", false
	}
	return engine, true
}

// open starts a host on engine with the flags' compilation cache, saying on
// stderr why it could not.
func (f hostFlags) open(ctx context.Context, engine host.Engine, stderr io.Writer) (*host.Host, bool) {
	return f.openWith(ctx, host.Options{Engine: engine}, stderr)
}

// openWith is open with more options.
func (f hostFlags) openWith(ctx context.Context, opts host.Options, stderr io.Writer) (*host.Host, bool) {
	opts.CompilationCacheDir, opts.NoCompilationCache = *f.cache, *f.cache == ""
	h, err := host.New(ctx, opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, false
	}
	return h, true
}

// defaultCacheDir keeps compiled code under the user's cache directory, so
// only the first run of a given module pays for compilation.
func defaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "toolerr", "wazero")
}
