package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
)

// Report writes docs/HEALING.md from a run.
func Report(b *Bench, root string) string {
	w := &strings.Builder{}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("# What the model reads: the heal bench\n\n")
	p("Written by `make heal-bench` (`go run ./tests/heal`, %.0f s for this run); every figure below comes from that run, none is typed. ", b.Elapsed.Seconds())
	p("It takes %d tool schemas of %d public MCP servers ([`tests/heal/corpus.json`](../tests/heal/corpus.json)), makes the mistakes models make in %d calls built from valid arguments, ", len(b.Tools), len(b.Corpus.Servers()), len(b.Cases))
	p("sends each call to real stdio servers built with each official MCP SDK, healed by toolerr and not, and reads what comes back as a model would: ")
	p("does the text name the field with its full path, is its \"You sent\" true, does it state the constraint with its value, how many tokens does it cost, ")
	p("and can a repairer that reads only that text (never the schema) turn the call into one that passes?\n\n")

	p("## Summary\n\n")
	p("Refused: the cases the server refused (what a text has to describe; a case a server lets through is counted under [Accepted](#accepted)). ")
	p("Repaired: of those, the share the repairer turned into a passing call of the intended tool within %d calls, reading toolerr's text, and, beside it, reading the SDK's own text for the same call (the same server without toolerr). ", maxRounds)
	p("Goals: the repairer repairs 95%% or more of the refused cases from toolerr's text; no \"You sent\" is false.\n\n")
	p("| path | refused | repaired from toolerr's text | at the first try | repaired from the SDK's text | false \"You sent\" | field named in full, toolerr / SDK | constraint stated, toolerr / SDK | tokens per issue, toolerr / SDK |\n")
	p("|---|---|---|---|---|---|---|---|---|\n")
	for _, run := range b.Runs {
		h, s := run.Sum(true, ""), run.Sum(false, "")
		p("| %s | %d of %d | **%s** (%s) | %s | %s (%s of %d) | **%d** of %d | %s | %s | %s / %s |\n",
			run.Path.Name, h.Rejected, h.Cases, pct(h.Repaired, h.Rejected), ratio(h.Repaired, h.Rejected), pct(h.FirstTry, h.Rejected),
			pct(s.Repaired, s.Rejected), ratio(s.Repaired, s.Rejected), s.Cases, h.FalseClaims, h.Claims,
			pct(h.Named, h.Rejected)+" / "+pct(s.Named, s.Rejected), pct(h.Stated, h.Rejected)+" / "+pct(s.Stated, s.Rejected), perIssue(h), perIssue(s))
	}
	p("\n")
	for _, run := range b.Runs {
		p("- **%s**: %s.\n", run.Path.Name, run.Path.Title)
	}
	p("\n")
	if refused := validRefused(b); refused != "" {
		p("Valid arguments refused (a converter or server bug: those tools' figures are not to be trusted):\n\n%s\n", refused)
	}

	p("## Repaired, by mutation\n\n")
	p("Each cell: repaired from toolerr's text / refused · repaired from the SDK's text / refused.\n\n")
	table(w, b, func(run *PathRun, kind string) string {
		h, s := run.Sum(true, kind), run.Sum(false, kind)
		return fmt.Sprintf("%s · %s", ratio(h.Repaired, h.Rejected), ratio(s.Repaired, s.Rejected))
	})

	p("## What toolerr's texts say, by mutation\n\n")
	p("Each cell: field named in full / constraint stated / false \"You sent\", each out of the refused cases; then tokens per issue, toolerr's text / the SDK's.\n\n")
	table(w, b, func(run *PathRun, kind string) string {
		h, s := run.Sum(true, kind), run.Sum(false, kind)
		if h.Rejected == 0 {
			return "–"
		}
		return fmt.Sprintf("%d/%d/%d of %d; %s/%s", h.Named, h.Stated, h.FalseClaims, h.Rejected, perIssue(h), perIssue(s))
	})

	p("## Where toolerr's text is not enough\n\n")
	p("Every refused case the repairer could not repair from toolerr's text, with that text (its first field, or its first line).\n\n")
	notEnough(w, b)

	p("## False \"You sent\"\n\n")
	falseSent(w, b)

	p("## Accepted\n\n")
	p("Cases a server let through, so that no text was written: each cell, with toolerr / without.\n\n")
	table(w, b, func(run *PathRun, kind string) string {
		h, s := run.Sum(true, kind), run.Sum(false, kind)
		return fmt.Sprintf("%d / %d", h.Accepted, s.Accepted)
	})

	p("## The texts, side by side\n\n")
	p("For each mutation, one case (the first of the corpus that some path could not repair from one of the two texts, else the first it applies to): what each path answers with toolerr, and the same server without it.\n\n")
	sideBySide(w, b)

	p("## How it was measured\n\n")
	method(w, b, root)
	return w.String()
}

// table writes one row per mutation kind and one column per path.
func table(w *strings.Builder, b *Bench, cell func(*PathRun, string) string) {
	w.WriteString("| mutation |")
	for _, run := range b.Runs {
		w.WriteString(" " + run.Path.Name + " |")
	}
	w.WriteString("\n|---|")
	for range b.Runs {
		w.WriteString("---|")
	}
	w.WriteString("\n")
	for _, kind := range Kinds {
		fmt.Fprintf(w, "| %s |", kind)
		for _, run := range b.Runs {
			w.WriteString(" " + cell(run, kind) + " |")
		}
		w.WriteString("\n")
	}
	w.WriteString("\n")
}

func validRefused(b *Bench) string {
	var lines []string
	for _, run := range b.Runs {
		for key, text := range run.ValidRefused {
			lines = append(lines, fmt.Sprintf("- %s: %s", key, oneLine(text, 200)))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// notEnough lists the refused cases the repairer could not repair from
// toolerr's text: one row per mutation and set of paths where every case
// got the same kind of text, with one example.
func notEnough(w *strings.Builder, b *Bench) {
	type group struct {
		kind, paths, shape string
		cases              []*Case
		text               string
	}
	var groups []*group
	byKey := map[string]*group{}
	for i := range b.Cases {
		c := &b.Cases[i]
		var paths []string
		var text string
		for _, run := range b.Runs {
			r := run.Results[i]
			if !r.Healed.Accepted && !r.Healed.Repaired {
				paths = append(paths, run.Path.Name)
				if text == "" {
					text = firstField(r.Healed.First.Text)
				}
			}
		}
		if len(paths) == 0 {
			continue
		}
		g := &group{kind: c.Kind, paths: strings.Join(paths, ", "), shape: shape(text, c)}
		key := g.kind + "|" + g.paths + "|" + g.shape
		if byKey[key] == nil {
			g.text = text
			byKey[key] = g
			groups = append(groups, g)
		}
		byKey[key].cases = append(byKey[key].cases, c)
	}
	w.WriteString("| mutation | cases | paths | toolerr's text (the first case) |\n|---|---|---|---|\n")
	for _, g := range groups {
		var ids []string
		for _, c := range g.cases {
			ids = append(ids, strings.SplitN(c.ID, "/", 2)[0])
		}
		fmt.Fprintf(w, "| %s | %d: %s | %s | %s |\n", g.kind, len(g.cases), cellText(cut(strings.Join(ids, ", "), 160)), g.paths, codeCell(g.text))
	}
	if len(groups) == 0 {
		w.WriteString("| – | none | | |\n")
	}
	w.WriteString("\n")
}

// shape is a text with what is particular to its case (the tool's name,
// quoted values) taken out, to group texts of one kind.
func shape(text string, c *Case) string {
	t := strings.ReplaceAll(text, c.Call, "TOOL")
	return regexp.MustCompile(`'[^']*'|"[^"]*"|\d+`).ReplaceAllString(t, "_")
}

// falseSent lists every false "You sent" of toolerr's texts, one row per
// mutation and kind of statement.
func falseSent(w *strings.Builder, b *Bench) {
	w.WriteString("Every \"You sent\" of toolerr's texts that does not state what the call sent at that field, grouped by mutation and statement.\n\n")
	w.WriteString("| mutation | statements | paths | cases | the statement (the first case) |\n|---|---|---|---|---|\n")
	type group struct {
		kind, example string
		n             int
		paths, cases  []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, run := range b.Runs {
		for _, r := range run.Results {
			for _, f := range r.Healed.Measure.False {
				key := r.Case.Kind + "|" + shape(f, r.Case)
				g := byKey[key]
				if g == nil {
					g = &group{kind: r.Case.Kind, example: r.Case.ID + ", " + r.Case.Did + ": " + f}
					byKey[key] = g
					groups = append(groups, g)
				}
				g.n++
				g.paths = appendNew(g.paths, run.Path.Name)
				g.cases = appendNew(g.cases, strings.SplitN(r.Case.ID, "/", 2)[0])
			}
		}
	}
	for _, g := range groups {
		fmt.Fprintf(w, "| %s | %d | %s | %d: %s | %s |\n", g.kind, g.n, strings.Join(g.paths, ", "), len(g.cases), cellText(cut(strings.Join(g.cases, ", "), 160)), codeCell(g.example))
	}
	if len(groups) == 0 {
		w.WriteString("| – | 0 | | | none |\n")
	}
	w.WriteString("\n")
}

func sideBySide(w *strings.Builder, b *Bench) {
	for _, kind := range Kinds {
		i := example(b, kind)
		if i < 0 {
			continue
		}
		c := &b.Cases[i]
		fmt.Fprintf(w, "### %s: `%s` %s\n\n", kind, c.Call, cellText(c.Did))
		fmt.Fprintf(w, "Arguments sent: `%s`\n\n", encode(c.Args))
		w.WriteString("| path | with toolerr | without (the SDK's own answer) |\n|---|---|---|\n")
		for _, run := range b.Runs {
			r := run.Results[i]
			fmt.Fprintf(w, "| %s | %s | %s |\n", run.Path.Name, answerCell(r.Healed), answerCell(r.Plain))
		}
		w.WriteString("\n")
	}
}

// example picks the case of a kind shown side by side: the first that some
// path could not repair from one of the two texts, else the first; -1 when
// the kind applies to no tool.
func example(b *Bench, kind string) int {
	first := -1
	for j := range b.Cases {
		if b.Cases[j].Kind != kind {
			continue
		}
		if first < 0 {
			first = j
		}
		for _, run := range b.Runs {
			r := run.Results[j]
			if !r.Healed.Accepted && !r.Healed.Repaired || !r.Plain.Accepted && !r.Plain.Repaired {
				return j
			}
		}
	}
	return first
}

func answerCell(s Side) string {
	if s.Accepted {
		return "accepted: `" + oneLine(s.First.Text, 60) + "`"
	}
	mark := "not repaired"
	if s.Repaired {
		mark = fmt.Sprintf("repaired in %d", s.Rounds)
	}
	return codeCell(s.First.Text) + "<br>(" + mark + ")"
}

var firstFieldRE = regexp.MustCompile(`<field [^>]*>.*?</field>`)

func firstField(text string) string {
	if m := firstFieldRE.FindString(text); m != "" {
		return m
	}
	return strings.SplitN(text, "\n", 2)[0]
}

// codeCell is text in a table cell, as code, its lines kept.
func codeCell(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = "<code>" + cellText(l) + "</code>"
	}
	return strings.Join(lines, "<br>")
}

// cellText escapes what markdown and HTML read in a table cell.
func cellText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "&#124;").Replace(s)
}

func oneLine(s string, n int) string {
	return cellText(cut(strings.ReplaceAll(s, "\n", " ⏎ "), n))
}

func method(w *strings.Builder, b *Bench, root string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("**Corpus.** %d tools, as their servers list them (`tools/list`, schemas unchanged), each with one set of valid arguments written for the bench:\n\n", len(b.Tools))
	for _, s := range b.Corpus.Servers() {
		p("- %s\n", s)
	}
	p("\nThey cover strings with patterns and formats, numbers with bounds (inclusive and exclusive), enums, `anyOf` unions, nested objects, arrays of objects and of strings, optional and required fields, and objects with and without `additionalProperties: false`.\n\n")
	p("**Mutations.** Each applies to a tool when its schema has what it needs (the first such property, required ones first, in name order); %d cases in all:\n\n", len(b.Cases))
	counts := map[string]int{}
	for _, c := range b.Cases {
		counts[c.Kind]++
	}
	for _, kind := range Kinds {
		p("- `%s` (%d): %s.\n", kind, counts[kind], KindText[kind])
	}
	p("\n**Paths.** One server process per side serves every tool of the corpus; one client session plays every case on it (the MCP Go SDK's client over stdio). Each tool's handler answers `ok`: a call passes when it reaches it. Versions in this run: %s.\n\n", versions(root))
	for _, run := range b.Runs {
		p("- %s: with toolerr `%s`; without `%s`.\n", run.Path.Name, strings.Join(run.Path.Healed, " "), strings.Join(run.Path.Plain, " "))
	}
	p("\nThe Node servers convert each JSON Schema to zod (`z.string().regex()`, `.url()`, `.uuid()`, `z.number().int().gte()`, `z.enum()`, `z.object().strict()` for `additionalProperties: false`, `z.union()`, …) with zod's v3 or v4 API; the Python server builds each tool's signature from its schema (`Annotated[str, Field(pattern=…)]`, `Literal[…]`, `AnyUrl`, `UUID`, nested `create_model(…)` with `extra=\"forbid\"` for `additionalProperties: false`); a keyword either converter does not know stops the server, so no tool is served looser than published without saying so. The Go and Rust servers advertise the schemas as they are. rmcp checks no argument against a tool's `inputSchema` (its handlers take `JsonObject` here), so the Rust server without toolerr accepts every mutated call but the wrong tool names. The proxy's plain side is the plain Go server it fronts.\n\n")
	p("**Measures**, on the first answer of each refused case:\n\n")
	p("- *field named in full*: the text holds the mistaken field's path in one of the usual notations (`a.0.b`, `a[0].b`, `/a/0/b`, `[\"a\",0,\"b\"]`; a top-level field as a word); for `empty_object`, every required field; for `wrong_tool_name`, nothing (always true).\n")
	p("- *constraint stated*: the text states what the value must be: the type for a type mistake, a missing or null field; the bound's number for `out_of_range`; every option for `bad_enum`; the pattern's source for `bad_pattern`; the format's name for `bad_format`; the key's name for `unknown_key`; every required field's name for `empty_object`; the intended tool's name for `wrong_tool_name`.\n")
	p("- *\"You sent\" true*: each `You sent: …` of a `<field name=\"P\">` is compared with the arguments at P: `(missing)` only where nothing was sent (and not on a path that runs through a value the call did send), `null`, a number, `true`/`false`, `array(N)`, a quoted string (cut with `...`), an object's compact JSON (cut), or the quoted names of keys the object at P has. The SDKs' texts make no such statement.\n")
	p("- *tokens per issue*: the whole text in OpenAI's `o200k_base` (the GPT-4o tokenizer; tiktoken-go with its ranks embedded), divided by the mistakes in the call (one, or the required fields for `empty_object`), averaged over the refused cases.\n")
	p("- *repaired*: the repairer (`tests/heal/repair.go`) reads the text and nothing else, edits the arguments, calls again, and reads the next answer, up to %d calls; repaired when a call of the intended tool passes. It reads toolerr's `<validation_error>` fields and `<available_actions>`, and the SDKs' own texts: the TypeScript SDK's zod messages with `at path`, the Python SDK's pydantic report (location, then message), the Go SDK's jsonschema-go chain (schema locations, `items` read as every item). From each message it takes unknown keys (removed), missing fields (added), the type (converted: `\"10\"` → 10, one item → a list), bounds (clamped), options (the closest), a pattern (a string generated from it), a format (the text's example, else a well-known one), and for an unknown tool the listed tool closest to the name called. It guesses a string where a text names no type.\n\n", maxRounds)
	p("The bench is not part of `make test`; `go test ./tests/heal` (which is) checks the repairer, the measures and the mutations on fixed texts and runs the Go and proxy paths on a few tools.\n")
}

// versions lists the SDKs and validators the run used, read from the tree.
func versions(root string) string {
	var out []string
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/modelcontextprotocol/go-sdk" {
				out = append(out, "go-sdk "+dep.Version)
			}
		}
	}
	for _, pkg := range []string{"@modelcontextprotocol/sdk", "zod"} {
		if v := npmVersion(root, pkg); v != "" {
			out = append(out, pkg+" "+v)
		}
	}
	for _, pkg := range []string{"mcp", "pydantic"} {
		matches, _ := filepath.Glob(filepath.Join(root, ".venv/lib/python*/site-packages", pkg+"-*.dist-info"))
		for _, m := range matches {
			out = append(out, pkg+" "+strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m), pkg+"-"), ".dist-info"))
		}
	}
	if lock, err := os.ReadFile(filepath.Join(root, "Cargo.lock")); err == nil {
		if m := regexp.MustCompile(`name = "rmcp"\nversion = "([^"]+)"`).FindSubmatch(lock); m != nil {
			out = append(out, "rmcp "+string(m[1]))
		}
	}
	if v, err := os.ReadFile(filepath.Join(root, "VERSION")); err == nil {
		out = append(out, "toolerr "+strings.TrimSpace(string(v)))
	}
	return strings.Join(out, ", ")
}

func npmVersion(root, pkg string) string {
	data, err := os.ReadFile(filepath.Join(root, "examples/node/node_modules", pkg, "package.json"))
	if err != nil {
		return ""
	}
	m := regexp.MustCompile(`"version":\s*"([^"]+)"`).FindSubmatch(data)
	if m == nil {
		return ""
	}
	return string(m[1])
}
