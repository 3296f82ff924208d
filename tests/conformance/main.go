// Command conformance feeds every vector of tests/vectors through every
// engine's batch command and fails on the first byte of difference,
// printing a matrix of engines by exports.
//
//	go run ./tests/conformance [-engines a,b] [-vectors dir]
//
// Run it from the repository root after `make test` has prepared the
// bindings (it is part of `make test`).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/toolerr/toolerr/tests/vectors"
)

type engine struct {
	Name    string   `json:"name"`
	Command []string `json:"command"`
}

type skip struct {
	Engine      string `json:"engine"`
	Export      string `json:"export"`
	Description string `json:"description"`
	Reason      string `json:"reason"`
}

// framingRow is the matrix row of the framing lines (framing.json).
const framingRow = "(batch framing)"

func main() {
	os.Exit(run())
}

func run() int {
	only := flag.String("engines", "", "comma-separated engine names (default: all)")
	dir := flag.String("vectors", "tests/vectors/v1", "vector directory")
	flag.Parse()

	var cfg struct{ Engines []engine }
	var skipCfg struct{ Skips []skip }
	var framing framingFile
	if err := readJSON("tests/conformance/engines.json", &cfg); err != nil {
		return fail(err)
	}
	if err := readJSON("tests/conformance/framing.json", &framing); err != nil {
		return fail(err)
	}
	if err := readJSON("tests/conformance/skips.json", &skipCfg); err != nil {
		return fail(err)
	}
	files, err := vectors.Load(*dir)
	if err != nil {
		return fail(err)
	}
	tmp, err := os.MkdirTemp("", "toolerr-conformance")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp)
	toolerr := filepath.Join(tmp, "toolerr")
	if out, err := exec.Command("go", "build", "-o", toolerr, "./host/cmd/toolerr").CombinedOutput(); err != nil {
		return fail(fmt.Errorf("building the Go CLI: %v\n%s", err, out))
	}

	var selected []engine
	for _, e := range cfg.Engines {
		if *only == "" || slices.Contains(strings.Split(*only, ","), e.Name) {
			selected = append(selected, e)
		}
	}
	exports := make([]string, len(files))
	for i, f := range files {
		exports[i] = f.Export
	}
	exports = append(exports, framingRow)

	results := map[string]map[string][2]int{} // engine -> export -> passed, total
	failed := 0
	total := 0
	for _, e := range selected {
		start := time.Now()
		cmd := make([]string, len(e.Command))
		for i, arg := range e.Command {
			cmd[i] = strings.ReplaceAll(arg, "{toolerr}", toolerr)
		}
		counts, mismatch, err := runEngine(cmd, os.Environ(), files, skipCfg.Skips, e.Name)
		results[e.Name] = counts
		for _, c := range counts {
			total += c[1]
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", e.Name, err)
			failed++
			continue
		}
		if mismatch != "" {
			fmt.Fprintf(os.Stderr, "%s: %s\n", e.Name, mismatch)
			failed++
		}
		// The line framing, and the same line many times over.
		passed, lines, mismatch, err := runFraming(cmd, os.Environ(), framing)
		counts[framingRow] = [2]int{passed, lines}
		total += lines
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", e.Name, err)
			failed++
		} else if mismatch != "" {
			fmt.Fprintf(os.Stderr, "%s: %s\n", e.Name, mismatch)
			failed++
		}
		fmt.Fprintf(os.Stderr, "%s: %.1fs\n", e.Name, time.Since(start).Seconds())
	}
	printMatrix(os.Stdout, selected, exports, results, skipCfg.Skips)
	passed := 0
	for _, byExport := range results {
		for _, c := range byExport {
			passed += c[0]
		}
	}
	fmt.Printf("conformance: %d passed, %d failed\n", passed, total-passed)
	if failed > 0 || passed != total {
		return 1
	}
	return 0
}

// runEngine sends every case to one engine's batch command and compares
// each answer with the expected bytes. It stops at the first difference.
func runEngine(command, env []string, files []vectors.File, skips []skip, name string) (map[string][2]int, string, error) {
	counts := map[string][2]int{}
	var in bytes.Buffer
	type pending struct {
		export string
		c      vectors.Case
	}
	var sent []pending
	for _, f := range files {
		for _, c := range f.Cases {
			if skipped(skips, name, f.Export, c.Description) {
				continue
			}
			input := bytes.TrimSpace(c.Input)
			var compact bytes.Buffer
			if err := json.Compact(&compact, input); err != nil {
				return counts, "", fmt.Errorf("%s/%s: %v", f.Export, c.Description, err)
			}
			fmt.Fprintf(&in, `{"op":%q,"input":%s}`+"\n", f.Export, compact.Bytes())
			sent = append(sent, pending{f.Export, c})
			cnt := counts[f.Export]
			cnt[1]++
			counts[f.Export] = cnt
		}
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = env
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return counts, "", err
	}
	if err := cmd.Start(); err != nil {
		return counts, "", fmt.Errorf("starting %v: %w", command, err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	mismatch := ""
	for _, p := range sent {
		if !sc.Scan() {
			break
		}
		if problem := compare(sc.Bytes(), p.c); problem != "" {
			if mismatch == "" {
				mismatch = fmt.Sprintf("%s/%q: %s", p.export, p.c.Description, problem)
			}
			continue
		}
		cnt := counts[p.export]
		cnt[0]++
		counts[p.export] = cnt
	}
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		return counts, mismatch, fmt.Errorf("%v: %v\n%s", command, err, tail(stderr.String()))
	}
	return counts, mismatch, nil
}

// compare checks one answer line against c and describes the difference:
// for an output the line must be its bytes exactly; for an error the line
// must be {"error":{"code","message"}} with exactly that code and message.
func compare(got []byte, c vectors.Case) string {
	if c.Error == nil {
		want := c.Want()
		if bytes.Equal(got, want) {
			return ""
		}
		return fmt.Sprintf("first difference at byte %d\n got  %s\n want %s", firstDiff(got, want), got, want)
	}
	code, message, ok := errorLine(got)
	if !ok {
		return fmt.Sprintf("got %s\n want error %s: %s", got, c.Error.Code, c.Error.Message)
	}
	if code != c.Error.Code || message != c.Error.Message {
		return fmt.Sprintf("got error %s: %s\n want error %s: %s", code, message, c.Error.Code, c.Error.Message)
	}
	return ""
}

// errorLine decodes a batch error line, {"error":{"code":…,"message":…}}
// with no other member; ok is false for any other line.
func errorLine(line []byte) (code, message string, ok bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil || len(top) != 1 || top["error"] == nil {
		return "", "", false
	}
	var e map[string]json.RawMessage
	if json.Unmarshal(top["error"], &e) != nil || len(e) != 2 ||
		json.Unmarshal(e["code"], &code) != nil || json.Unmarshal(e["message"], &message) != nil {
		return "", "", false
	}
	return code, message, true
}

func firstDiff(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func skipped(skips []skip, engine, export, description string) bool {
	for _, s := range skips {
		if s.Engine == engine && s.Export == export && s.Description == description {
			return true
		}
	}
	return false
}

func printMatrix(w io.Writer, engines []engine, exports []string, results map[string]map[string][2]int, skips []skip) {
	sorted := append([]string(nil), exports...)
	sort.Strings(sorted)
	fmt.Fprintf(w, "%-18s", "export")
	for _, e := range engines {
		fmt.Fprintf(w, " %11s", e.Name)
	}
	fmt.Fprintln(w)
	for _, x := range sorted {
		fmt.Fprintf(w, "%-18s", x)
		for _, e := range engines {
			c := results[e.Name][x]
			mark := " "
			if c[0] != c[1] {
				mark = "!"
			}
			fmt.Fprintf(w, " %10s%s", fmt.Sprintf("%d/%d", c[0], c[1]), mark)
		}
		fmt.Fprintln(w)
	}
	if len(skips) == 0 {
		fmt.Fprintln(w, "skips: none")
	}
	for _, s := range skips {
		fmt.Fprintf(w, "skip: %s %s/%q: %s\n", s.Engine, s.Export, s.Description, s.Reason)
	}
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "conformance:", err)
	return 2
}
