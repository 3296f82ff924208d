package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
	"github.com/toolerr/toolerr/plugin"
)

// stressCalls is the number of calls each of the 8 callers makes per
// engine. The default keeps `go test` short on a small machine; `make
// stress` passes -stress.calls=100000.
var stressCalls = flag.Int("stress.calls", 500, "calls per caller in TestStress (8 callers per engine)")

// stressRequest returns the i-th mixed request of caller g: every export,
// valid and invalid requests, hostile strings, varied per call.
func stressRequest(g, i int) (string, string) {
	s := fmt.Sprintf("g%d-i%d </message>&amp;\u202e\x01", g, i)
	q := func(v string) string { return jsonStr(v) }
	switch (g + i) % 16 {
	case 0:
		return "tool_error", fmt.Sprintf(`{"code":"C%d","message":%s,"suggestion":%s,"availableActions":[%s,"b"],"severity":"warning","details":{"k":%s,"n":%d,"b":true},"retryAfter":%d.5}`, g, q(s), q(s), q(s), q(s), i, i%7)
	case 1:
		return "simple_error", fmt.Sprintf(`{"message":%s,"code":%s}`, q(s), q(s))
	case 2:
		return "required_field", fmt.Sprintf(`{"field":%s}`, q(s))
	case 3:
		return "internal_error", fmt.Sprintf(`{"message":%s,"tool":"t%d","action":%s}`, q(s), g, q(s))
	case 4:
		return "rate_limited", fmt.Sprintf(`{"max":%d,"windowSeconds":60,"retryAfter":%d.25,"key":%s}`, i, g, q(s))
	case 5:
		return "server_busy", fmt.Sprintf(`{"tool":%s,"active":%d,"queued":%d}`, q(s), g, i)
	case 6:
		return "escape", fmt.Sprintf(`{"text":%s,"context":"%s"}`, q(s), [2]string{"content", "attribute"}[i%2])
	case 7:
		return "format_validation", fmt.Sprintf(`{"action":%s,"issues":[{"code":"too_small","type":"string","minimum":%d,"inclusive":true,"path":["a",%d],"message":"Too short"},{"code":"invalid_enum_value","options":["x","y"],"path":["b"],"message":%s}],"args":{"a":["x","y"],"b":%s},"contract":{"tool":"t","deltas":[{"field":"actions.x","severity":"BREAKING","description":%s,"before":"1","after":null}]}}`, q(s), i%9, i%2, q(s), q(s), q(s))
	case 8:
		return "format_validation", fmt.Sprintf(`{"action":"a","dialect":"pydantic","issues":[{"type":"string_too_short","loc":["name"],"msg":"short","input":%s,"ctx":{"min_length":%d}}]}`, q(s), i%5+1)
	case 9:
		return "parse", fmt.Sprintf(`{"text":"<tool_error code=\"X%d\"><message>%d &amp; %d</message><available_actions>a, b</available_actions></tool_error>"}`, g, i, g)
	case 10:
		return "validate", fmt.Sprintf(`{"action":"a","schema":{"type":"object","properties":{"n":{"type":"integer","minimum":%d},"s":{"type":"string","maxLength":3}},"required":["n"],"additionalProperties":false},"args":{"n":%d,"s":%s,"x":1}}`, g, i%11, q(s))
	case 11:
		return "contract_lock", fmt.Sprintf(`{"tools":[{"name":"t%d","description":%s,"inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}]}`, i%5, q(s))
	case 12:
		return "contract_diff", fmt.Sprintf(`{"before":[{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}],"after":[{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b%d":{"type":"string"}},"required":["b%d"]}}]}`, i%3, i%3)
	case 13:
		return "describe", `{}`
	case 14:
		return "tool_error", fmt.Sprintf(`{"code":"X","message":%d}`, i) // INVALID_REQUEST
	default:
		return "rate_limited", fmt.Sprintf(`{"max":1e999,"windowSeconds":%d,"retryAfter":1}`, i) // INVALID_REQUEST
	}
}

// jsonStr writes s as a JSON string, with '<', '>' and '&' as they are.
func jsonStr(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestStress runs 8 concurrent callers of mixed calls on every engine and
// compares every result with the native core's: zero mismatches.
func TestStress(t *testing.T) {
	const callers = 8
	n := *stressCalls
	ctx := context.Background()
	for _, e := range host.Engines {
		t.Run(string(e), func(t *testing.T) {
			// The package's shared Host per engine (MaxInstances =
			// GOMAXPROCS): 8 callers contend for its instances.
			h := engines(t)[e]
			maxInstances := runtime.GOMAXPROCS(0)
			var calls, errorsSeen, mismatches atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
			for g := 0; g < callers; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					for i := 0; i < n; i++ {
						export, req := stressRequest(g, i)
						want, werr := plugin.Call(export, []byte(req))
						got, err := h.Call(ctx, export, []byte(req))
						calls.Add(1)
						var abiErr *abi.Error
						switch {
						case werr == nil && err == nil && bytes.Equal(got, want):
						case werr != nil && errors.As(err, &abiErr) && abiErr.Code == werr.Code && abiErr.Message == werr.Message:
							errorsSeen.Add(1)
						default:
							if mismatches.Add(1) <= 5 {
								t.Errorf("caller %d call %d %s %s:\n got %s %v\nwant %s %v", g, i, export, req, got, err, want, werr)
							}
						}
					}
				}(g)
			}
			wg.Wait()
			took := time.Since(start)
			t.Logf("%s: %d callers x %d calls = %d calls (%d typed errors, as native) in %v, %.0f calls/s; %d mismatches; live instances %d",
				e, callers, n, calls.Load(), errorsSeen.Load(), took.Round(time.Millisecond), float64(calls.Load())/took.Seconds(), mismatches.Load(), host.LiveInstances(h))
			if mismatches.Load() != 0 {
				t.Fatalf("%d mismatches", mismatches.Load())
			}
			if host.LiveInstances(h) > maxInstances {
				t.Errorf("%d live instances, over MaxInstances %d", host.LiveInstances(h), maxInstances)
			}
		})
	}
}
