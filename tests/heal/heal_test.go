package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

func args(t *testing.T, s string) any {
	t.Helper()
	v, err := decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRepair_Texts runs the repairer on texts as each server writes them.
func TestRepair_Texts(t *testing.T) {
	tests := []struct {
		name, text, tool, args string
		wantTool, wantArgs     string // wantArgs "" means: nothing to change
	}{
		{"envelope type", `<validation_error action="get-sum">
<field name="a">Expected number, received string. You sent: '2'. Expected type: number.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`, "get-sum", `{"a":"2","b":3}`, "get-sum", `{"a":2,"b":3}`},
		{"envelope unknown key at the root", `<validation_error action="x">
<field name="(root)">Unrecognized field: 'verbose'. You sent: (missing). Remove or correct unrecognized fields: 'verbose'. Check for typos.</field>
</validation_error>`, "x", `{"q":"a","verbose":true}`, "x", `{"q":"a"}`},
		{"envelope unknown key, the object sent quoted", `<validation_error action="push_files">
<field name="files.0">Extra inputs are not permitted You sent: {"path":"a","content":"c","x":1}. Remove or correct unrecognized fields: 'x'. Check for typos.</field>
</validation_error>`, "push_files", `{"files":[{"content":"c","path":"a","x":1}]}`, "push_files", `{"files":[{"content":"c","path":"a"}]}`},
		{"envelope enum", `<validation_error action="l">
<field name="sortBy">Is not one of the allowed values. You sent: 'Size'. Valid options: 'name', 'size'.</field>
</validation_error>`, "l", `{"sortBy":"Size"}`, "l", `{"sortBy":"size"}`},
		{"envelope pattern", `<validation_error action="s">
<field name="period">Does not match the pattern ^\d+[hdw]$. You sent: 'x'. Value does not match the required pattern.</field>
</validation_error>`, "s", `{"period":"x"}`, "s", `{"period":"0h"}`},
		{"envelope bound, escaped", `<validation_error action="b">
<field name="count">Number must be less than or equal to 20 You sent: 50. Must be &lt;= 20.</field>
</validation_error>`, "b", `{"count":50}`, "b", `{"count":20}`},
		{"envelope nested path", `<validation_error action="edit_file">
<field name="edits.0.oldText">Expected string, received number. You sent: 5. Expected type: string.</field>
</validation_error>`, "edit_file", `{"edits":[{"newText":"b","oldText":5}]}`, "edit_file", `{"edits":[{"newText":"b","oldText":"5"}]}`},
		{"envelope missing with its type", `<validation_error action="get-sum">
<field name="b">Required property is missing. You sent: (missing). Expected type: number.</field>
</validation_error>`, "get-sum", `{"a":1}`, "get-sum", `{"a":1,"b":1}`},
		{"envelope format with an example", `<validation_error action="fetch">
<field name="url">Is not a valid uri. You sent: 'nope'. Expected: a valid URL (e.g. https://example.com).</field>
</validation_error>`, "fetch", `{"url":"nope"}`, "fetch", `{"url":"https://example.com"}`},
		{"unknown tool with the tools listed", `<tool_error code="UNKNOWN_ACTION" severity="error">
<message>Unknown tool "get_sum".</message>
<available_actions>
  <action>echo</action>
  <action>get-sum</action>
</available_actions>
</tool_error>`, "get_sum", `{"a":1}`, "get-sum", `{"a":1}`},
		{"unknown tool, the module's list", `<tool_error code="UNKNOWN_ACTION">
<message>The tool "get_sum" does not exist.</message>
<available_actions>get-sum, echo</available_actions>
<recovery>Choose a valid action from available_actions and call the tool again.</recovery>
</tool_error>`, "get_sum", `{"a":1}`, "get-sum", `{"a":1}`},
		{"TypeScript SDK", `MCP error -32602: Input validation error: Invalid arguments for tool get-sum: Expected number, received string at a`, "get-sum", `{"a":"2"}`, "get-sum", `{"a":2}`},
		{"TypeScript SDK, an index in the path", `MCP error -32602: Input validation error: Invalid arguments for tool edit_file: Invalid input: expected string, received number at edits[0].oldText`, "edit_file", `{"edits":[{"oldText":5}]}`, "edit_file", `{"edits":[{"oldText":"5"}]}`},
		{"Python SDK", "Error executing tool s: 1 validation error for sArguments\nperiod\n  String should match pattern '^\\d+[hdw]$' [type=string_pattern_mismatch, input_value='x', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.14/v/string_pattern_mismatch", "s", `{"period":"x"}`, "s", `{"period":"0h"}`},
		{"Go SDK bound", `validating "arguments": validating root: validating /properties/count: maximum: 21/1 is greater than 20.000000`, "b", `{"count":21}`, "b", `{"count":20}`},
		{"Go SDK every item", `validating "arguments": validating root: validating /properties/paths: validating /properties/paths/items: type: 42 has type "integer", want "string"`, "r", `{"paths":[42,"b"]}`, "r", `{"paths":["42","b"]}`},
		{"Go SDK missing properties", `validating "arguments": validating root: required: missing properties: ["a" "b"]`, "get-sum", `{}`, "get-sum", `{"a":"x","b":"x"}`},
		{"Go SDK quoted pattern", `validating "arguments": validating root: validating /properties/period: pattern: "x" does not match regular expression "^\\d+[hdw]$"`, "s", `{"period":"x"}`, "s", `{"period":"0h"}`},
		{"unknown tool, no list", `JSON-RPC error -32602: unknown tool "get_sum"`, "get_sum", `{"a":1}`, "get_sum", ""},
		{"union, no shapes given", `<validation_error action="b">
<field name="freshness">Does not match any of the allowed shapes. You sent: 'x'. Value didn't match any of the expected formats.</field>
</validation_error>`, "b", `{"freshness":"x"}`, "b", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sent := args(t, tc.args)
			tool, got, changed := Repair(tc.text, tc.tool, sent)
			if tc.wantArgs == "" {
				if changed || tool != tc.tool {
					t.Fatalf("changed to %s %s; the text gives nothing to change", tool, encode(got))
				}
				return
			}
			if tool != tc.wantTool || encode(got) != encode(args(t, tc.wantArgs)) {
				t.Fatalf("got %s %s, want %s %s", tool, encode(got), tc.wantTool, tc.wantArgs)
			}
			if encode(sent) != encode(args(t, tc.args)) {
				t.Fatalf("the arguments sent were changed: %s", encode(sent))
			}
		})
	}
}

// TestSentClaims_Statements checks the "You sent" checker on true and
// false statements.
func TestSentClaims_Statements(t *testing.T) {
	sent := args(t, `{"a":"hello","n":5,"b":true,"z":null,"list":[1,2],"o":{"k":"v"},"long":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`)
	tests := []struct {
		field, claim string
		want         bool
	}{
		{"a", "'hello'.", true},
		{"a", "'hell'.", false},
		{"n", "5. Must be >= 6.", true},
		{"n", "6.", false},
		{"b", "true.", true},
		{"z", "null.", true},
		{"list", "array(2).", true},
		{"list", "array(3).", false},
		{"o", `{"k":"v"}.`, true},
		{"long", "'" + strings.Repeat("a", 47) + "...'.", true},
		{"missing", "(missing).", true},
		{"a", "(missing).", false},
		{"(root)", "(missing). Remove or correct unrecognized fields: 'a'.", false},
		{"(root)", "'a', 'n'. Remove them.", true},
		{"(root)", "'coupon'.", false},
		{"(root)", "b: true.", true},
		{"(root)", "'n': 6.", false},
		{"(root)", "'n': 5.", true},
		{"(root)", `{"b":true,"n":5}. Remove or correct unrecognized fields: 'b', 'n'.`, true},
		{"(root)", `{"n":6}.`, false},
		{"(root)", `{"coupon":"x"}.`, false},
		{"(root)", `{"n":5}x`, false},
		{"a.literal['x']", "(missing).", false},
		{"a.literal['x']", "'hello'.", true},
		{"a.literal['x']", "'other'.", false},
	}
	for _, tc := range tests {
		t.Run(tc.field+" "+tc.claim, func(t *testing.T) {
			text := `<field name="` + tc.field + `">Bad. You sent: ` + tc.claim + `</field>`
			n, wrong := sentClaims(text, sent)
			if n != 1 || (len(wrong) == 0) != tc.want {
				t.Fatalf("claims %d, false %v; want true=%v", n, wrong, tc.want)
			}
		})
	}
}

// TestGenerate_Patterns checks the strings generated from the corpus's
// patterns.
func TestGenerate_Patterns(t *testing.T) {
	for _, p := range []string{`^\d+[hdw]$`, `^\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2}$`, `^inv_[0-9]{3}$`,
		`^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000)$`,
		`^[a-z0-9][a-z0-9_-]*$`, `^[^@\s]+@[^@\s]+$`, `^https?:\/\/`} {
		s, ok := Generate(p)
		if !ok || !regexp.MustCompile(p).MatchString(s) {
			t.Errorf("Generate(%q) = %q, %v", p, s, ok)
		}
	}
	if s, ok := Generate(`^(?=a)b$`); ok {
		t.Errorf("a lookahead gave %q", s)
	}
}

// TestCorpus_Mutations checks the corpus and the mutations against the
// module's own validation: every tool's valid arguments pass; every case
// but an unknown key on an open object and a wrong tool name fails.
func TestCorpus_Mutations(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadCorpus(filepath.Join(root, "tests/heal/corpus.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tools) < 30 || len(c.Servers()) < 10 {
		t.Fatalf("%d tools of %d servers", len(c.Tools), len(c.Servers()))
	}
	ctx := context.Background()
	h, err := host.New(ctx, host.Options{Engine: host.Native})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	names := map[string]bool{}
	for _, tool := range c.Tools {
		names[tool.Name] = true
	}
	kinds := map[string]int{}
	for i := range c.Tools {
		tool := &c.Tools[i]
		invalid, err := h.Validate(ctx, abi.ValidateRequest{Action: tool.Name, Schema: tool.InputSchema, Args: tool.Valid})
		if err != nil || invalid != nil {
			t.Errorf("%s: valid arguments refused: %v %v", tool.Name, err, invalid)
		}
		for _, m := range Mutations(tool, names) {
			kinds[m.Kind]++
			invalid, err := h.Validate(ctx, abi.ValidateRequest{Action: tool.Name, Schema: tool.InputSchema, Args: json.RawMessage(encode(m.Args))})
			if err != nil {
				t.Errorf("%s: %v", m.ID, err)
			}
			open := m.Kind == "unknown_key" && tool.schema["additionalProperties"] != false
			if refused := invalid != nil; refused == (open || m.Kind == "wrong_tool_name") {
				t.Errorf("%s (%s): refused %v", m.ID, m.Did, refused)
			}
		}
	}
	for _, kind := range Kinds {
		if kinds[kind] == 0 {
			t.Errorf("no case of %s", kind)
		}
	}
}

// TestBench_GoAndProxy runs the whole harness on the Go path and the proxy,
// with the first tools of the corpus: real servers, real calls, a report.
func TestBench_GoAndProxy(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for out, pkg := range map[string]string{"heal-go": "./tests/heal/servers/go", "toolerr": "./host/cmd/toolerr"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(bin, out), pkg)
		cmd.Dir = root
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := Run(ctx, root, Options{Paths: []string{"go", "proxy"}, MaxTools: 4, Parallel: 2, Bin: bin})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Runs) != 2 || len(b.Cases) < 20 {
		t.Fatalf("%d runs, %d cases", len(b.Runs), len(b.Cases))
	}
	goRun, proxyRun := b.Runs[0], b.Runs[1]
	if len(goRun.ValidRefused)+len(proxyRun.ValidRefused) > 0 {
		t.Fatalf("valid arguments refused: %v %v", goRun.ValidRefused, proxyRun.ValidRefused)
	}
	for i, r := range goRun.Results {
		c := r.Case
		if r.Healed.First.Text == "" || r.Plain.First.Text == "" {
			t.Errorf("%s: no answer", c.ID)
		}
		// The proxy validates with the same module, on the same schema.
		if p := proxyRun.Results[i].Healed.First.Text; p != r.Healed.First.Text {
			t.Errorf("%s: the proxy answered\n%s\nthe healed Go server\n%s", c.ID, p, r.Healed.First.Text)
		}
		switch c.Kind {
		case "missing_required", "wrong_type", "null", "empty_object", "nested_path", "array_item", "string_for_number":
			if r.Healed.Accepted || !r.Healed.Repaired || !r.Healed.Measure.Named || r.Healed.Measure.Tokens == 0 {
				t.Errorf("%s: %+v\n%s", c.ID, r.Healed, r.Healed.First.Text)
			}
		}
	}
	report := Report(b, root)
	for _, want := range []string{"## Summary", "| go |", "| proxy |", "## How it was measured"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
