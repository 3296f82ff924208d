package dispatch

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/toolerr/toolerr/abi"
)

func benchReq(b *testing.B, op string) []byte {
	raw, err := os.ReadFile("../../../tests/bench/requests.json")
	if err != nil {
		b.Fatal(err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		b.Fatal(err)
	}
	var c bytes.Buffer
	json.Compact(&c, all[op])
	return c.Bytes()
}

func BenchmarkCall(b *testing.B) {
	for _, op := range []string{"tool_error", "format_validation", "parse"} {
		b.Run(op, func(b *testing.B) {
			req := benchReq(b, op)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Call(op, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCallEscape(b *testing.B) {
	req := []byte(`{"text":"a","context":"content"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Call("escape", req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendCall(b *testing.B) {
	for _, op := range []string{"tool_error", "format_validation", "parse"} {
		b.Run(op, func(b *testing.B) {
			req := benchReq(b, op)
			var out []byte
			b.ReportAllocs()
			for b.Loop() {
				var err *abi.Error
				if out, err = AppendCall(out[:0], op, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
