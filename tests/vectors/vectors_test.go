package vectors_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin"
	"github.com/toolerr/toolerr/tests/vectors"
)

const dir = "v1"

// TestVectors_Lint checks every vector file's shape without trusting the
// decoder behind Load: members, types, one file per export named after it,
// unique descriptions without "should", exactly one of output and error, an
// output that is a string holding one compact JSON object.
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
			for _, problem := range lintOutput(c["output"]) {
				bad("%s: output %s", where, problem)
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
		if !slices.Contains(keys, k) {
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

// lintOutput returns what is wrong with a case's output member: it must be
// a JSON string whose text is one compact JSON object, the exact response,
// with its non-ASCII written as UTF-8 (a surrogate escape would decode
// differently from one language to another).
func lintOutput(raw json.RawMessage) []string {
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return []string{"must be a JSON string (the exact response text)"}
	}
	var problems []string
	if !utf8.Valid(raw) || hasSurrogateEscape(raw) {
		problems = append(problems, "must write non-ASCII as UTF-8, not as invalid bytes or surrogate escapes")
	}
	if !json.Valid([]byte(text)) {
		return append(problems, "text is not exactly one JSON value")
	}
	if !strings.HasPrefix(text, "{") {
		problems = append(problems, "text must be a JSON object")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(text)); err != nil || compact.String() != text {
		problems = append(problems, "text must be compact, as the module writes it (no whitespace between tokens)")
	}
	return problems
}

// hasSurrogateEscape reports whether the JSON string raw holds a \uXXXX
// escape of a UTF-16 surrogate.
func hasSurrogateEscape(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		i++ // the escaped character
		if raw[i] == 'u' && i+4 < len(raw) {
			if r, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 16); err == nil && r >= 0xd800 && r <= 0xdfff {
				return true
			}
		}
	}
	return false
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
	files := vectors.MustLoad(t, dir)
	n := 0
	for _, f := range files {
		n += len(f.Cases)
	}
	if n < 260 {
		t.Errorf("%d cases, want at least 260", n)
	}
}

// TestVectors_Native runs every case through plugin.Call and demands the
// output's bytes exactly, or the expected error code and message.
func TestVectors_Native(t *testing.T) {
	files := vectors.MustLoad(t, dir)
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
				if want := c.Want(); !bytes.Equal(out, want) {
					t.Fatalf("got\n  %s\nwant\n  %s", out, want)
				}
			})
		}
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

// TestLintOutput_Scenario pins what the lint accepts as an output.
func TestLintOutput_Scenario(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		ok        bool
	}{
		{"compact object text", `"{\"text\":\"<a> & é\"}"`, true},
		{"escaped backslash before u is text", `"{\"text\":\"\\\\ud800\"}"`, true},
		{"a JSON object, not its text", `{"text":"a"}`, false},
		{"indented text", `"{ \"text\": \"a\" }"`, false},
		{"two values", `"{}{}"`, false},
		{"not JSON", `"{\"text\":"`, false},
		{"an array", `"[1]"`, false},
		{"surrogate escape", `"{\"text\":\"\ud83d\ude00\"}"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems := lintOutput(json.RawMessage(tc.raw))
			if ok := len(problems) == 0; ok != tc.ok {
				t.Errorf("lintOutput(%s) = %v, want ok %v", tc.raw, problems, tc.ok)
			}
		})
	}
}

// TestCaseWant_Scenario pins the expected bytes of a case.
func TestCaseWant_Scenario(t *testing.T) {
	out := `{"text":"&lt;"}`
	if got := (vectors.Case{Output: &out}).Want(); string(got) != out {
		t.Errorf("Want() = %q, want %q", got, out)
	}
	if got := (vectors.Case{Error: &abi.Error{Code: abi.CodeInvalidRequest, Message: "m"}}).Want(); got != nil {
		t.Errorf("Want() of an error case = %q, want nil", got)
	}
}
