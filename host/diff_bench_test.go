package host_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolerr/toolerr/host"
)

// contractOf200Tools returns two versions of a 200-tool contract: every
// tenth tool changed (a bound tightened, a property added as required, an
// enum value removed), the rest identical.
func contractOf200Tools() (before, after string) {
	var b, a []string
	for i := 0; i < 200; i++ {
		props := fmt.Sprintf(`"id":{"type":"string","pattern":"^t%d_[0-9]+$"},"limit":{"type":"integer","minimum":1,"maximum":%%d},"mode":{"type":"string","enum":["fast","safe"%%s]},"tags":{"type":"array","items":{"type":"string","maxLength":20}}`, i)
		tool := `{"name":"tool_%03d","description":"Tool %d of the benchmark contract.","inputSchema":{"type":"object","properties":{%s%s},"required":["id"%s],"additionalProperties":false},"annotations":{"readOnlyHint":true}}`
		b = append(b, fmt.Sprintf(tool, i, i, fmt.Sprintf(props, 500, `,"slow"`), "", ""))
		if i%10 == 0 {
			a = append(a, fmt.Sprintf(tool, i, i, fmt.Sprintf(props, 100, ""), `,"scope":{"type":"string"}`, `,"scope"`))
		} else {
			a = append(a, fmt.Sprintf(tool, i, i, fmt.Sprintf(props, 500, `,"slow"`), "", ""))
		}
	}
	return "[" + strings.Join(b, ",") + "]", "[" + strings.Join(a, ",") + "]"
}

// BenchmarkContractDiff_200Tools diffs two 200-tool contracts given as
// tools (so each call also canonicalises and digests both). Report the
// time per tool with ns/op / 200.
func BenchmarkContractDiff_200Tools(b *testing.B) {
	before, after := contractOf200Tools()
	req := []byte(`{"before":` + before + `,"after":` + after + `}`)
	for _, e := range []host.Engine{host.Native, host.Wazero} {
		b.Run(string(e), func(b *testing.B) {
			h := benchHost(b, e)
			ctx := context.Background()
			out, err := h.Call(ctx, "contract_diff", req)
			if err != nil {
				b.Fatal(err)
			}
			if n := strings.Count(string(out), `"severity":`); n != 20*3 {
				b.Fatalf("%d deltas, want 60:\n%.400s", n, out)
			}
			for b.Loop() {
				if _, err := h.Call(ctx, "contract_diff", req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/200, "ns/tool")
		})
	}
}
