package dispatch_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/dispatch"
)

// FuzzGate checks the gate's promises on any line: it never fails on a
// line (one without a line feed), a line it rewrites is one it then passes
// as it is, and an answer is one JSON-RPC 2.0 response.
func FuzzGate(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":"\ud800"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":null}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"t","arguments":[1e999]}}`,
		`{"jsonrpc":"1.0","id":1,"method":"m"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, `[1]`, ` `,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":` + strings.Repeat("[", 70) + "}}",
		"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"s\":\"\xff\\udc00\"}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if strings.IndexByte(string(line), '\n') >= 0 || len(line) > abi.MaxRequestBytes {
			return
		}
		out, err := dispatch.Call("gate", line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		var resp struct{ Verdict, Line, Response, Reason string }
		if jerr := json.Unmarshal(out, &resp); jerr != nil {
			t.Fatalf("%q: response %q is not JSON: %v", line, out, jerr)
		}
		switch resp.Verdict {
		case "pass", "ignore":
		case "rewrite":
			if !utf8.ValidString(resp.Line) {
				t.Fatalf("%q: rewrote to text that is not UTF-8", line)
			}
			again, err := dispatch.Call("gate", []byte(resp.Line))
			if err != nil || string(again) != `{"verdict":"pass"}` {
				t.Fatalf("%q: rewrote to %q, which the gate does not pass (%s, %v)", line, resp.Line, again, err)
			}
		case "answer":
			var msg struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   json.RawMessage `json:"error"`
			}
			if jerr := json.Unmarshal([]byte(resp.Response), &msg); jerr != nil || msg.JSONRPC != "2.0" || len(msg.ID) == 0 || (msg.Result == nil) == (msg.Error == nil) {
				t.Fatalf("%q: answer %q is not one JSON-RPC response (%v)", line, resp.Response, jerr)
			}
		default:
			t.Fatalf("%q: verdict %q", line, resp.Verdict)
		}
	})
}
