package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The static imports between the files of one package of a binding, as
// their source writes them: a module's import of another file of its own
// package at its top level. Go refuses import cycles itself; Node and
// Python would load a cycle in some order, with a module's names not yet
// defined when the other one reads them.
var (
	// import ... from './x.js', export ... from './x.js', import './x.js'
	jsImport = regexp.MustCompile(`(?m)^(?:import|export)\b[^'"]*?(?:from\s*)?['"]\./([\w.-]+\.js)['"]`)
	// from .x import ..., from . import x (not indented: at module level)
	pyImport = regexp.MustCompile(`(?m)^from \.(\w*) import \(?([\w, \n]*)`)
)

// importGraph reads every file of dir whose name ends in ext and returns,
// for each, the files of dir it imports.
func importGraph(t *testing.T, dir, ext string, imports func(src string) []string) map[string][]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	graph := map[string][]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ext) {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		graph[e.Name()] = imports(string(src))
	}
	return graph
}

// cycle returns one import cycle of graph (its files in order, the first
// again at the end), or nil when there is none.
func cycle(graph map[string][]string) []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) []string
	visit = func(f string) []string {
		state[f] = open
		path = append(path, f)
		for _, g := range graph[f] {
			if _, ours := graph[g]; !ours {
				continue
			}
			switch state[g] {
			case open:
				i := len(path) - 1
				for path[i] != g {
					i--
				}
				return append(append([]string(nil), path[i:]...), g)
			case unseen:
				if c := visit(g); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[f] = done
		return nil
	}
	files := make([]string, 0, len(graph))
	for f := range graph {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if state[f] == unseen {
			if c := visit(f); c != nil {
				return c
			}
		}
	}
	return nil
}

func TestImports_NoCycle(t *testing.T) {
	js := func(src string) []string {
		var out []string
		for _, m := range jsImport.FindAllStringSubmatch(src, -1) {
			out = append(out, m[1])
		}
		return out
	}
	py := func(src string) []string {
		var out []string
		for _, m := range pyImport.FindAllStringSubmatch(src, -1) {
			if m[1] != "" {
				out = append(out, m[1]+".py")
				continue
			}
			for _, name := range strings.FieldsFunc(m[2], func(r rune) bool { return r == ',' || r == '(' || r == ')' || r == ' ' || r == '\n' }) {
				out = append(out, name+".py")
			}
		}
		return out
	}
	for _, pkg := range []struct{ dir, ext string }{
		{"bindings/node/src", ".js"},
		{"bindings/python/src/toolerr", ".py"},
	} {
		graph := importGraph(t, filepath.Join(root, pkg.dir), pkg.ext, map[string]func(string) []string{".js": js, ".py": py}[pkg.ext])
		edges := 0
		for _, to := range graph {
			edges += len(to)
		}
		if edges < 5 {
			t.Errorf("%s: %d imports found; the patterns no longer read its imports", pkg.dir, edges)
		}
		if c := cycle(graph); c != nil {
			t.Errorf("%s: an import cycle: %s", pkg.dir, strings.Join(c, " -> "))
		}
	}
}

func TestImports_CycleFound(t *testing.T) {
	if c := cycle(map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}); strings.Join(c, " ") != "a b c a" {
		t.Errorf("cycle = %v, want a b c a", c)
	}
	if c := cycle(map[string][]string{"a": {"b"}, "b": {"c"}, "c": nil}); c != nil {
		t.Errorf("cycle = %v, want none", c)
	}
}
