package dispatch_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/plugin/internal/dispatch"
)

// TestGate_NotUnicodeSent checks what the answer to arguments that are not
// valid Unicode quotes of them, for the bytes a vector file cannot carry:
// an escape as it was written, a byte that is not UTF-8 by its value.
func TestGate_NotUnicodeSent(t *testing.T) {
	for _, tc := range []struct {
		name, args, sent string
	}{
		{"a byte that is not UTF-8", `{"s":"a` + "\xff" + `b"}`, "You sent: the byte 0xff."},
		{"an encoded surrogate is quoted by its first byte", `{"s":"` + "\xed\xa0\x80" + `"}`, "You sent: the byte 0xed."},
		{"a truncated sequence in a key", `{"` + "\xe2\x82" + `":1}`, "You sent: the byte 0xe2."},
		{"an escape before a byte", `{"s":"\udbff` + "\xc0" + `"}`, `You sent: \udbff.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t","arguments":` + tc.args + `}}`
			out, err := dispatch.Call("gate", []byte(line))
			if err != nil {
				t.Fatal(err)
			}
			var verdict struct{ Verdict, Response string }
			var answer struct {
				Result struct {
					Content []struct{ Text string }
					IsError bool
				}
			}
			if err := json.Unmarshal(out, &verdict); err != nil || verdict.Verdict != "answer" {
				t.Fatalf("%s, want an answer (%v)", out, err)
			}
			if err := json.Unmarshal([]byte(verdict.Response), &answer); err != nil || len(answer.Result.Content) != 1 || !answer.Result.IsError {
				t.Fatalf("answer %s (%v)", verdict.Response, err)
			}
			text := answer.Result.Content[0].Text
			if !strings.Contains(text, `<field name="(root)">A string in the arguments is not valid Unicode`) || !strings.Contains(text, tc.sent) {
				t.Errorf("text %q, want the not-Unicode field with %q", text, tc.sent)
			}
		})
	}
}
