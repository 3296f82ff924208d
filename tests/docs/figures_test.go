package docs

// Docs hold facts; BENCHMARKS.md holds figures (issue 28). A measured
// figure typed into a README drifts from the code it describes, so every
// figure with a unit of time, size or ratio that README.md, RATIONALE.md
// and the READMEs of bindings/ and examples/ state must be one of:
//
//   - a figure of a generated file, BENCHMARKS.md (`make bench`) or
//     docs/HEALING.md (`make heal-bench`), quoted in the unit that file
//     writes it in, as written or rounded to two significant digits or
//     more ("1.5 MB" for its "1.51 MB", not "2 s" for its "1.5 s"): a new
//     bench run can then fail this test, and the document is updated with
//     it, or better points to the section. A figure is matched by value,
//     not by what it measures: a coincidence passes;
//   - a fact of abi/abi.json's limits, host policy or constants (4 MiB,
//     512 MiB, 10 s, ...), in any unit that states it exactly;
//   - inside an envelope's text (`<message>`, `<recovery>`, ...): examples
//     of what the module renders, whose bytes the vectors fix;
//   - a fact that is no measurement, listed in notMeasured with the file
//     that states it where there is one;
//   - in a dated historical block (historical): a measurement that decided
//     something and that no code of today would reproduce.
//
// Anything else fails, with its file and line: point to the BENCHMARKS.md
// section that measures it, add it to tests/bench, or say it without the
// figure.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// figureDocs are the documents whose figures are checked.
func figureDocs(t *testing.T) []string {
	t.Helper()
	docs := []string{"README.md", "RATIONALE.md", "examples/README.md"}
	for _, pattern := range []string{"bindings/*/README.md", "examples/*/README.md"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, err := filepath.Rel(root, f)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, filepath.ToSlash(rel))
		}
	}
	if len(docs) < 8 {
		t.Fatalf("found only %d documents: %v", len(docs), docs)
	}
	return docs
}

// generatedFiles are written by the benches; their figures may be quoted.
var generatedFiles = []string{"BENCHMARKS.md", "docs/HEALING.md"}

// units maps a unit as written to its canonical name, its dimension and
// its size in the dimension's base unit (seconds, bytes, 1).
var units = map[string]struct {
	canon, dim string
	scale      float64
}{
	"ns": {"ns", "time", 1e-9}, "µs": {"µs", "time", 1e-6}, "μs": {"µs", "time", 1e-6}, "us": {"µs", "time", 1e-6},
	"ms": {"ms", "time", 1e-3}, "s": {"s", "time", 1}, "sec": {"s", "time", 1}, "second": {"s", "time", 1}, "seconds": {"s", "time", 1},
	"min": {"min", "time", 60}, "minute": {"min", "time", 60}, "minutes": {"min", "time", 60}, "hour": {"h", "time", 3600}, "hours": {"h", "time", 3600},
	"B": {"B", "size", 1}, "byte": {"B", "size", 1}, "bytes": {"B", "size", 1},
	"KB": {"KB", "size", 1e3}, "kB": {"KB", "size", 1e3}, "MB": {"MB", "size", 1e6}, "GB": {"GB", "size", 1e9},
	"KiB": {"KiB", "size", 1 << 10}, "MiB": {"MiB", "size", 1 << 20}, "GiB": {"GiB", "size", 1 << 30},
	"x": {"x", "ratio", 1}, "%": {"%", "percent", 1},
}

const number = `(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?`

// figureRe finds a number and its unit: "10 s", "1.51 MB", "512\nMiB",
// "3.8x", "25%". The number must not continue a word, a version or a
// number ("go1.26", "v2.1 s" are not figures); a ratio's x and a
// percentage's sign follow the number directly.
var figureRe = regexp.MustCompile(`(?:^|[^\w.,])` + number +
	`(?:[ \t\n\x{00A0}]?(ns|µs|μs|us|ms|sec|seconds?|s|min|minutes?|hours?|bytes?|B|KB|kB|MB|GB|KiB|MiB|GiB)\b|(x)\b|(%))`)

// rangeStartRe finds the first number of a range whose unit is written
// once, after the second: "0.3 to 0.5 s", "60-70 µs".
var rangeStartRe = regexp.MustCompile(`(?:^|[^\w.,])` + number + `(?:\s+to\s+|\s*[-–]\s*)$`)

// figure is one number with a unit in a text.
type figure struct {
	text       string  // as written, the range's second number for its first
	value      float64 // in its unit
	decimals   int     // digits after the point as written
	unit       string  // canonical
	dim        string
	base       float64 // in the dimension's base unit
	start, end int     // its bytes in the text
}

func newFigure(text, num, frac, unit string, start, end int) figure {
	digits := strings.ReplaceAll(num, ",", "")
	if frac != "" {
		digits += "." + frac
	}
	v, err := strconv.ParseFloat(digits, 64)
	if err != nil {
		panic(err) // the regexp admits digits only
	}
	u := units[unit]
	return figure{text: text, value: v, decimals: len(frac), unit: u.canon, dim: u.dim, base: v * u.scale, start: start, end: end}
}

// figures returns every figure of text, in order.
func figures(text string) []figure {
	var out []figure
	for _, m := range figureRe.FindAllStringSubmatchIndex(text, -1) {
		num, frac := text[m[2]:m[3]], ""
		if m[4] >= 0 {
			frac = text[m[4]:m[5]]
		}
		unit := ""
		for _, g := range []int{6, 8, 10} {
			if m[g] >= 0 {
				unit = text[m[g]:m[g+1]]
			}
		}
		f := newFigure(strings.TrimSpace(text[m[2]:m[1]]), num, frac, unit, m[2], m[1])
		lead := text[max(0, m[2]-40):m[2]]
		if r := rangeStartRe.FindStringSubmatchIndex(lead); r != nil {
			rfrac := ""
			if r[4] >= 0 {
				rfrac = lead[r[4]:r[5]]
			}
			off := m[2] - len(lead)
			out = append(out, newFigure(lead[r[2]:]+f.text, lead[r[2]:r[3]], rfrac, unit, off+r[2], off+r[3]))
		}
		out = append(out, f)
	}
	return out
}

// envelopeTextRe finds the text of an envelope's elements.
var envelopeTextRe = regexp.MustCompile(`<message>[\s\S]*?</message>|<recovery>[\s\S]*?</recovery>|<retry_after>[\s\S]*?</retry_after>|<field\b[^>]*>[\s\S]*?</field>|<detail\b[^>]*>[\s\S]*?</detail>`)

// notMeasured are the figures the documents state that are facts but not
// in abi/abi.json: each entry allows the figures inside its phrases (in any
// document; a space matches any white space). Where a file of the
// repository fixes the fact, source names it and holds is what it must
// contain, so that a changed value fails here too.
var notMeasured = []struct {
	why           string
	phrases       []string
	source, holds string
}{
	{"the hostile inputs of the e2e run and the quickstarts: a 5 MB string argument",
		[]string{"5 MB strings", "5 MB, 250,000 values"}, "tests/e2e/hostile.go", `strings.Repeat("a", 5_000_000)`},
	{"the Go host runs a call on its own goroutine only over this size",
		[]string{"16 KiB"}, "host/host.go", "const InlineRequestBytes = 16 << 10"},
	{"the module's wasm stack, a build flag",
		[]string{"a 1 MiB stack", "The wasm stack is 1 MiB"}, "plugin/tinygo/build.sh", "-zstack-size=1048576"},
	{"the stack of the thread the Java binding runs a call on again when the caller's ran out",
		[]string{"a 256 MiB stack"}, "bindings/java/src/main/java/io/github/toolerr/internal/Engine.java", "DEEP_STACK_BYTES = 256L << 20"},
	{"the module's initial heap, a build flag",
		[]string{"The heap starts at 1 MiB", "touches at most 1 MiB more"}, "plugin/tinygo/build.sh", "--initial-heap=1048576"},
	{"toolerr proxy's --call-timeout default",
		[]string{"`60s`"}, "host/cmd/toolerr/proxy.go", `"call-timeout", 60*time.Second`},
	{"toolerr proxy's --init-timeout default",
		[]string{"`30s`"}, "host/cmd/toolerr/proxy.go", `"init-timeout", 30*time.Second`},
	{"make fuzz's FUZZTIME default",
		[]string{"60 s per target"}, "Makefile", "FUZZTIME ?= 60s"},
	{"the Rust binding's epoch tick, which bounds how late a call is interrupted",
		[]string{"within 10 ms"}, "bindings/rust/src/engine.rs", "Duration::from_millis(10)"},
	{"the Rust bench's default TOOLERR_BENCH_SECONDS",
		[]string{"1.5 s in all"}, "bindings/rust/examples/bench.rs", `positive("TOOLERR_BENCH_SECONDS", 1.5)`},
	{"wazero's fake clock, which the module is not given",
		[]string{"jumps 1 ms at every reading"}, "", ""},
	{"the TypeScript SDK's stdio transport's line limit, which the gate stands in front of",
		[]string{"on a line over 10 MiB"}, "", ""},
	{"the sample output of the snippet above it: the gate's note on the 15-byte line it sends",
		[]string{"ignored a line of 15 bytes"}, "", ""},
}

// historical are blocks (paragraphs or tables) of measurements that
// decided something and that no code of today reproduces (engines and
// builds since dropped): each stays, dated, as the record of why. Every
// figure of the block holding the phrase is allowed; the block, or the
// paragraph before it, must carry its date.
var historical = []struct{ file, phrase string }{
	// The JVM engines compared before the Java binding was written.
	{"RATIONALE.md", "| Extism's Chicory SDK 0.3.0"},
	// The standard Go module's code under wazero, against native Go.
	{"RATIONALE.md", "a plain byte loop"},
	// The module before and after TinyGo's collector at boundaries.
	{"RATIONALE.md", "That bookkeeping sat in every such function"},
	{"RATIONALE.md", "The price: nothing a call allocates"},
}

var dateRe = regexp.MustCompile(`\b(?:January|February|March|April|May|June|July|August|September|October|November|December) 20\d\d\b|\b20\d\d-\d\d\b`)

// block returns the start and end of the run of non-blank lines of text
// around offset i.
func block(text string, i int) (int, int) {
	start := strings.LastIndex(text[:i], "\n\n")
	if start < 0 {
		start = 0
	} else {
		start += 2
	}
	end := strings.Index(text[i:], "\n\n")
	if end < 0 {
		end = len(text)
	} else {
		end += i
	}
	return start, end
}

// phraseRe matches phrase with any white space where it has a space.
func phraseRe(phrase string) *regexp.Regexp {
	parts := strings.Fields(phrase)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(strings.Join(parts, `\s+`))
}

// abiFacts are abi/abi.json's limits, host policy defaults and constants,
// in base units: the values themselves by the unit their names end in,
// and every figure their texts state.
func abiFacts(t *testing.T) []figure {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "abi", "abi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var abi struct {
		Limits []struct {
			Name  string   `json:"name"`
			Value *float64 `json:"value"`
			Shown string   `json:"shown"`
			Doc   string   `json:"doc"`
		} `json:"limits"`
		Policy []struct {
			Name    string   `json:"name"`
			Default *float64 `json:"default"`
			Text    string   `json:"text"`
		} `json:"policy"`
		Constants []struct {
			Name  string   `json:"name"`
			Value *float64 `json:"value"`
			Doc   string   `json:"doc"`
		} `json:"constants"`
	}
	if err := json.Unmarshal(raw, &abi); err != nil {
		t.Fatal(err)
	}
	var facts []figure
	add := func(name string, v *float64, texts ...string) {
		if v != nil {
			switch {
			case strings.HasSuffix(name, "Bytes"):
				facts = append(facts, figure{text: name, dim: "size", base: *v})
			case strings.HasSuffix(name, "Pages"):
				facts = append(facts, figure{text: name, dim: "size", base: *v * 65536})
			case strings.HasSuffix(name, "Ms"):
				facts = append(facts, figure{text: name, dim: "time", base: *v / 1000})
			}
		}
		for _, s := range texts {
			facts = append(facts, figures(s)...)
		}
	}
	for _, l := range abi.Limits {
		add(l.Name, l.Value, l.Shown, l.Doc)
	}
	for _, p := range abi.Policy {
		add(p.Name, p.Default, p.Text)
	}
	for _, c := range abi.Constants {
		add(c.Name, c.Value, c.Doc)
	}
	// The ones the documents rely on most must be there, or abi.json's
	// shape changed under this test.
	for _, want := range []figure{{dim: "size", base: 4 << 20}, {dim: "size", base: 512 << 20}, {dim: "size", base: 64 << 20}, {dim: "size", base: 64 << 10}, {dim: "time", base: 10}} {
		if !isFact(facts, want) {
			t.Fatalf("abi/abi.json states no %v %s; did its limits, policy or constants change shape?", want.base, want.dim)
		}
	}
	return facts
}

func isFact(facts []figure, f figure) bool {
	for _, g := range facts {
		if g.dim == f.dim && math.Abs(g.base-f.base) <= 1e-9*math.Max(1, math.Abs(f.base)) {
			return true
		}
	}
	return false
}

// quoted reports whether f is a generated figure in the same unit, as
// written or rounded to f's precision; rounded, f must keep two
// significant digits, so that a coarse "2 s" does not pass for any figure
// from 1.5 s to 2.5 s.
func quoted(generated []figure, f figure) bool {
	p := math.Pow(10, float64(f.decimals))
	twoDigits := f.value*p >= 10
	for _, g := range generated {
		if g.unit != f.unit {
			continue
		}
		if math.Abs(g.value-f.value) < 1e-9*math.Max(1, f.value) {
			return true
		}
		if twoDigits && math.Abs(math.Round(g.value*p)/p-f.value) < 1e-9*math.Max(1, f.value) {
			return true
		}
	}
	return false
}

// unexplainedFigures returns, for one document, "file:line: figure: the
// line" for each figure this file's rules do not allow, and marks the
// notMeasured phrases and historical blocks it uses.
func unexplainedFigures(t *testing.T, file, text string, generated, facts []figure, phraseUsed, blockUsed map[string]bool) []string {
	t.Helper()
	type span struct{ start, end int }
	var allowed []span
	for _, m := range envelopeTextRe.FindAllStringIndex(text, -1) {
		allowed = append(allowed, span{m[0], m[1]})
	}
	for _, e := range notMeasured {
		for _, p := range e.phrases {
			for _, m := range phraseRe(p).FindAllStringIndex(text, -1) {
				allowed = append(allowed, span{m[0], m[1]})
				phraseUsed[p] = true
			}
		}
	}
	for _, h := range historical {
		if h.file != file {
			continue
		}
		i := strings.Index(text, h.phrase)
		if i < 0 {
			continue
		}
		blockUsed[h.file+": "+h.phrase] = true
		start, end := block(text, i)
		prev, _ := block(text, max(0, start-3))
		if !dateRe.MatchString(text[prev:end]) {
			t.Errorf("%s: the historical block holding %q carries no date (\"November 2026\" or \"2026-11\"), in it or in the paragraph before it", file, h.phrase)
		}
		allowed = append(allowed, span{start, end})
	}
	var found []string
	for _, f := range figures(text) {
		ok := quoted(generated, f) || isFact(facts, f)
		for _, s := range allowed {
			ok = ok || (f.start >= s.start && f.end <= s.end)
		}
		if ok {
			continue
		}
		line := strings.Count(text[:f.start], "\n") + 1
		ls := strings.LastIndex(text[:f.start], "\n") + 1
		le := strings.IndexByte(text[f.start:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += f.start
		}
		found = append(found, fmt.Sprintf("%s:%d: %s: %s", file, line, strings.Join(strings.Fields(f.text), " "), strings.TrimSpace(text[ls:le])))
	}
	return found
}

// TestDocs_FiguresAreFactsOrGenerated fails for every figure of the
// documents that is neither a fact nor in a generated file (see the top of
// this file), and for every rule of this file that no longer applies.
func TestDocs_FiguresAreFactsOrGenerated(t *testing.T) {
	var generated []figure
	for _, g := range generatedFiles {
		raw, err := os.ReadFile(filepath.Join(root, g))
		if err != nil {
			t.Fatal(err)
		}
		generated = append(generated, figures(string(raw))...)
	}
	if len(generated) < 100 {
		t.Fatalf("only %d figures in %v", len(generated), generatedFiles)
	}
	facts := abiFacts(t)
	phraseUsed, blockUsed := map[string]bool{}, map[string]bool{}
	var found []string
	for _, doc := range figureDocs(t) {
		raw, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, unexplainedFigures(t, doc, string(raw), generated, facts, phraseUsed, blockUsed)...)
	}
	if len(found) > 0 {
		t.Errorf("%d figures are neither facts nor in %v: point to the section that measures them, "+
			"add them to tests/bench, or say them without the figure (tests/docs/figures_test.go says what passes):\n%s",
			len(found), generatedFiles, strings.Join(found, "\n"))
	}

	var stale []string
	for _, e := range notMeasured {
		for _, p := range e.phrases {
			if !phraseUsed[p] {
				stale = append(stale, fmt.Sprintf("notMeasured phrase %q is in no document", p))
			}
		}
		if e.source == "" {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, e.source))
		if err != nil {
			stale = append(stale, fmt.Sprintf("notMeasured %q: %v", e.why, err))
		} else if !strings.Contains(string(src), e.holds) {
			stale = append(stale, fmt.Sprintf("notMeasured %q: %s no longer holds %s; is the fact in the documents still true?", e.why, e.source, e.holds))
		}
	}
	for _, h := range historical {
		if !blockUsed[h.file+": "+h.phrase] {
			stale = append(stale, fmt.Sprintf("historical block %q is not in %s", h.phrase, h.file))
		}
	}
	sort.Strings(stale)
	for _, s := range stale {
		t.Error(s)
	}
}

// TestFigures_Found pins what counts as a figure.
func TestFigures_Found(t *testing.T) {
	for text, want := range map[string]string{
		"took 123 ms":                      "123 ms",
		"a 1.51 MB module":                 "1.51 MB",
		"capped at 512\nMiB":               "512\nMiB",
		"3.8x slower, 25% faster":          "3.8x|25%",
		"0.3 to 0.5 s, 60-70 µs":           "0.3 to 0.5 s|0.5 s|60-70 µs|70 µs",
		"5 min 16 s":                       "5 min|16 s",
		"1,000,000 bytes":                  "1,000,000 bytes",
		"`60s`, 30 seconds":                "60s|30 seconds",
		"go1.26.8, 2.x, 0xff, v1.2 s, 3 x": "",
		"100,000 levels, 8,000-byte limit": "",
	} {
		var got []string
		for _, f := range figures(text) {
			got = append(got, f.text)
		}
		if g := strings.Join(got, "|"); g != want {
			t.Errorf("figures(%q) = %q, want %q", text, g, want)
		}
	}
	f := figures("512 MiB and 10 s and 4 MiB")
	if len(f) != 3 || f[0].base != 512<<20 || f[1].base != 10 || f[2].base != 4<<20 {
		t.Errorf("base values: %+v", f)
	}
}
