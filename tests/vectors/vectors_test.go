package vectors_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin"
	"github.com/toolerr/toolerr/tests/vectors"
)

const dir = "v1"

// TestVectors_Lint checks every vector file's shape without trusting the
// decoder behind Load: members, types, one file per export named after it,
// unique descriptions without "should", exactly one of output and error.
func TestVectors_Lint(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, problem := range lintFile(name, data) {
				t.Error(problem)
			}
		})
	}
	for _, e := range abi.ExportNames() {
		if !seen[e] {
			t.Errorf("no vector file for export %s", e)
		}
	}
	if len(paths) != len(abi.Exports) {
		t.Errorf("%d vector files for %d exports", len(paths), len(abi.Exports))
	}
}

// lintFile returns what is wrong with one vector file named name.json.
func lintFile(name string, data []byte) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return []string{"not a JSON object: " + err.Error()}
	}
	if err := onlyKeys(top, "export", "cases"); err != nil {
		bad("file: %v", err)
	}
	var export string
	if err := json.Unmarshal(top["export"], &export); err != nil || export != name {
		bad("file: export is %s, want %q", top["export"], name)
	}
	if !abi.HasExport(name) {
		bad("file: %q is not an export", name)
	}
	var cases []map[string]json.RawMessage
	if err := json.Unmarshal(top["cases"], &cases); err != nil || len(cases) == 0 {
		return append(problems, "file: cases must be a non-empty array of objects")
	}
	descriptions := map[string]bool{}
	for i, c := range cases {
		var desc string
		if err := json.Unmarshal(c["description"], &desc); err != nil || strings.TrimSpace(desc) == "" {
			bad("case %d: description must be a non-empty string", i)
		}
		where := fmt.Sprintf("case %d (%s)", i, desc)
		if descriptions[desc] {
			bad("%s: description repeated", where)
		}
		descriptions[desc] = true
		if strings.Contains(strings.ToLower(desc), "should") {
			bad("%s: description says \"should\"", where)
		}
		if _, ok := c["input"]; !ok {
			bad("%s: input missing", where)
		}
		_, hasOutput := c["output"]
		_, hasError := c["error"]
		switch {
		case hasOutput == hasError:
			bad("%s: exactly one of output and error", where)
			continue
		case hasOutput:
			if err := onlyKeys(c, "description", "input", "output"); err != nil {
				bad("%s: %v", where, err)
			}
			if !isObject(c["output"]) {
				bad("%s: output must be an object", where)
			}
		default:
			if err := onlyKeys(c, "description", "input", "error"); err != nil {
				bad("%s: %v", where, err)
			}
			var e map[string]json.RawMessage
			if err := json.Unmarshal(c["error"], &e); err != nil || e == nil {
				bad("%s: error must be an object", where)
				continue
			}
			if err := onlyKeys(e, "code", "message"); err != nil {
				bad("%s: error: %v", where, err)
			}
			var code, message string
			if json.Unmarshal(e["code"], &code) != nil ||
				(code != abi.CodeInvalidRequest && code != abi.CodeRequestTooLarge && code != abi.CodeInternal) {
				bad("%s: error code %s is not an ABI code", where, e["code"])
			}
			if json.Unmarshal(e["message"], &message) != nil || message == "" {
				bad("%s: error message must be a non-empty string", where)
			}
		}
	}
	return problems
}

func onlyKeys(obj map[string]json.RawMessage, keys ...string) error {
	var extra, missing []string
	for k := range obj {
		if !contains(keys, k) {
			extra = append(extra, k)
		}
	}
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			missing = append(missing, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 || len(missing) > 0 {
		return fmt.Errorf("unknown members %v, missing members %v", extra, missing)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// TestVectors_Schema checks that schema.json is valid JSON and a draft
// 2020-12 schema; the lint test above is what enforces the shape.
func TestVectors_Schema(t *testing.T) {
	data, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	if got := schema["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %v", got)
	}
}

// TestVectors_Count keeps the suite from shrinking unnoticed.
func TestVectors_Count(t *testing.T) {
	files, err := vectors.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		n += len(f.Cases)
	}
	if n < 260 {
		t.Errorf("%d cases, want at least 260", n)
	}
}

// TestVectors_Native runs every case through plugin.Call and demands the
// expected bytes, or the expected error code and message.
func TestVectors_Native(t *testing.T) {
	files, err := vectors.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for _, c := range f.Cases {
			t.Run(f.Export+"/"+c.Description, func(t *testing.T) {
				req, err := c.Request()
				if err != nil {
					t.Fatal(err)
				}
				out, callErr := plugin.Call(f.Export, req)
				if c.Error != nil {
					if callErr == nil {
						t.Fatalf("got output %s, want error %s: %s", out, c.Error.Code, c.Error.Message)
					}
					if callErr.Code != c.Error.Code || callErr.Message != c.Error.Message {
						t.Fatalf("got error\n  %s: %s\nwant\n  %s: %s", callErr.Code, callErr.Message, c.Error.Code, c.Error.Message)
					}
					return
				}
				if callErr != nil {
					t.Fatalf("got error %s: %s, want output", callErr.Code, callErr.Message)
				}
				want, err := vectors.Canonical(c.Output)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out, want) {
					t.Fatalf("got\n  %s\nwant\n  %s", out, want)
				}
			})
		}
	}
}

// TestCanonical_Scenario pins the re-encoding the comparison relies on.
func TestCanonical_Scenario(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"key order kept", `{"b": 1, "a": {"d": [], "c": {}}}`, `{"b":1,"a":{"d":[],"c":{}}}`},
		{"html characters unescaped", `"<a> & \u2028"`, "\"<a> & \u2028\""},
		{"control characters", `"\u0001\b\f\n\r\t\u001f\u007f"`, "\"\\u0001\\b\\f\\n\\r\\t\\u001f\u007f\""},
		{"quote and backslash", `"\"\\\/"`, `"\"\\/"`},
		{"lone surrogate", `"\ud800"`, "\"\ufffd\""},
		{"numbers as JavaScript", `[30.0, 1.5, 1e21, 1E-7, 0.000001, -0, 100000000000000000000]`, `[30,1.5,1e+21,1e-7,0.000001,0,100000000000000000000]`},
		{"exponent notation as JavaScript", `[1.5e-7, -2.5E-8, 1e100, 1.7976931348623157e308, 5e-324, 1.2e21, -1e-6, 0.1, 123456789012345680000]`,
			`[1.5e-7,-2.5e-8,1e+100,1.7976931348623157e+308,5e-324,1.2e+21,-0.000001,0.1,123456789012345680000]`},
		{"overflow as null", `[1e999, -1e999]`, `[null,null]`},
		{"literals", `[true, false, null]`, `[true,false,null]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := vectors.Canonical(json.RawMessage(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestCaseRequest_Scenario pins how an input becomes request bytes.
func TestCaseRequest_Scenario(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"object compacted with escapes kept", "{ \"text\" : \"a\\ud800\" }", `{"text":"a\ud800"}`},
		{"string is raw text", `"{\"max\":30.0"`, `{"max":30.0`},
		{"null", `null`, `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := vectors.Case{Input: json.RawMessage(tc.in)}.Request()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
