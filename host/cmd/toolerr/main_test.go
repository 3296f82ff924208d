package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
		{"unknown export exits 2", `{}`, []string{"call", "nope", "--engine", "extism"}, 2, "",
			`{"code":"INVALID_REQUEST","message":"unknown export \"nope\""}` + "\n"},
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
		`{"error":{"code":"INVALID_REQUEST","message":"batch: line is not {\"op\",\"input\"}: invalid character 'o' in literal null (expecting 'u')"}}`,
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
