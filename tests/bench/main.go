// Command bench runs every engine's benchmarks on the same requests
// (tests/bench/requests.json) and writes BENCHMARKS.md and docs/bench.svg.
//
//	go run ./tests/bench [-benchtime 2s] [-count 3] [-bindings node,python,rust,java]
//	go run ./tests/bench -modules-only | -proxy-only | -heal-only | -sizes-only
//
// The -*-only flags measure one section and rewrite it in BENCHMARKS.md,
// keeping the rest.
//
// Go engines come from `go test ./host -bench`; each binding has a bench
// command that prints JSON lines {"engine","op","ns_per_call"} and
// {"engine","op":"cold_start","ms"} (with "mode" when it is not a new
// plugin in the same process: the Java binding's is a fresh JVM). Ratios are to the Go native core
// measured in the same run.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ops are the per-call operations, in table order.
var ops = []string{"tool_error", "format_validation", "parse", "validate"}

var goBenchName = map[string]string{
	"ToolError": "tool_error", "FormatValidation": "format_validation", "Parse": "parse", "Validate": "validate",
}

// bindingBench is each binding's bench command, run from the repository root.
var bindingBench = map[string][]string{
	"node":   {"node", "bindings/node/bench/bench.mjs"},
	"python": {".venv/bin/python", "bindings/python/bench/bench.py"},
	"rust":   {"bash", "-c", "source tests/cargo-target.sh && exec cargo run --quiet --locked --manifest-path bindings/rust/Cargo.toml --example bench"},
	"java":   {"bash", "bindings/java/bench.sh"},
}

type result struct {
	engine    string
	op        string
	nsPerCall float64
	allocs    float64 // -1 when not measured
	bytes     float64
}

type coldStart struct {
	engine string
	mode   string
	ms     float64
}

func main() {
	benchtime := flag.String("benchtime", "2s", "go test -benchtime")
	count := flag.Int("count", 3, "go test -count: each Go benchmark's median of this many runs is reported")
	bindings := flag.String("bindings", "node,python,rust,java", "bindings to measure")
	modulesOnly := flag.Bool("modules-only", false, "measure only the module section and rewrite it in BENCHMARKS.md, keeping the rest")
	proxyOnly := flag.Bool("proxy-only", false, "measure only the toolerr proxy section and rewrite it in BENCHMARKS.md, keeping the rest")
	healOnly := flag.Bool("heal-only", false, "measure only the healing section (valid calls, healed and plain) and rewrite it in BENCHMARKS.md, keeping the rest")
	sizesOnly := flag.Bool("sizes-only", false, "measure only the sizes section (the Go quickstart with and without toolerr, the npm package) and rewrite it in BENCHMARKS.md, keeping the rest")
	flag.Parse()
	var err error
	switch { // the first -*-only flag set, in this order, is the one measured
	case *sizesOnly:
		err = rewriteSection(sizesHeading, sizesBench)
	case *healOnly:
		err = rewriteSection(healHeading, healBench)
	case *proxyOnly:
		err = rewriteSection(proxyHeading, proxyBench)
	case *modulesOnly:
		err = rewriteSection(moduleHeading, moduleReport)
	default:
		err = run(*benchtime, *count, strings.Split(*bindings, ","))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// yesNo is how the tables say whether a goal was met.
func yesNo(met bool) string {
	if met {
		return "yes"
	}
	return "no"
}

// rewriteSection measures one section of BENCHMARKS.md alone (measure
// writes it, starting with heading) and puts it in place of the one there.
func rewriteSection(heading string, measure func() (string, error)) error {
	section, err := measure()
	if err != nil {
		return err
	}
	md, err := os.ReadFile("BENCHMARKS.md")
	if err != nil {
		return err
	}
	return os.WriteFile("BENCHMARKS.md", []byte(replaceSection(string(md), heading, section)), 0o644)
}

// replaceSection puts section in place of the one of md that starts with
// heading and runs to the next heading that section does not write itself
// (a section may hold several), or after the others when md has none.
func replaceSection(md, heading, section string) string {
	start := strings.Index(md, heading)
	if start < 0 {
		return strings.TrimRight(md, "\n") + "\n" + section
	}
	end := start + len(heading)
	for {
		next := strings.Index(md[end:], "\n## ")
		if next < 0 {
			return md[:start] + section
		}
		end += next
		line, _, _ := strings.Cut(md[end+1:], "\n")
		if !strings.Contains(section, "\n"+line+"\n") {
			return md[:start] + section + md[end:]
		}
		end++
	}
}

var benchLine = regexp.MustCompile(`^Benchmark(\w+)/([\w/]+?)(?:-(\d+))?\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) B/op\s+([\d.]+) allocs/op)?`)

// goSample is one line of go test -bench output.
type goSample struct {
	name, sub, cpus  string
	ns, allocs, byts float64
}

// medianSamples keeps, for each benchmark, the run with the median time,
// in the order the benchmarks first appeared.
func medianSamples(out string) []goSample {
	var order []string
	runs := map[string][]goSample{}
	for _, line := range strings.Split(out, "\n") {
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[4], 64)
		b, _ := strconv.ParseFloat(m[5], 64)
		allocs, _ := strconv.ParseFloat(m[6], 64)
		cpus := m[3]
		if cpus == "" {
			cpus = "1"
		}
		key := m[1] + "/" + m[2] + "-" + cpus
		if _, seen := runs[key]; !seen {
			order = append(order, key)
		}
		runs[key] = append(runs[key], goSample{m[1], m[2], cpus, ns, allocs, b})
	}
	var med []goSample
	for _, key := range order {
		r := runs[key]
		sort.Slice(r, func(i, j int) bool { return r[i].ns < r[j].ns })
		med = append(med, r[len(r)/2])
	}
	return med
}

func run(benchtime string, count int, bindings []string) error {
	var results []result
	var colds []coldStart
	parallel := map[string]float64{} // "engine/cpus" -> ns/op
	fmt.Fprintln(os.Stderr, "bench: go test ./host -bench")
	out, err := exec.Command("go", "test", "./host", "-run", "^$", "-bench", ".", "-benchmem", "-benchtime", benchtime,
		"-count", strconv.Itoa(max(count, 1)), "-cpu", "1,2").CombinedOutput()
	if err != nil {
		return fmt.Errorf("go test -bench: %v\n%s", err, out)
	}
	for _, m := range medianSamples(string(out)) {
		switch {
		case m.name == "ColdStart":
			engine, mode, _ := strings.Cut(m.sub, "/")
			if m.cpus == "2" && !hasCold(colds, "go-"+engine, mode) {
				colds = append(colds, coldStart{"go-" + engine, mode, m.ns / 1e6})
			}
		case m.name == "Parallel":
			parallel[m.sub+"/"+m.cpus] = m.ns
		case goBenchName[m.name] != "":
			if m.cpus != "1" {
				continue // per-call times are single-threaded
			}
			results = append(results, result{"go-" + m.sub, goBenchName[m.name], m.ns, m.allocs, m.byts})
		}
	}
	for _, b := range bindings {
		if b == "" {
			continue
		}
		cmd, ok := bindingBench[b]
		if !ok {
			return fmt.Errorf("unknown binding %q", b)
		}
		fmt.Fprintf(os.Stderr, "bench: %s\n", strings.Join(cmd, " "))
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Stderr = os.Stderr
		out, err := c.Output()
		if err != nil {
			return fmt.Errorf("%s bench: %v", b, err)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			var line struct {
				Engine    string  `json:"engine"`
				Op        string  `json:"op"`
				NsPerCall float64 `json:"ns_per_call"`
				Ms        float64 `json:"ms"`
				Mode      string  `json:"mode"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil || line.Engine == "" {
				continue
			}
			if line.Op == "cold_start" {
				mode := line.Mode
				if mode == "" {
					mode = "new plugin"
				}
				colds = append(colds, coldStart{line.Engine, mode, line.Ms})
			} else {
				results = append(results, result{line.Engine, line.Op, line.NsPerCall, -1, -1})
			}
		}
	}
	fmt.Fprintln(os.Stderr, "bench: toolerr proxy in front of server-everything")
	proxy, err := proxyBench()
	if err != nil {
		return fmt.Errorf("proxy bench: %w", err)
	}
	fmt.Fprintln(os.Stderr, "bench: a valid call of each language's heal-bench server, healed and plain")
	heal, err := healBench()
	if err != nil {
		return fmt.Errorf("heal bench: %w", err)
	}
	fmt.Fprintln(os.Stderr, "bench: sizes")
	sizes, err := sizesBench()
	if err != nil {
		return fmt.Errorf("sizes: %w", err)
	}
	mods, err := moduleReport()
	if err != nil {
		return err
	}
	md := report(results, colds, parallel, max(count, 1)) + proxy + heal + sizes + "\n" + mods
	if err := os.WriteFile("BENCHMARKS.md", []byte(md), 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll("docs", 0o755); err != nil {
		return err
	}
	return os.WriteFile("docs/bench.svg", []byte(chart(results)), 0o644)
}

// hasCold reports whether colds has a row for engine and mode already.
func hasCold(colds []coldStart, engine, mode string) bool {
	for _, c := range colds {
		if c.engine == engine && c.mode == mode {
			return true
		}
	}
	return false
}

func native(results []result, op string) float64 {
	for _, r := range results {
		if r.engine == "go-native" && r.op == op {
			return r.nsPerCall
		}
	}
	return math.NaN()
}

func duration(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func report(results []result, colds []coldStart, parallel map[string]float64, goRuns int) string {
	var b strings.Builder
	b.WriteString("# Benchmarks\n\nWritten by `make bench` (`go run ./tests/bench`); do not edit by hand. Every engine runs the same\nrequests (`tests/bench/requests.json`); ratios are to the Go core called natively in the same run.\nTimes are per call on one thread; a Go time is the median of its runs (`-count`, " + strconv.Itoa(goRuns) + " in this run), a\nbinding's the median of its timed batches.\n\n")
	b.WriteString("![time per call by engine](docs/bench.svg)\n\n")
	for _, op := range ops {
		fmt.Fprintf(&b, "## %s\n\n| engine | time per call | calls per second | ratio to Go native | allocations per call (Go) |\n|---|---|---|---|---|\n", op)
		base := native(results, op)
		var rows []result
		for _, r := range results {
			if r.op == op {
				rows = append(rows, r)
			}
		}
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].nsPerCall < rows[j].nsPerCall })
		for _, r := range rows {
			allocs := "-"
			if r.allocs >= 0 {
				allocs = fmt.Sprintf("%.0f (%.0f B)", r.allocs, r.bytes)
			}
			fmt.Fprintf(&b, "| %s | %s | %.0f | %.1fx | %s |\n", r.engine, duration(r.nsPerCall), 1e9/r.nsPerCall, r.nsPerCall/base, allocs)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Cold start: new host or plugin to first result\n\n| engine | mode | time |\n|---|---|---|\n")
	for _, c := range colds {
		fmt.Fprintf(&b, "| %s | %s | %.1f ms |\n", c.engine, c.mode, c.ms)
	}
	b.WriteString("\n## Parallel: tool_error from every core through one Host\n\n| engine | 1 goroutine | 2 goroutines | speed-up |\n|---|---|---|---|\n")
	for _, e := range []string{"native", "wazero"} {
		one, two := parallel[e+"/1"], parallel[e+"/2"]
		if one > 0 && two > 0 {
			fmt.Fprintf(&b, "| go-%s | %s | %s | %.2fx |\n", e, duration(one), duration(two), one/two)
		}
	}
	b.WriteString(goals(results, colds, parallel))
	wasm, _ := os.ReadFile("plugin/toolerr.wasm")
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	w.Write(wasm)
	w.Close()
	fmt.Fprintf(&b, "\n## Artifact\n\n`plugin/toolerr.wasm`: %d bytes (%.1f MB), %d bytes gzipped (%.1f MB).\n\n", len(wasm), float64(len(wasm))/1e6, gz.Len(), float64(gz.Len())/1e6)
	b.WriteString("## Machine\n\n")
	fmt.Fprintf(&b, "- %s, %d cores (%s/%s), measured %s\n", cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, time.Now().UTC().Format("2006-01-02"))
	for _, v := range [][]string{{"go", "version"}, {"node", "--version"}, {".venv/bin/python", "--version"}, {"rustc", "--version"}, {"java", "-version"}} {
		if out, err := exec.Command(v[0], v[1:]...).CombinedOutput(); err == nil {
			if v[0] == "java" {
				out, _, _ = bytes.Cut(out, []byte("\n")) // java -version writes three lines, on stderr
			}
			fmt.Fprintf(&b, "- %s\n", strings.TrimSpace(string(out)))
		}
	}
	b.WriteString("- The machine is shared and noisy: compare ratios within one run, not absolute times across runs.\n")
	return b.String()
}

// goals checks this run against the performance goals of the project
// (issue 8), so that the report says plainly which hold.
func goals(results []result, colds []coldStart, parallel map[string]float64) string {
	ns := func(engine, op string) float64 {
		for _, r := range results {
			if r.engine == engine && r.op == op {
				return r.nsPerCall
			}
		}
		return math.NaN()
	}
	var b strings.Builder
	b.WriteString("\n## Goals, in this run\n\n| goal | measured | met |\n|---|---|---|\n")
	row := func(goal, measured string, met bool) {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", goal, measured, yesNo(met))
	}
	for _, op := range ops {
		r := ns("go-wazero", op) / ns("go-native", op)
		row("go-wazero at most 3x go-native: "+op, fmt.Sprintf("%.1fx", r), r <= 3)
	}
	// slowest returns engine's slowest export against base on the same
	// requests, and which export that is.
	slowest := func(engine, base string) (float64, string) {
		worst, at := math.NaN(), ""
		for _, op := range ops {
			if r := ns(engine, op) / ns(base, op); !math.IsNaN(r) && !(r <= worst) {
				worst, at = r, op
			}
		}
		return worst, at
	}
	// Each binding, on the engine it loads by default, against the Go
	// host's wazero engine.
	for _, e := range []string{"node", "python", "rust", "java", "java-default"} {
		if worst, at := slowest(e, "go-wazero"); !math.IsNaN(worst) {
			row(e+" at most 3x go-wazero on every export", fmt.Sprintf("%.1fx (%s, the slowest)", worst, at), worst <= 3)
		}
	}
	for _, op := range []string{"tool_error", "parse", "format_validation"} {
		r := ns("go-extism", op) / ns("go-wazero", op)
		row("go-wazero at least 5x faster than go-extism: "+op, fmt.Sprintf("%.1fx", r), r >= 5)
	}
	for _, e := range []string{"node", "python", "rust"} {
		r := ns(e, "tool_error") / ns("go-native", "tool_error")
		if !math.IsNaN(r) {
			row(e+" at most 10x go-native: tool_error", fmt.Sprintf("%.1fx", r), r <= 10)
		}
	}
	for _, e := range []string{"java", "java-default"} {
		r := ns(e, "tool_error") / ns("go-native", "tool_error")
		if !math.IsNaN(r) {
			row(e+" at most 20x go-native: tool_error", fmt.Sprintf("%.1fx", r), r <= 20)
		}
		for _, c := range colds {
			if c.engine == e && c.mode == "fresh JVM to first result" {
				row(e+": a fresh JVM's first result within 1.5 s", fmt.Sprintf("%.0f ms", c.ms), c.ms <= 1500)
			}
		}
	}
	for _, e := range []string{"go-wazero", "go-extism"} {
		var cold, warm float64
		for _, c := range colds {
			if c.engine == e && c.mode == "emptycache" {
				cold = c.ms
			}
			if c.engine == e && c.mode == "warmcache" {
				warm = c.ms
			}
		}
		if cold > 0 && warm > 0 {
			row(e+": a new host with an empty cache within 3x of one with a warm cache", fmt.Sprintf("%.0f ms against %.0f ms, %.1fx", cold, warm, cold/warm), cold/warm <= 3)
		}
	}
	for _, e := range []string{"native", "wazero"} {
		one, two := parallel[e+"/1"], parallel[e+"/2"]
		if one > 0 && two > 0 {
			row("go-"+e+": 2 goroutines at least 1.7x the calls per second of 1", fmt.Sprintf("%.2fx", one/two), one/two >= 1.7)
		}
	}
	b.WriteString("\nMemory flat over 1,000,000 calls is checked by `make stress` (host/memflat_test.go), not here.\n")
	b.WriteString("\n## The opt-in Extism engines, beside their binding's default\n\n")
	b.WriteString("The Node and Python bindings load the module on their language's own WebAssembly runtime by default " +
		"(the raw path); `engine: 'extism'` and `engine=\"extism\"` run it through the Extism SDK instead, whose kernel " +
		"copies every request and response through calls of its own. The goals above are the bindings' defaults; these " +
		"rows measure what choosing Extism costs.\n\n")
	b.WriteString("| engine | slowest export against go-wazero | against its binding's default | tool_error against go-native |\n|---|---|---|---|\n")
	for _, e := range slices.Sorted(maps.Keys(optIn)) {
		worst, at := slowest(e, "go-wazero")
		if math.IsNaN(worst) {
			continue
		}
		own, ownAt := slowest(e, optIn[e])
		fmt.Fprintf(&b, "| %s | %.1fx (%s) | %.1fx against %s (%s) | %.1fx |\n", e, worst, at, own, optIn[e], ownAt,
			ns(e, "tool_error")/ns("go-native", "tool_error"))
	}
	return b.String()
}

// optIn names the engines a binding runs only when asked, each with the
// binding's default engine.
var optIn = map[string]string{"node-extism": "node", "python-extism": "python"}

func cpuModel() string {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "model name") {
			if _, v, ok := strings.Cut(line, ":"); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

// chart draws time per call by engine, one group of bars per operation, on
// a log scale.
func chart(results []result) string {
	engines := []string{}
	seen := map[string]bool{}
	for _, r := range results {
		if !seen[r.engine] {
			seen[r.engine] = true
			engines = append(engines, r.engine)
		}
	}
	colors := []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1"}
	const left, barH, gap, width = 150, 14, 18, 520
	lo, hi := 1e9, 0.0
	for _, r := range results {
		lo, hi = math.Min(lo, r.nsPerCall), math.Max(hi, r.nsPerCall)
	}
	lo = math.Pow(10, math.Floor(math.Log10(lo)))
	hi = math.Pow(10, math.Ceil(math.Log10(hi)))
	x := func(ns float64) float64 {
		return width * (math.Log10(ns) - math.Log10(lo)) / (math.Log10(hi) - math.Log10(lo))
	}
	groupH := len(engines)*barH + gap
	height := len(ops)*groupH + 70
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", left+width+90, height)
	fmt.Fprintf(&b, `<text x="%d" y="16" font-size="13">toolerr: time per call by engine (log scale)</text>`+"\n", left)
	for p := lo; p <= hi*1.001; p *= 10 {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="24" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", left+x(p), left+x(p), height-30, left+x(p), height-16, duration(p))
	}
	for i, op := range ops {
		y0 := 30 + i*groupH
		fmt.Fprintf(&b, `<text x="4" y="%d" font-weight="bold">%s</text>`+"\n", y0+10, op)
		for j, e := range engines {
			for _, r := range results {
				if r.engine == e && r.op == op {
					y := y0 + j*barH
					fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/><text x="%.1f" y="%d">%s %s</text>`+"\n",
						left, y, math.Max(1, x(r.nsPerCall)), barH-2, colors[j%len(colors)], float64(left)+x(r.nsPerCall)+4, y+barH-4, e, duration(r.nsPerCall))
				}
			}
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}
