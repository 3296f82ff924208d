package main

// The sizes section of BENCHMARKS.md: what toolerr adds to what a user
// ships. The Go quickstart (examples/go/quickstart) built by `go build` as
// a user builds it, beside the same server without toolerr: the same
// source built with toolerr's host package replaced (`go build -overlay`)
// by a stub that does what the server does without toolerr's lines (Heal
// does nothing, GatedStdio is the SDK's own stdio transport, NewError a
// plain error). And the npm package, as `npm pack` makes it. Seconds, not
// minutes: part of every `make bench`, and alone with -sizes-only.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// sizesHeading starts the sizes section of BENCHMARKS.md.
const sizesHeading = "\n## Sizes: what toolerr adds to what you ship\n"

// quickstartGo is the Go quickstart's package.
const quickstartGo = "./examples/go/quickstart"

// plainHost stands in for package host in the quickstart built without
// toolerr: each function does what the server does without toolerr's lines.
// A quickstart that uses more of the host API fails to build here, and this
// stub grows with it.
const plainHost = `package host

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type Options struct{}

type Host struct{}

func New(context.Context, Options) (*Host, error) { return &Host{}, nil }

func (*Host) Close(context.Context) error { return nil }

// Heal: the SDK's own handling of every tool.
func (*Host) Heal(*mcp.Server) {}

// GatedStdio: the SDK's own stdio transport.
func (*Host) GatedStdio() mcp.Transport { return &mcp.StdioTransport{} }

// ErrorBuilder: a plain error with the message.
type ErrorBuilder struct{ error }

func NewError(code, message string) *ErrorBuilder { return &ErrorBuilder{errors.New(message)} }

func (b *ErrorBuilder) Suggest(string) *ErrorBuilder { return b }

func (b *ErrorBuilder) Actions(...string) *ErrorBuilder { return b }

func (b *ErrorBuilder) Details(...any) *ErrorBuilder { return b }
`

// sizesBench builds what it measures in a temporary directory and returns
// the BENCHMARKS.md section.
func sizesBench() (string, error) {
	tmp, err := os.MkdirTemp("", "toolerr-bench-sizes-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)

	withToolerr := filepath.Join(tmp, "quickstart")
	fmt.Fprintln(os.Stderr, "bench: go build", quickstartGo)
	if out, err := exec.Command("go", "build", "-o", withToolerr, quickstartGo).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", quickstartGo, err, out)
	}
	overlay, err := plainOverlay(tmp)
	if err != nil {
		return "", err
	}
	without := filepath.Join(tmp, "quickstart-plain")
	fmt.Fprintln(os.Stderr, "bench: go build -overlay (host stubbed out)", quickstartGo)
	if out, err := exec.Command("go", "build", "-overlay", overlay, "-o", without, quickstartGo).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s without toolerr (tests/bench/sizes.go's plainHost): %v\n%s", quickstartGo, err, out)
	}
	sizeOf := func(path string) (int64, error) {
		fi, err := os.Stat(path)
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}
	with, err := sizeOf(withToolerr)
	if err != nil {
		return "", err
	}
	plain, err := sizeOf(without)
	if err != nil {
		return "", err
	}
	module, err := sizeOf("plugin/toolerr.wasm")
	if err != nil {
		return "", err
	}

	fmt.Fprintln(os.Stderr, "bench: npm pack --dry-run (bindings/node)")
	pack := exec.Command("npm", "pack", "--dry-run", "--json")
	pack.Dir = "bindings/node"
	out, err := pack.Output()
	if err != nil {
		return "", fmt.Errorf("npm pack --dry-run: %v", err)
	}
	var packs []struct {
		Size         int64 `json:"size"`
		UnpackedSize int64 `json:"unpackedSize"`
		EntryCount   int   `json:"entryCount"`
	}
	if err := json.Unmarshal(out, &packs); err != nil || len(packs) != 1 {
		return "", fmt.Errorf("npm pack --dry-run --json: %v in %.200s", err, out)
	}
	goVersion, _ := exec.Command("go", "env", "GOVERSION").Output()

	mb := func(n int64) string { return fmt.Sprintf("%d bytes (%.1f MB)", n, float64(n)/1e6) }
	var b strings.Builder
	b.WriteString(sizesHeading + "\n")
	fmt.Fprintf(&b, "The Go quickstart (`%s`) built with `go build` and no flags, as a user builds it (%s, %s/%s), beside the same server without toolerr: the same source built with toolerr's `host` package replaced by a stub that does what the server does without toolerr's lines (`go build -overlay`; `tests/bench/sizes.go`). The npm package is what `npm pack` makes of `bindings/node`.\n\n",
		strings.TrimPrefix(quickstartGo, "./"), strings.TrimSpace(string(goVersion)), runtime.GOOS, runtime.GOARCH)
	b.WriteString("| what | size |\n|---|---|\n")
	fmt.Fprintf(&b, "| Go quickstart server, with toolerr (default engine, wazero) | %s |\n", mb(with))
	fmt.Fprintf(&b, "| the same server without toolerr | %s |\n", mb(plain))
	fmt.Fprintf(&b, "| what toolerr adds to it (wazero, the module, the contract's Go core) | %s |\n", mb(with-plain))
	fmt.Fprintf(&b, "| of which the module, `plugin/toolerr.wasm` | %s |\n", mb(module))
	fmt.Fprintf(&b, "| npm package `toolerr` (`bindings/node`), tarball | %s |\n", mb(packs[0].Size))
	fmt.Fprintf(&b, "| npm package, unpacked (%d files) | %s |\n", packs[0].EntryCount, mb(packs[0].UnpackedSize))
	return b.String(), nil
}

// plainOverlay writes an overlay for `go build -overlay` that replaces
// every Go file of package host with plainHost, and returns its path.
func plainOverlay(tmp string) (string, error) {
	out, err := exec.Command("go", "list", "-f", `{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .CgoFiles}} {{.}}{{end}}`, "./host").Output()
	if err != nil {
		return "", fmt.Errorf("go list ./host: %v", err)
	}
	fields := strings.Fields(string(out))
	if len(fields) < 2 {
		return "", fmt.Errorf("go list ./host: %q", out)
	}
	dir := fields[0]
	replace := map[string]string{}
	for _, f := range fields[1:] {
		replace[filepath.Join(dir, f)] = "" // deleted
	}
	stub := filepath.Join(tmp, "plainhost.go")
	if err := os.WriteFile(stub, []byte(plainHost), 0o644); err != nil {
		return "", err
	}
	replace[filepath.Join(dir, "zz_plainhost.go")] = stub
	raw, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	path := filepath.Join(tmp, "overlay.json")
	return path, os.WriteFile(path, raw, 0o644)
}
