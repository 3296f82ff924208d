package contract_test

import (
	"strings"
	"testing"

	"github.com/toolerr/toolerr/plugin/internal/dispatch"
)

// TestContractDiff_TypeSetSpelling pins that a "type" written differently
// but accepting the same JSON types (reordered array, a string and its
// one-element array, "integer" next to "number") is no change, while a real
// change in the set still gives its delta.
func TestContractDiff_TypeSetSpelling(t *testing.T) {
	for _, tc := range []struct{ name, before, after, want string }{
		{"reordered array", `["string","null"]`, `["null","string"]`, ""},
		{"string and one-element array", `"string"`, `["string"]`, ""},
		{"one-element array and string", `["integer"]`, `"integer"`, ""},
		{"integer beside number", `["integer","number"]`, `"number"`, ""},
		{"null added", `["string"]`, `["null","string"]`, `"severity":"SAFE","description":"Type of \"p\" widened from string to null or string"`},
		{"null dropped", `["null","string"]`, `"string"`, `"severity":"BREAKING","description":"Type of \"p\" narrowed from null or string to string"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := func(typ string) string {
				return `[{"name":"t","inputSchema":{"type":"object","properties":{"p":{"type":` + typ + `}}}}]`
			}
			out, err := dispatch.Call("contract_diff", []byte(`{"before":`+tool(tc.before)+`,"after":`+tool(tc.after)+`}`))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if got, want := string(out), `{"deltas":[],"maxSeverity":null,"backwardsCompatible":true}`; got != want {
					t.Errorf("got %s, want %s", got, want)
				}
				return
			}
			if !strings.Contains(string(out), tc.want) {
				t.Errorf("got %s, want it to contain %s", out, tc.want)
			}
		})
	}
}

// TestContractLock_LockfileErrorPaths pins that errors inside a lockfile
// quote the whole path of the tool at fault, as every other message does.
func TestContractLock_LockfileErrorPaths(t *testing.T) {
	const contract = `{"name":"a"}`
	const digest = "sha256:" + "0000000000000000000000000000000000000000000000000000000000000000"
	for _, tc := range []struct{ name, export, input, message string }{
		{"no contract", "contract_lock", `{"tools":{"lockfileVersion":1,"tools":[{"name":"a"}]}}`,
			`contract_lock: "tools.tools[0]" must have a "contract" object`},
		{"digest tampered", "contract_lock", `{"tools":{"lockfileVersion":1,"tools":[{"name":"a","digest":"` + digest + `","contract":` + contract + `}]}}`,
			`contract_lock: "tools.tools[0]" (a): digest does not match its contract`},
		{"digest tampered in diff after", "contract_diff", `{"before":[],"after":{"lockfileVersion":1,"tools":[{"name":"a","digest":"` + digest + `","contract":` + contract + `}]}}`,
			`contract_diff: "after.tools[0]" (a): digest does not match its contract`},
		{"digest tampered in validate contract", "validate", `{"action":"a","schema":{"type":"string"},"args":1,"contract":{"tool":"t","lockfile":{"lockfileVersion":1,"tools":[{"name":"a","digest":"` + digest + `","contract":` + contract + `}]},"tools":[]}}`,
			`validate: "contract.lockfile.tools[0]" (a): digest does not match its contract`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dispatch.Call(tc.export, []byte(tc.input))
			if err == nil {
				t.Fatal("no error")
			}
			if err.Message != tc.message {
				t.Errorf("message %q, want %q", err.Message, tc.message)
			}
		})
	}
}
