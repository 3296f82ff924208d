package parse_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolerr/toolerr/plugin/internal/parse"
)

// adversarialTexts are texts built to make a naive envelope parser
// backtrack: each repeats a unit to the requested size after (or instead
// of) an envelope's opening.
var adversarialTexts = []struct {
	name         string
	prefix, unit string
}{
	{"nested tags", `<tool_error code="X">`, `<tool_error><message><details><detail key="k">`},
	{"unclosed tags", `<tool_error code="X"><message>m</message>`, `<message><recovery><retry_after><field>`},
	{"entity flood", `<tool_error code="X"><message>`, `&amp;&lt;&#60;&#x3C;&amp;lt;&bogus;&#99999999;&`},
	{"many available_actions", `<tool_error code="X"><message>m</message>`, `<available_actions>a,b,`},
	{"detail key with unclosed quote", `<tool_error code="X"><message>m</message><details>`, `<detail key="`},
	{"detail attrs without end", `<tool_error code="X"><message>m</message>`, `<detail key="v" k2='<detail key="' `},
	{"action without closer", `<tool_error code="X"><message>m</message><available_actions>`, `<action>a`},
	{"open tags only", ``, `<tool_error <validation_error `},
	{"validation fields unclosed", `<validation_error action="a">`, `<field name="n"><contract_awareness><change severity="`},
}

func adversarial(prefix, unit string, size int) string {
	return prefix + strings.Repeat(unit, (size-len(prefix))/len(unit))
}

// bestOf returns the fastest of up to n parses of text, stopping early once
// a run is already within limit.
func bestOf(n int, text string, limit time.Duration) time.Duration {
	best := time.Duration(1 << 62)
	for i := 0; i < n; i++ {
		runtime.GC()
		start := time.Now()
		parse.Parse(text)
		if d := time.Since(start); d < best {
			best = d
		}
		if best <= limit {
			break
		}
	}
	return best
}

// TestParse_Linear parses 1 MiB and 8 MiB of each adversarial text: the
// larger must take at most 32 times as long, best of 3. Linear work is 8x;
// quadratic work is 64x, so 32x tells them apart with 4x slack for a
// shared, noisy machine (garbage collection alone can double a run).
func TestParse_Linear(t *testing.T) {
	const small, large = 1 << 20, 8 << 20
	// A floor keeps a sub-millisecond small run from making the bound
	// meaninglessly tight.
	const floor = 2 * time.Millisecond
	for _, tc := range adversarialTexts {
		t.Run(tc.name, func(t *testing.T) {
			smallText, largeText := adversarial(tc.prefix, tc.unit, small), adversarial(tc.prefix, tc.unit, large)
			// A quadratic parser is 64x slower at 8x the input, every
			// time; a load spike on a shared machine is not, so a failed
			// measurement is repeated once before it counts.
			var s, l, base time.Duration
			for attempt := 0; attempt < 3; attempt++ {
				s = bestOf(3, smallText, 0)
				base = max(s, floor)
				l = bestOf(3, largeText, 32*base)
				if l <= 32*base {
					break
				}
			}
			t.Logf("1 MiB %v, 8 MiB %v (ratio %.1f)", s, l, float64(l)/float64(base))
			if l > 32*base {
				t.Errorf("8 MiB took %v, over 32x the 1 MiB time %v: not linear", l, base)
			}
		})
	}
}
