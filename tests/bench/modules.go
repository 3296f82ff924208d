package main

// The module section of BENCHMARKS.md: the shipped TinyGo build beside the
// standard Go build (make wasm-std) in one run: bytes, wazero compile
// without a cache, per-call time on the Go host's wazero engine, and the
// first result of a fresh process of every host with an empty and a warm
// compilation cache.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/toolerr/toolerr/host"
)

// moduleBuild is one build of plugin/wasm.
type moduleBuild struct {
	name, path string
	bytes      int
	compileMs  float64
	perCall    map[string]float64 // export -> ns on go-wazero
	native     map[string]float64 // export -> ns on go-native, same run
}

// firstResult is a fresh process's time to its first answer.
type firstResult struct {
	engine     string
	empty, hot float64 // ms with an empty cache, then with the cache it filled
}

const stdModule = "bin/toolerr-std.wasm"

// moduleHeading starts the module section of BENCHMARKS.md (with the first
// results of fresh processes, under a heading of their own).
const moduleHeading = "\n## The module: TinyGo build (shipped) and standard Go build\n"

// moduleReport measures both builds and every host's first result.
func moduleReport() (string, error) {
	fmt.Fprintln(os.Stderr, "bench: make wasm-std")
	if out, err := exec.Command("make", "--no-print-directory", "wasm-std").CombinedOutput(); err != nil {
		return "", fmt.Errorf("make wasm-std: %v\n%s", err, out)
	}
	reqs, err := benchRequests()
	if err != nil {
		return "", err
	}
	var builds []moduleBuild
	for _, b := range []struct{ name, path string }{{"TinyGo (shipped)", "plugin/toolerr.wasm"}, {"standard Go", stdModule}} {
		fmt.Fprintf(os.Stderr, "bench: module %s\n", b.path)
		m, err := measureModule(b.name, b.path, reqs)
		if err != nil {
			return "", err
		}
		builds = append(builds, m)
	}
	fmt.Fprintln(os.Stderr, "bench: first result of a fresh process")
	firsts, err := firstResults(reqs["tool_error"])
	if err != nil {
		return "", err
	}

	var b strings.Builder
	b.WriteString(moduleHeading + "\n")
	b.WriteString("Both built from the same sources in this run (`make wasm`, `make wasm-std`); per-call times on the Go host's wazero engine, ratio to the Go core called natively in the same loop.\n\n")
	b.WriteString("| build | module bytes | wazero compile, no cache |")
	for _, op := range benchOps {
		b.WriteString(" " + op + " |")
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(benchOps)) + "\n")
	for _, m := range builds {
		fmt.Fprintf(&b, "| %s | %d (%.2f MB) | %.0f ms |", m.name, m.bytes, float64(m.bytes)/1e6, m.compileMs)
		for _, op := range benchOps {
			fmt.Fprintf(&b, " %s (%.1fx) |", duration(m.perCall[op]), m.perCall[op]/m.native[op])
		}
		b.WriteString("\n")
	}
	if len(builds) == 2 && builds[1].compileMs > 0 {
		fmt.Fprintf(&b, "\nTinyGo's module is %.1f%% of the standard build's bytes and compiles in %.0f%% of its time.\n",
			100*float64(builds[0].bytes)/float64(builds[1].bytes), 100*builds[0].compileMs/builds[1].compileMs)
	}
	b.WriteString("\n## First result of a fresh process (shipped module)\n\n")
	fmt.Fprintf(&b, "Each host's batch command started anew, timed from its start to its first answer (one tool_error): first with an empty cache directory (`XDG_CACHE_HOME`, which the Go host and wasmtime read), then again with the cache that run filled; %d such pairs, each in a new directory, and the median of each. The difference is what compiling the module costs a start with nothing cached; the last column says what that work is.\n\n", firstRounds)
	b.WriteString("| host | empty cache | warm cache | difference | ratio | at most 3x | what an empty cache costs |\n|---|---|---|---|---|---|---|\n")
	for _, f := range firsts {
		ratio := f.empty / f.hot
		met := yesNo(ratio <= 3)
		if def, ok := optIn[f.engine]; ok {
			met += " (opt-in; the binding's default is " + def + ")"
		}
		fmt.Fprintf(&b, "| %s | %.0f ms | %.0f ms | %.0f ms | %.1fx | %s | %s |\n", f.engine, f.empty, f.hot, f.empty-f.hot, ratio, met, coldWork[f.engine])
	}
	return b.String(), nil
}

var benchOps = []string{"tool_error", "format_validation", "parse", "validate"}

// benchRequests reads tests/bench/requests.json: export -> request.
func benchRequests() (map[string][]byte, error) {
	data, err := os.ReadFile("tests/bench/requests.json")
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, op := range benchOps {
		if raw[op] == nil {
			return nil, fmt.Errorf("requests.json has no %s", op)
		}
		out[op] = raw[op]
	}
	return out, nil
}

// measureModule times one build's compile (median of 3, each in a new
// runtime without a cache) and its per-call time on wazero beside native.
func measureModule(name, path string, reqs map[string][]byte) (moduleBuild, error) {
	ctx := context.Background()
	wasm, err := os.ReadFile(path)
	if err != nil {
		return moduleBuild{}, err
	}
	m := moduleBuild{name: name, path: path, bytes: len(wasm), perCall: map[string]float64{}, native: map[string]float64{}}
	var compiles []float64
	for i := 0; i < 3; i++ {
		rt := wazero.NewRuntime(ctx)
		start := time.Now()
		c, err := rt.CompileModule(ctx, wasm)
		compiles = append(compiles, float64(time.Since(start))/1e6)
		if err != nil {
			rt.Close(ctx)
			return m, err
		}
		c.Close(ctx)
		rt.Close(ctx)
	}
	slices.Sort(compiles)
	m.compileMs = compiles[1]

	sum := sha256.Sum256(wasm)
	wz, err := host.New(ctx, host.Options{Engine: host.Wazero, Wasm: wasm, SHA256: hex.EncodeToString(sum[:]), MaxInstances: 1, NoCompilationCache: true})
	if err != nil {
		return m, err
	}
	defer wz.Close(ctx)
	nat, err := host.New(ctx, host.Options{Engine: host.Native, MaxInstances: 1})
	if err != nil {
		return m, err
	}
	defer nat.Close(ctx)
	for _, op := range benchOps {
		// Alternate the two engines in rounds so that both see the same
		// load; each round's time per call, median of the rounds.
		var w, n []float64
		for round := 0; round < 5; round++ {
			for _, x := range []struct {
				h   *host.Host
				out *[]float64
			}{{wz, &w}, {nat, &n}} {
				ns, err := perCall(ctx, x.h, op, reqs[op], 200*time.Millisecond)
				if err != nil {
					return m, fmt.Errorf("%s %s: %v", path, op, err)
				}
				*x.out = append(*x.out, ns)
			}
		}
		slices.Sort(w)
		slices.Sort(n)
		m.perCall[op], m.native[op] = w[len(w)/2], n[len(n)/2]
	}
	return m, nil
}

// perCall runs op for about d and returns the time per call.
func perCall(ctx context.Context, h *host.Host, op string, req []byte, d time.Duration) (float64, error) {
	for i := 0; i < 10; i++ { // warm up
		if _, err := h.Call(ctx, op, req); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	calls := 0
	for time.Since(start) < d {
		if _, err := h.Call(ctx, op, req); err != nil {
			return 0, err
		}
		calls++
	}
	return float64(time.Since(start)) / float64(calls), nil
}

// firstRounds is how many pairs of starts (empty cache, then warm) each
// host makes; the table gives the medians.
const firstRounds = 3

// coldWork is what a start with an empty cache does that a warm one does
// not, by host.
var coldWork = map[string]string{
	"go-wazero":     "wazero's interpreter takes the module (a fraction of the module table's \"wazero compile, no cache\") and answers while the optimizing compiler turns it into machine code in the background and writes the cache; a warm start maps that back",
	"go-extism":     "the same, through the Extism Go SDK on wazero",
	"node":          "none: V8 has no cache here; every start compiles the module with its baseline compiler (Liftoff), quick, and optimizes hot functions later in the background",
	"python":        "Wasmtime's baseline compiler (Winch) takes the module in a fraction of Cranelift's time and answers while Cranelift compiles it in a background thread and the binding writes its own cache entry (the exit waits for it); a warm start deserializes it",
	"python-extism": "Extism's runtime (Wasmtime) compiles the module with Cranelift and writes wasmtime's cache; a warm start loads it",
	"rust":          "wasmi, an interpreter, takes the module in a few milliseconds (lazily) and answers while Cranelift compiles it in a background thread on all cores but one and the binding writes its own cache entry (the exit waits for it); a warm start deserializes it",
}

// firstResults starts every host's batch command in pairs with one
// XDG_CACHE_HOME: the first run finds it empty, the second warm.
func firstResults(toolError []byte) ([]firstResult, error) {
	toolerr := filepath.Join("bin", "toolerr")
	if out, err := exec.Command("go", "build", "-o", toolerr, "./host/cmd/toolerr").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build toolerr: %v\n%s", err, out)
	}
	// The Rust batch example, built (when it is not already) in the
	// target folder make bench holds (tests/cargo-target.sh).
	rustBatch := ""
	if dir := os.Getenv("CARGO_TARGET_DIR"); dir != "" {
		build := exec.Command("cargo", "build", "--quiet", "--locked", "-j", "2", "--manifest-path", "bindings/rust/Cargo.toml", "--example", "batch")
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("cargo build --example batch: %v\n%s", err, out)
		}
		rustBatch = filepath.Join(dir, "debug", "examples", "batch")
	}
	type batchHost struct {
		name string
		cmd  []string
	}
	hosts := []batchHost{
		{"go-wazero", []string{toolerr, "batch", "--engine", "wazero"}},
		{"go-extism", []string{toolerr, "batch", "--engine", "extism"}},
		{"node", []string{"node", "bindings/node/bin/batch.mjs"}},
		{"python", []string{".venv/bin/python", "-m", "toolerr.batch"}},
		{"python-extism", []string{".venv/bin/python", "-m", "toolerr.batch", "--engine", "extism"}},
	}
	if rustBatch != "" {
		hosts = append(hosts, batchHost{"rust", []string{rustBatch}})
	} else {
		fmt.Fprintln(os.Stderr, "bench: rust: no CARGO_TARGET_DIR (make bench sets it); skipped")
	}
	line := fmt.Sprintf(`{"op":"tool_error","input":%s}`+"\n", compactJSON(toolError))
	var out []firstResult
	for _, h := range hosts {
		if _, err := os.Stat(h.cmd[0]); err != nil && strings.Contains(h.cmd[0], "/") {
			fmt.Fprintf(os.Stderr, "bench: %s: %s is not built; skipped\n", h.name, h.cmd[0])
			continue
		}
		var empty, warm []float64
		for round := 0; round < firstRounds; round++ {
			cache, err := os.MkdirTemp("", "toolerr-bench-cache-")
			if err != nil {
				return nil, err
			}
			for _, into := range []*[]float64{&empty, &warm} {
				ms, err := firstAnswer(h.cmd, cache, line)
				if err != nil {
					os.RemoveAll(cache)
					return nil, fmt.Errorf("%s: %v", h.name, err)
				}
				*into = append(*into, ms)
			}
			os.RemoveAll(cache)
		}
		slices.Sort(empty)
		slices.Sort(warm)
		out = append(out, firstResult{h.name, empty[len(empty)/2], warm[len(warm)/2]})
	}
	return out, nil
}

// firstAnswer starts cmd with XDG_CACHE_HOME=cache, sends line and returns
// the milliseconds from the start to the first line of its answer.
func firstAnswer(cmd []string, cache, line string) (float64, error) {
	c := exec.Command(cmd[0], cmd[1:]...)
	// Extism's default cache (wasmtime's, under XDG_CACHE_HOME) unless the
	// environment chose another.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "EXTISM_CACHE_CONFIG=") })
	c.Env = append(env, "XDG_CACHE_HOME="+cache)
	stdin, err := c.StdinPipe()
	if err != nil {
		return 0, err
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := c.Start(); err != nil {
		return 0, err
	}
	io.WriteString(stdin, line)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	ok := sc.Scan()
	ms := float64(time.Since(start)) / 1e6
	stdin.Close()
	io.Copy(io.Discard, stdout)
	werr := c.Wait()
	if !ok {
		return 0, fmt.Errorf("no answer (%v)", werr)
	}
	if !strings.Contains(sc.Text(), "tool_error") {
		return 0, fmt.Errorf("unexpected answer %.200s", sc.Text())
	}
	return ms, nil
}

func compactJSON(b []byte) string {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return string(b)
	}
	return out.String()
}
