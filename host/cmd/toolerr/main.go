// Command toolerr runs toolerr's contract from the command line, through
// the embedded toolerr.wasm.
//
//	toolerr demo [--engine E]            render the demo envelopes and parse one back
//	toolerr call EXPORT [--engine E]     one JSON request on stdin, the response on stdout
//	toolerr batch [--engine E]           the batch protocol: JSON lines in, JSON lines out
//	toolerr describe [--engine E]        what the module says of itself
//	toolerr lock [--engine E]            MCP tools on stdin, their contract lockfile on stdout
//	toolerr diff OLD NEW [--json]        compare two contracts; exit 1 when a change is BREAKING
//	toolerr proxy [flags] -- COMMAND...  serve COMMAND's MCP tools with the contract's errors
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

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
	"github.com/toolerr/toolerr/plugin"
)

const usage = `usage:
  toolerr demo [--engine wazero|extism|native]
  toolerr call EXPORT [--engine ...]   < request.json
  toolerr batch [--engine ...]         < requests.jsonl
  toolerr describe [--engine ...]
  toolerr lock [--engine ...]          < tools.json > toolerr.lock.json
  toolerr diff OLD NEW [--json] [--engine ...]
  toolerr proxy [--lock FILE] [--call-timeout D] [--restart] [--engine ...] -- COMMAND [ARGS...]
`

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 64
	}
	cmd, rest := args[0], args[1:]
	if cmd == "proxy" {
		return proxyCommand(ctx, rest, stdin, stdout, stderr)
	}
	var export string
	var paths []string
	switch cmd {
	case "call":
		if len(rest) == 0 || rest[0] == "" || rest[0][0] == '-' {
			fmt.Fprint(stderr, "toolerr call: name the export\n"+usage)
			return 64
		}
		export, rest = rest[0], rest[1:]
	case "diff":
		for len(rest) > 0 && len(paths) < 2 && rest[0] != "" && rest[0][0] != '-' {
			paths, rest = append(paths, rest[0]), rest[1:]
		}
		if len(paths) != 2 {
			fmt.Fprint(stderr, "toolerr diff: give the old and the new contract\n"+usage)
			return 64
		}
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	engineName := fs.String("engine", string(host.Wazero), "engine: wazero, extism or native")
	asJSON := fs.Bool("json", false, "diff: print the deltas as JSON")
	cacheDir := fs.String("cache", defaultCacheDir(), "directory for wazero's compilation cache (\"\" for none)")
	if err := fs.Parse(rest); err != nil {
		return 64
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "toolerr %s: unexpected argument %q\n%s", cmd, fs.Arg(0), usage)
		return 64
	}
	engine, err := host.ParseEngine(*engineName)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 64
	}
	switch cmd {
	case "demo", "call", "batch", "describe", "lock", "diff":
	default:
		fmt.Fprintf(stderr, "toolerr: unknown command %q\n%s", cmd, usage)
		return 64
	}
	h, err := host.New(ctx, host.Options{Engine: engine, CompilationCacheDir: *cacheDir})
	if err != nil {
		fmt.Fprintln(stderr, err)
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
		return diff(ctx, h, paths[0], paths[1], *asJSON, stdout, stderr)
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
		fmt.Fprintf(stderr, "%s\n", errorJSON(err))
		return 2
	}
	fmt.Fprintf(stdout, "%s\n", out)
	return 0
}

// errorJSON renders err as the ABI error object.
func errorJSON(err error) []byte {
	var e *abi.Error
	if !errors.As(err, &e) {
		e = &abi.Error{Code: abi.CodeInternal, Message: err.Error()}
	}
	return plugin.ErrorJSON(e)
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
