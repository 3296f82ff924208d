// Command heal measures what a model reads when its tool call is wrong, on
// every path toolerr offers (each SDK's heal integration, and toolerr proxy)
// and, beside it, on the same server without toolerr: it mutates valid
// arguments of the public tool schemas of corpus.json the way models get
// them wrong, calls real stdio servers with the MCP Go SDK's client, checks
// what each answer says (the field named with its full path, "You sent"
// true, the constraint stated with its value, tokens per issue) and whether
// a repairer that reads only the text gets to arguments that pass. It writes
// docs/HEALING.md.
//
//	go run ./tests/heal [-out docs/HEALING.md] [-paths go,proxy] [-tools N]
//
// `make heal-bench` builds the servers first (tests/heal/build.sh) and runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	out := flag.String("out", "docs/HEALING.md", "the report to write (relative to the repository root); - for stdout")
	only := flag.String("paths", "", "comma-separated paths to run (default: all)")
	maxTools := flag.Int("tools", 0, "use only the first N tools of the corpus (0: all)")
	parallel := flag.Int("parallel", 3, "paths run at once")
	dump := flag.String("dump", "", "also write every result as JSON lines to this file")
	flag.Parse()
	root, err := repoRoot()
	if err != nil {
		fail(err)
	}
	start := time.Now()
	bench, err := Run(context.Background(), root, Options{Paths: split(*only), MaxTools: *maxTools, Parallel: *parallel})
	if err != nil {
		fail(err)
	}
	bench.Elapsed = time.Since(start)
	report := Report(bench, root)
	if *out == "-" {
		fmt.Print(report)
	} else if err := os.WriteFile(filepath.Join(root, *out), []byte(report), 0o644); err != nil {
		fail(err)
	}
	if *dump != "" {
		if err := Dump(bench, *dump); err != nil {
			fail(err)
		}
	}
	for _, line := range bench.Headline() {
		fmt.Println(line)
	}
	fmt.Printf("heal-bench: %d cases on %d paths in %.1fs\n", len(bench.Cases), len(bench.Runs), bench.Elapsed.Seconds())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "heal-bench:", err)
	os.Exit(1)
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// Options selects what Run does.
type Options struct {
	Paths    []string // by name; all when empty
	MaxTools int
	Parallel int
	Bin      string // where the built servers are; "bin" when empty
}

// Bench is one whole run.
type Bench struct {
	Corpus  *Corpus
	Tools   []*Tool
	Cases   []Case
	Runs    []*PathRun
	Elapsed time.Duration
}

// Run loads the corpus, builds the cases and plays them on every path.
func Run(ctx context.Context, root string, opts Options) (*Bench, error) {
	c, err := LoadCorpus(filepath.Join(root, "tests/heal/corpus.json"))
	if err != nil {
		return nil, err
	}
	b := &Bench{Corpus: c}
	for i := range c.Tools {
		if opts.MaxTools > 0 && i >= opts.MaxTools {
			break
		}
		b.Tools = append(b.Tools, &c.Tools[i])
	}
	names := map[string]bool{}
	for _, t := range c.Tools {
		names[t.Name] = true
	}
	for _, t := range b.Tools {
		b.Cases = append(b.Cases, Mutations(t, names)...)
	}
	var paths []Path
	bin := opts.Bin
	if bin == "" {
		bin = "bin"
	}
	for _, p := range Paths(bin) {
		if len(opts.Paths) == 0 || slices.Contains(opts.Paths, p.Name) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no path named %v", opts.Paths)
	}
	b.Runs = make([]*PathRun, len(paths))
	errs := make([]error, len(paths))
	sem := make(chan struct{}, max(1, opts.Parallel))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			b.Runs[i], errs[i] = RunPath(ctx, root, p, c.toolList(), b.Cases)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (c *Corpus) toolList() []*Tool {
	out := make([]*Tool, len(c.Tools))
	for i := range c.Tools {
		out[i] = &c.Tools[i]
	}
	return out
}

// repoRoot is the directory above the working directory that holds go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}
