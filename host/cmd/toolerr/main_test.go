package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/abi"
)

func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCLI_Demo(t *testing.T) {
	for _, engine := range []string{"wazero", "extism", "native"} {
		t.Run(engine, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", "demo", "--engine", engine)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, want := range []string{
				"<tool_error code=\"NOT_FOUND\" severity=\"error\">\n<message>Invoice inv_2026_9999 not found</message>",
				"isError: false\n<tool_error code=\"DEPRECATED\" severity=\"warning\">",
				"</recovery>\n\n\n<contract_awareness>",
				"<max_severity>BREAKING</max_severity>",
				"\"code\": \"NOT_FOUND\"",
				"\"searched\": \"3\"",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("demo output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

func TestCLI_Call(t *testing.T) {
	cases := []struct {
		name, stdin string
		args        []string
		code        int
		stdout      string
		stderr      string
	}{
		{"renders", `{"field":"id"}`, []string{"call", "required_field"}, 0,
			`{"content":[{"type":"text","text":"<tool_error code=\"MISSING_REQUIRED_FIELD\">\n<message>Required field \"id\" is missing.</message>\n<recovery>Provide the \"id\" parameter and retry.</recovery>\n</tool_error>"}],"isError":true}` + "\n", ""},
		{"abi error exits 2", `{"code":"X"}`, []string{"call", "tool_error"}, 2, "",
			`{"code":"INVALID_REQUEST","message":"tool_error: \"message\" is required"}` + "\n"},
		{"unknown export exits 2 and lists the exports", `{}`, []string{"call", "nope", "--engine", "extism"}, 2, "",
			`{"code":"INVALID_REQUEST","message":"unknown export \"nope\"; the exports are ` + strings.Join(abi.ExportNames(), ", ") + `"}` + "\n"},
		{"flags before the export", `{"field":"id"}`, []string{"call", "--engine", "native", "required_field"}, 0,
			`{"content":[{"type":"text","text":"<tool_error code=\"MISSING_REQUIRED_FIELD\">\n<message>Required field \"id\" is missing.</message>\n<recovery>Provide the \"id\" parameter and retry.</recovery>\n</tool_error>"}],"isError":true}` + "\n", ""},
		{"a second export is a usage error", ``, []string{"call", "a", "b"}, 64, "", ""},
		{"no export is a usage error", ``, []string{"call"}, 64, "", ""},
		{"unknown command", ``, []string{"frobnicate"}, 64, "", ""},
		{"unknown engine", ``, []string{"demo", "--engine", "v8"}, 64, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %s)", code, tc.code, errOut)
			}
			if out != tc.stdout {
				t.Errorf("stdout %q, want %q", out, tc.stdout)
			}
			if tc.stderr != "" && errOut != tc.stderr {
				t.Errorf("stderr %q, want %q", errOut, tc.stderr)
			}
		})
	}
}

func TestCLI_BatchAnswersEveryLine(t *testing.T) {
	in := strings.Join([]string{
		`{"op":"escape","input":{"text":"a<b","context":"content"}}`,
		`{"op":"tool_error","input":{"code":""}}`,
		`not json`,
		`{"op":"tool_error","input":"{\"code\":\"X\","}`,
		``,
		`{"op":"simple_error","input":{"message":"m"}}`,
	}, "\n")
	want := strings.Join([]string{
		`{"text":"a&lt;b"}`,
		`{"error":{"code":"INVALID_REQUEST","message":"tool_error: \"code\" must not be empty"}}`,
		`{"error":{"code":"INVALID_REQUEST","message":"batch: line 3 is not a JSON object {\"op\",\"input\"}"}}`,
		`{"error":{"code":"INVALID_REQUEST","message":"tool_error: request is not valid JSON: unexpected end of input in an object at offset 12"}}`,
		`{"content":[{"type":"text","text":"<tool_error>\n<message>m</message>\n</tool_error>"}],"isError":true}`,
	}, "\n") + "\n"
	for _, engine := range []string{"wazero", "extism", "native"} {
		code, out, errOut := runCLI(t, in, "batch", "--engine", engine)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", engine, code, errOut)
		}
		if out != want {
			t.Errorf("%s:\n got %s\nwant %s", engine, out, want)
		}
	}
}

var update = flag.Bool("update", false, "rewrite examples/tools.json from examples/schemas.json")

// demoToolsJSON is the billing demo's tools/list result, built from
// examples/schemas.json (each tool's description and inputSchema, in name
// order).
func demoToolsJSON(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile("../../../examples/schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	var defs map[string]struct {
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(raw, &defs); err != nil {
		t.Fatal(err)
	}
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	var list struct {
		Tools []tool `json:"tools"`
	}
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		list.Tools = append(list.Tools, tool{name, defs[name].Description, defs[name].InputSchema})
	}
	out, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// TestCLI_ToolsFile keeps examples/tools.json, which the README's lock and
// diff examples read, the tools/list result of the demo's schemas
// (go test ./host/cmd/toolerr -run TestCLI_ToolsFile -update rewrites it).
func TestCLI_ToolsFile(t *testing.T) {
	want := demoToolsJSON(t)
	const path = "../../../examples/tools.json"
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("examples/tools.json is not the tools/list result of examples/schemas.json (%v); rerun with -update", err)
	}
}

// demoTools is the path of examples/tools.json.
func demoTools(t *testing.T) string {
	t.Helper()
	return "../../../examples/tools.json"
}

func TestCLI_DiffOfTheDemoContractIsBreaking(t *testing.T) {
	tools := demoTools(t)
	code, out, errOut := runCLI(t, "", "diff", "../../../examples/billing.lock.json", tools)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (stderr %s)\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"BREAKING  actions.billing.pay_invoice.input.currency         Required property \"currency\" was added to input",
		"RISKY     actions.billing.list_invoices.input.limit.maximum  Maximum of \"limit\" tightened from 500 to 100     500",
		"2 changes: 1 breaking, 1 risky, 0 safe, 0 cosmetic; NOT backwards compatible",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "", "diff", tools, tools, "--json")
	if code != 0 || strings.TrimSpace(out) != `{"deltas":[],"maxSeverity":null,"backwardsCompatible":true}` {
		t.Errorf("self diff: exit %d, %s", code, out)
	}
}

func TestCLI_LockIsStableAcrossKeyOrder(t *testing.T) {
	a := `[{"name":"t","inputSchema":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}}]`
	b := `[{"inputSchema":{"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"type":"object"},"name":"t"}]`
	codeA, outA, _ := runCLI(t, a, "lock")
	codeB, outB, _ := runCLI(t, b, "lock")
	if codeA != 0 || codeB != 0 || outA != outB {
		t.Errorf("lockfiles differ:\n%s\n%s", outA, outB)
	}
	var lock struct {
		LockfileVersion int `json:"lockfileVersion"`
	}
	if err := json.Unmarshal([]byte(outA), &lock); err != nil || lock.LockfileVersion != 1 {
		t.Errorf("not a lockfile: %v\n%s", err, outA)
	}
	// The committed demo lockfile is what `toolerr lock` writes for itself.
	committed, err := os.ReadFile("../../../examples/billing.lock.json")
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, string(committed), "lock")
	if code != 0 || out != string(committed) {
		t.Errorf("relocking the demo lockfile changed it:\n%s", out)
	}
}

func TestCLI_BatchAnswersAnOverLongLineAndGoesOn(t *testing.T) {
	long := `{"op":"escape","input":{"text":"` + strings.Repeat("a", maxBatchLine) + `","context":"content"}}`
	in := long + "\n" + `{"op":"escape","input":{"text":"a<b","context":"content"}}` + "\n" + long // the last without a newline
	code, out, errOut := runCLI(t, in, "batch", "--engine", "native")
	want := fmt.Sprintf(`{"error":{"code":"REQUEST_TOO_LARGE","message":"batch: line 1 is longer than %d bytes"}}`+"\n"+
		`{"text":"a&lt;b"}`+"\n"+
		`{"error":{"code":"REQUEST_TOO_LARGE","message":"batch: line 3 is longer than %d bytes"}}`+"\n", maxBatchLine, maxBatchLine)
	if code != 0 || out != want {
		t.Errorf("exit %d (%s)\n got %.300s\nwant %s", code, errOut, out, want)
	}
}

// A file that is not one JSON value must not splice members into the
// request: `[], "before": [...]` would otherwise replace the other side
// of the diff and turn a BREAKING change into "no changes".
func TestCLI_DiffAndLockReadOneJSONValue(t *testing.T) {
	dir := t.TempDir()
	lock := "../../../examples/billing.lock.json"
	tools := demoTools(t)
	current, err := os.ReadFile(tools)
	if err != nil {
		t.Fatal(err)
	}
	spliced := filepath.Join(dir, "spliced.json")
	if err := os.WriteFile(spliced, []byte(string(current)+`, "before": `+string(current)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", "diff", lock, spliced)
	if code != 2 || !strings.Contains(errOut, `"code":"INVALID_REQUEST"`) || !strings.Contains(errOut, `\"after\" is not one JSON value`) {
		t.Errorf("spliced diff: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, `[], "x": 1`, "lock")
	if code != 2 || !strings.Contains(errOut, `\"tools\" is not one JSON value`) {
		t.Errorf("spliced lock: exit %d, %s", code, errOut)
	}
}

func TestCLI_Help(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"call", "--help"}, {"diff", "-h"}, {"proxy", "--help"}} {
		code, out, errOut := runCLI(t, "", args...)
		if code != 0 || !strings.HasPrefix(out, "usage:") || errOut != "" {
			t.Errorf("%q: exit %d, stdout %.40q, stderr %q", args, code, out, errOut)
		}
	}
}
