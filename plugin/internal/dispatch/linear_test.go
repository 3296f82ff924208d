package dispatch_test

// TestLinear_* time every export on hostile requests of one size and of
// eight times that size, in the same run, natively (dispatch.Call): the
// larger must take at most 16 times as long. Linear work is 8x, n log n a
// little more, quadratic work 64x; 16x tells them apart with 2x of slack for
// a shared, noisy machine. Each time is the best of a few calls, in CPU
// time (SECURITY.md, "Resource exhaustion"). A shape whose work is refused
// past a budget that grows with the request (REQUEST_TOO_LARGE) must stay
// linear too: a refusal comes after work proportional to the request, and
// the shapes are sized so that the smaller request reaches its budget too
// (or, where the cost is counted before the work runs, a pattern or the
// JSON Schema library's check or compile, is refused at once at the larger
// size).

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/dispatch"
)

// linearShape is one hostile request, built at a scale: build(1) and
// build(8) are the two sizes compared.
type linearShape struct {
	name string
	// build writes the request at a scale; salt differs on every call, for
	// the shapes whose answer the module caches (compiled schemas, diffs).
	build  func(scale int) string
	salted func(scale int, salt string) string
	// refusable lets the request be refused with REQUEST_TOO_LARGE (a work
	// budget); otherwise it must succeed.
	refusable bool
}

// The bound and the measurement.
const (
	linearRatio = 16
	// linearFloor keeps a sub-millisecond small run from making the bound
	// meaninglessly tight.
	linearFloor = 2 * time.Millisecond
	linearReps  = 3
)

// timeCall returns the best of up to reps calls, in CPU time (the
// process's, which is the call's: nothing else runs meanwhile, the garbage
// collector included), stopping early once a run is within limit; done is
// false when a call did not return within deadline, in wall time (the call
// is then abandoned: the test fails anyway).
func timeCall(export string, request func() []byte, reps int, limit, deadline time.Duration) (best time.Duration, res callResult, done bool) {
	best = time.Duration(1 << 62)
	for i := 0; i < reps; i++ {
		req := request()
		runtime.GC()
		ch := make(chan callResult, 1)
		start, cpu := time.Now(), cpuNow()
		go func() {
			out, err := dispatch.Call(export, req)
			ch <- callResult{len(out), err}
		}()
		select {
		case res = <-ch:
		case <-time.After(deadline):
			return time.Since(start), res, false
		}
		if d := cpuNow() - cpu; d < best {
			best = d
		}
		if best <= limit {
			break
		}
	}
	return best, res, true
}

type callResult struct {
	n   int
	err *abi.Error
}

func (r callResult) String() string {
	if r.err != nil {
		return r.err.Code + ": " + cut(r.err.Message, 160)
	}
	return strconv.Itoa(r.n) + " bytes"
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

func checkResult(t *testing.T, sh linearShape, scale int, res callResult) {
	t.Helper()
	if res.err == nil {
		return
	}
	// A budget's refusal, not the request limits' (which would mean the
	// shape is built too big).
	if sh.refusable && res.err.Code == abi.CodeRequestTooLarge && !strings.Contains(res.err.Message, ": request is ") && !strings.Contains(res.err.Message, ": request holds more than") {
		return
	}
	t.Errorf("%dx: %s", scale, res)
}

// salt makes salted requests unique within the test binary.
var salt int

// forgetCached replaces what the module keeps between calls (64 compiled
// schemas, 64 diffs) with small entries: a large schema or diff of one
// shape would otherwise stay alive, and every collection between the later
// calls would have to trace it.
func forgetCached() {
	for i := 0; i < 64; i++ {
		salt++
		n := strconv.Itoa(salt)
		dispatch.Call("validate", []byte(`{"action":"a","schema":{"$comment":"`+n+`"},"args":1}`))
		dispatch.Call("contract_diff", []byte(`{"before":[{"name":"t`+n+`"}],"after":[]}`))
	}
	runtime.GC()
}

// runLinear measures every shape of an export. The garbage collector runs
// between calls, not during them (unless a call allocates a gigabyte): a
// small call would otherwise run with no collection and a large one with
// several, which is a step, not a slope.
func runLinear(t *testing.T, export string, shapes []linearShape) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			request := func(scale int) func() []byte {
				if sh.salted == nil {
					b := []byte(sh.build(scale))
					return func() []byte { return b }
				}
				return func() []byte {
					salt++
					return []byte(sh.salted(scale, strconv.Itoa(salt)))
				}
			}
			small, large := request(1), request(8)
			if n := len(large()); n > abi.MaxRequestBytes {
				t.Fatalf("the 8x request is %d bytes, over the request limit", n)
			}
			// One untimed call of each first: what the module caches (a
			// compiled schema, a diff) is then cached for every timed call
			// of both sizes, or, for salted requests, for none.
			dispatch.Call(export, small())
			dispatch.Call(export, large())
			var s, l time.Duration
			var sres, lres callResult
			ok := false
			for attempt := 0; attempt < 3 && !ok; attempt++ {
				var done bool
				if s, sres, done = timeCall(export, small, linearReps, 0, time.Minute); !done {
					t.Fatalf("1x did not return within a minute")
				}
				base := max(s, linearFloor)
				// The deadline is wall time, on a machine that may be busy:
				// generous, as only a quadratic call comes near it.
				if l, lres, done = timeCall(export, large, linearReps, linearRatio*base, 16*linearRatio*base+10*time.Second); !done {
					t.Fatalf("8x still running after %v; 1x took %v", l, s)
				}
				ok = l <= linearRatio*base
			}
			forgetCached()
			checkResult(t, sh, 1, sres)
			checkResult(t, sh, 8, lres)
			ratio := float64(l) / float64(max(s, linearFloor))
			t.Logf("1x %d B %v (%s); 8x %d B %v (%s); ratio %.1f", len(small()), s, sres, len(large()), l, lres, ratio)
			if !ok {
				t.Errorf("8x took %v, over %dx the 1x time %v: not linear", l, linearRatio, s)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Builders.

func jq(s string) string { return strconv.Quote(s) } // ASCII only in these tests

// members writes n object members "<prefix>i":value(i).
func members(n int, prefix string, value func(i int) string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jq(prefix + strconv.Itoa(i)))
		b.WriteByte(':')
		b.WriteString(value(i))
	}
	return b.String()
}

// items writes n array items value(i).
func items(n int, value func(i int) string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(value(i))
	}
	return b.String()
}

func repeatTo(unit string, size int) string { return strings.Repeat(unit, max(1, size/len(unit))) }

func constant(s string) func(int) string { return func(int) string { return s } }

// chain writes depth nested objects, each of width members "w<i>":0 and
// then key, whose value is the next object, the innermost's inner.
func chain(depth, width int, key, inner string) string {
	var b strings.Builder
	for d := 0; d < depth; d++ {
		b.WriteString(`{` + members(width, "w", constant("0")) + `,` + jq(key) + `:`)
	}
	b.WriteString(inner + strings.Repeat("}", depth))
	return b.String()
}

// ---------------------------------------------------------------------------
// The shapes, export by export.

func TestLinear_ToolError(t *testing.T) {
	runLinear(t, "tool_error", []linearShape{
		{name: "many details", build: func(k int) string {
			return `{"code":"X","message":"m","details":{` + members(1000*k, "key", func(i int) string { return strconv.Itoa(i) }) + `}}`
		}},
		{name: "repeated detail keys", build: func(k int) string {
			return `{"code":"X","message":"m","details":{` + items(1000*k, func(i int) string { return `"k` + strconv.Itoa(i%7) + `":"v"` }) + `}}`
		}},
		{name: "many actions", build: func(k int) string {
			return `{"code":"X","message":"m","availableActions":[` + items(1000*k, func(i int) string { return jq("a." + strconv.Itoa(i)) }) + `]}`
		}},
		{name: "escapes everywhere", build: func(k int) string {
			s := repeatTo(`]]>&<\"'`, 10000*k)
			return `{"code":"` + s + `","message":"` + s + `","suggestion":"` + s + `","details":{"` + s + `":"` + s + `"}}`
		}},
	})
}

func TestLinear_SmallRenderers(t *testing.T) {
	text := func(k int) string { return repeatTo(`]]>&<\"'\u0001`, 30000*k) }
	for _, tc := range []struct {
		export string
		build  func(k int) string
	}{
		{"simple_error", func(k int) string { return `{"message":"` + text(k) + `","code":"` + text(k) + `"}` }},
		{"required_field", func(k int) string { return `{"field":"` + text(k) + `"}` }},
		{"internal_error", func(k int) string {
			return `{"message":"` + text(k) + `","tool":"` + text(k) + `","action":"` + text(k) + `"}`
		}},
		{"tool_failure", func(k int) string {
			return `{"message":"` + text(k) + `","tool":"` + text(k) + `","action":"` + text(k) + `"}`
		}},
		{"rate_limited", func(k int) string {
			return `{"max":1e308,"windowSeconds":1e-300,"retryAfter":123456.789,"key":"` + text(k) + `"}`
		}},
		{"server_busy", func(k int) string { return `{"tool":"` + text(k) + `","active":1,"queued":2}` }},
		{"escape", func(k int) string { return `{"text":"` + text(k) + `","context":"content"}` }},
	} {
		t.Run(tc.export, func(t *testing.T) {
			runLinear(t, tc.export, []linearShape{{name: "long escaped text", build: tc.build}})
		})
	}
	runLinear(t, "escape", []linearShape{{name: "attribute", build: func(k int) string {
		return `{"text":"` + text(k) + `","context":"attribute"}`
	}}})
	runLinear(t, "describe", []linearShape{{name: "padded request", build: func(k int) string {
		return "{" + strings.Repeat(" \n\t", 30000*k) + "}"
	}}})
}

func TestLinear_Gate(t *testing.T) {
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":` + args + `}}`
	}
	runLinear(t, "gate", []linearShape{
		{name: "lone surrogates everywhere", build: func(k int) string {
			return call(`{"s":"` + strings.Repeat(`\ud800a`, 40000*k) + `"}`)
		}},
		{name: "bytes that are not UTF-8 everywhere", build: func(k int) string {
			return call(`{"s":"` + strings.Repeat("\xffa", 60000*k) + `"}`)
		}},
		{name: "deep arguments", build: func(k int) string {
			return call(strings.Repeat("[", 60000*k) + strings.Repeat("]", 60000*k))
		}},
		{name: "many values", build: func(k int) string {
			return call(`{"a":[` + strings.TrimSuffix(strings.Repeat("0,", 30000*k), ",") + `]}`)
		}},
		{name: "many members with long keys", build: func(k int) string {
			return call(`{` + strings.TrimSuffix(strings.Repeat(`"`+strings.Repeat("k", 40)+`":1,`, 5000*k), ",") + `}`)
		}},
		{name: "not JSON after a long prefix", build: func(k int) string {
			return call(`{"a":[` + strings.Repeat("1,", 60000*k) + `]}`)
		}},
	})
}

func TestLinear_FormatValidation(t *testing.T) {
	zod := func(path string) string {
		return `{"code":"invalid_type","expected":"string","received":"number","path":` + path + `,"message":"Expected string"}`
	}
	runLinear(t, "format_validation", []linearShape{
		{name: "zod issues into a big args object", build: func(k int) string {
			n := 1000 * k
			return `{"action":"a","args":{` + members(n, "field", constant("1")) + `},"issues":[` +
				items(n, func(i int) string { return zod(`["field` + strconv.Itoa(n-1-i) + `"]`) }) + `]}`
		}},
		{name: "zod long paths down a wide chain", build: func(k int) string {
			// 40 levels, each with width members; the chain key is the last.
			const depth = 40
			args := chain(depth, 20*k, "next", `1`)
			path := `[` + strings.TrimSuffix(strings.Repeat(`"next",`, depth), ",") + `]`
			return `{"action":"a","args":` + args + `,"issues":[` + items(100*k, func(int) string { return zod(path) }) + `]}`
		}},
		{name: "zod many issues sent one long string", build: func(k int) string {
			return `{"action":"a","args":{"s":"` + strings.Repeat("é", 5000*k) + `"},"issues":[` + items(1000*k, func(int) string { return zod(`["s"]`) }) + `]}`
		}},
		{name: "zod many issues sent one big object", build: func(k int) string {
			return `{"action":"a","args":{"o":{` + members(1000*k, "m", constant(`"v"`)) + `}},"issues":[` + items(1000*k, func(int) string { return zod(`["o"]`) }) + `]}`
		}},
		{name: "zod nested invalid_key issues", build: func(k int) string {
			inner := `{"code":"too_small","type":"string","minimum":3,"inclusive":true,"path":[]}`
			for d := 0; d < 60; d++ {
				inner = `{"code":"invalid_key","path":["k"],"issues":[` + inner + `]}`
			}
			return `{"action":"a","issues":[` + items(5*k, constant(inner)) + `]}`
		}},
		{name: "zod unrecognized keys", build: func(k int) string {
			keys := `[` + items(50, func(i int) string { return jq("k" + strconv.Itoa(i)) }) + `]`
			return `{"action":"a","issues":[` + items(100*k, func(int) string {
				return `{"code":"unrecognized_keys","keys":` + keys + `,"path":[],"message":"m"}`
			}) + `]}`
		}},
		{name: "pydantic literal with a long unquoted expected list", build: func(k int) string {
			return `{"action":"a","dialect":"pydantic","issues":[{"type":"literal_error","loc":["x"],"msg":"m","ctx":{"expected":"` +
				strings.TrimSuffix(strings.Repeat("abc, ", 5000*k), ", ") + `"}}]}`
		}},
		{name: "pydantic issues into a big args object", build: func(k int) string {
			n := 1000 * k
			return `{"action":"a","dialect":"pydantic","args":{` + members(n, "f", constant("1")) + `},"issues":[` +
				items(n, func(i int) string { return `{"type":"string_type","loc":["f` + strconv.Itoa(n-1-i) + `"],"msg":"m"}` }) + `]}`
		}},
		{name: "pydantic extra fields of one object", build: func(k int) string {
			n := 1000 * k
			return `{"action":"a","dialect":"pydantic","args":{"o":{` + members(n, "x", constant("1")) + `}},"issues":[` +
				items(n, func(i int) string {
					return `{"type":"extra_forbidden","loc":["o","x` + strconv.Itoa(i) + `"],"msg":"m"}`
				}) + `]}`
		}},
		{name: "jsonschema ajv schemaPaths into a big schema", build: func(k int) string {
			n := 1000 * k
			return `{"action":"a","dialect":"jsonschema","schema":{"properties":{` + members(n, "p", constant(`{"type":"string"}`)) + `}},"args":{` +
				members(n, "p", constant("1")) + `},"issues":[` + items(n, func(i int) string {
				p := "p" + strconv.Itoa(n-1-i)
				return `{"instancePath":"/` + p + `","schemaPath":"#/properties/` + p + `/type","keyword":"type","params":{},"message":"m"}`
			}) + `]}`
		}},
		{name: "jsonschema unions and many errors", build: func(k int) string {
			n := 600 * k
			return `{"action":"a","dialect":"jsonschema","issues":[` + items(n, func(i int) string {
				return `{"instancePath":"","schemaPath":"#/anyOf/` + strconv.Itoa(i) + `/anyOf","keyword":"anyOf","params":{},"message":"m"}`
			}) + `,` + items(n, func(i int) string {
				return `{"instancePath":"","schemaPath":"#/x/` + strconv.Itoa(i) + `/type","keyword":"type","params":{"type":"string"},"message":"m"}`
			}) + `]}`
		}},
		{name: "jsonschema basic additionalProperties naming one big object", build: func(k int) string {
			n := 600 * k
			return `{"action":"a","dialect":"jsonschema","schema":{"properties":{` + members(n, "p", constant(`{}`)) + `},"additionalProperties":false},"args":{` +
				members(n, "p", constant("1")) + `,` + members(n, "x", constant("1")) + `},"issues":[` + items(n, func(i int) string {
				return `{"instanceLocation":"","keywordLocation":"/additionalProperties","error":"m"}`
			}) + `]}`
		}},
		{name: "jsonschema basic required against a long required list", build: func(k int) string {
			n := 800 * k
			return `{"action":"a","dialect":"jsonschema","schema":{"required":[` + items(n, func(i int) string { return jq("r" + strconv.Itoa(i)) }) + `]},"args":{` +
				members(n-1, "r", constant("1")) + `},"issues":[` + items(n, func(i int) string {
				return `{"instanceLocation":"","keywordLocation":"/required","error":"m"}`
			}) + `]}`
		}},
		{name: "jsonschema enum suggestions from the schema", refusable: true, build: func(k int) string {
			n := 1000 * k
			return `{"action":"a","dialect":"jsonschema","schema":{"enum":[` + items(n, func(i int) string { return jq("v" + strconv.Itoa(i)) }) + `]},"issues":[` +
				items(n, func(i int) string {
					return `{"instanceLocation":"","keywordLocation":"/enum","error":"m"}`
				}) + `]}`
		}},
		{name: "many contract deltas", build: func(k int) string {
			return `{"action":"a","issues":[` + zod(`["x"]`) + `],"contract":{"tool":"t","maxDeltas":1e300,"deltas":[` + items(1500*k, func(i int) string {
				return `{"field":"actions.a.input.p` + strconv.Itoa(i) + `","severity":"RISKY","description":"d","before":"b","after":null}`
			}) + `]}}`
		}},
	})
}

func TestLinear_Validate(t *testing.T) {
	runLinear(t, "validate", []linearShape{
		{name: "issues into a big args object", build: func(k int) string {
			n := 1000 * k
			return `{"action":"a","schema":{"additionalProperties":{"type":"string"}},"args":{` + members(n, "f", constant("1")) + `}}`
		}},
		{name: "many missing required properties", build: func(k int) string {
			n := 1000 * k
			return `{"action":"a","schema":{"type":"object","properties":{` + members(n, "p", constant(`{"type":"string"}`)) + `},"required":[` +
				items(n, func(i int) string { return jq("p" + strconv.Itoa(i)) }) + `]},"args":{}}`
		}},
		{name: "many unknown keys", build: func(k int) string {
			n := 1000 * k
			return `{"action":"a","schema":{"type":"object","properties":{` + members(n, "p", constant(`{}`)) + `},"additionalProperties":false},"args":{` +
				members(n, "x", constant("1")) + `}}`
		}},
		{name: "deep args with issues at the bottom", build: func(k int) string {
			const depth = 100
			width := 15 * k
			args := chain(depth, width, "n", `{`+members(width, "leaf", constant("1"))+`}`)
			schema := `{"additionalProperties":{"type":"string"}}`
			for d := 0; d < depth; d++ {
				schema = `{"properties":{"n":` + schema + `}}`
			}
			return `{"action":"a","schema":` + schema + `,"args":` + args + `}`
		}},
		{name: "long enum against many items", refusable: true, build: func(k int) string {
			n := 1500 * k
			return `{"action":"a","schema":{"items":{"enum":[` + items(n, func(i int) string { return jq("v" + strconv.Itoa(i)) }) + `]}},"args":[` +
				items(n, constant(`"no"`)) + `]}`
		}},
		{name: "required list against many empty objects", refusable: true, build: func(k int) string {
			n := 1500 * k
			return `{"action":"a","schema":{"items":{"required":[` + items(n, func(i int) string { return jq("r" + strconv.Itoa(i)) }) + `]}},"args":[` +
				items(n, constant(`{}`)) + `]}`
		}},
		{name: "many properties against many empty objects", refusable: true, build: func(k int) string {
			n := 1500 * k
			return `{"action":"a","schema":{"items":{"properties":{` + members(n, "p", constant(`{"type":"string"}`)) + `}}},"args":[` +
				items(n, constant(`{}`)) + `]}`
		}},
		{name: "dependentSchemas against many objects", refusable: true, build: func(k int) string {
			n := 1500 * k
			return `{"action":"a","schema":{"items":{"dependentSchemas":{` + members(n, "d", constant(`{"required":["z"]}`)) + `}}},"args":[` +
				items(n, func(i int) string { return `{"d` + strconv.Itoa(i) + `":1}` }) + `]}`
		}},
		{name: "patternProperties against many keys", refusable: true, build: func(k int) string {
			n := 1000 * k
			return `{"action":"a","schema":{"patternProperties":{` + members(n, "^p", constant(`{"type":"string"}`)) + `}},"args":{` +
				members(n, "p", constant("1")) + `}}`
		}},
		{name: "long $ref chain", refusable: true, build: func(k int) string {
			n := 5000 * k
			return `{"action":"a","schema":{"$defs":{` + members(n, "d", func(i int) string {
				if i == n-1 {
					return `{"type":"string"}`
				}
				return `{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"}`
			}) + `},"$ref":"#/$defs/d0"},"args":1}`
		}},
		{name: "long pattern against a long string", refusable: true, build: func(k int) string {
			n := 300 * k
			return `{"action":"a","schema":{"pattern":"^` + strings.Repeat("a?", n) + strings.Repeat("a", n) + `$"},"args":"` + strings.Repeat("a", n) + `b"}`
		}},
		{name: "one long key above many issues", refusable: true, build: func(k int) string {
			return `{"action":"a","schema":{"additionalProperties":{"items":{"type":"string"}}},"args":{"` + strings.Repeat("k", 40000*k) + `":[` +
				items(4000*k, constant("1")) + `]}}`
		}},
		{name: "one long key in a wide object above many issues", refusable: true, build: func(k int) string {
			return `{"action":"a","schema":{"properties":{"m0":{}},"additionalProperties":{"items":{"type":"string"}}},"args":{` +
				members(10, "m", constant("1")) + `,"` + strings.Repeat("k", 25000*k) + `":[` + items(2000*k, constant("1")) + `]}}`
		}},
		{name: "long key above many schema nodes", refusable: true, build: func(k int) string {
			n := 2000 * k
			return `{"action":"a","schema":{"properties":{"` + strings.Repeat("k", 20000*k) + `":{"properties":{` +
				members(n, "p", constant(`{"type":"string"}`)) + `}}}},"args":{}}`
		}},
		{name: "big const against items of its size", build: func(k int) string {
			n := 800 * k
			c := members(n, "c", constant("1"))
			return `{"action":"a","schema":{"items":{"const":{` + c + `}}},"args":[` + items(3, func(i int) string { return `{` + c[:len(c)-1] + strconv.Itoa(i+2) + `}` }) + `]}`
		}},
		{name: "enum of objects against many objects", refusable: true, build: func(k int) string {
			n := 300 * k
			obj := func(i int) string { return `{"a":` + strconv.Itoa(i) + `,"b":[1,2,3]}` }
			return `{"action":"a","schema":{"items":{"enum":[` + items(n, obj) + `]}},"args":[` + items(n, func(i int) string { return obj(i + n) }) + `]}`
		}},
		{name: "many distinct items, uniqueItems", build: func(k int) string {
			return `{"action":"a","schema":{"uniqueItems":true,"items":{"type":"string"}},"args":[` + items(5000*k, func(i int) string { return jq("s" + strconv.Itoa(i)) }) + `]}`
		}},
		{name: "many $refs to places outside the subschemas, compiled", refusable: true, salted: func(k int, salt string) string {
			n := 400 * k
			return `{"action":"a","schema":{"$comment":"` + salt + `","x":{` + members(n, "", constant(`{"type":"string"}`)) + `},"properties":{` +
				members(n, "p", func(i int) string { return `{"$ref":"#/x/` + strconv.Itoa(i) + `"}` }) + `}},"args":{}}`
		}},
		{name: "many $ids, compiled", refusable: true, salted: func(k int, salt string) string {
			n := 1000 * k
			return `{"action":"a","schema":{"$comment":"` + salt + `","$defs":{` + members(n, "d", func(i int) string {
				return `{"$id":"https://x.example/s` + strconv.Itoa(i) + `","type":"string"}`
			}) + `},"properties":{"x":{"$ref":"https://x.example/s7"}}},"args":{"x":1}}`
		}},
		{name: "many dynamic anchors, compiled", refusable: true, salted: func(k int, salt string) string {
			n := 1000 * k
			return `{"action":"a","schema":{"$comment":"` + salt + `","$defs":{` + members(n, "d", func(i int) string {
				return `{"$dynamicAnchor":"a` + strconv.Itoa(i) + `","type":"string"}`
			}) + `},"properties":{"x":{"$dynamicRef":"#a7"}}},"args":{"x":1}}`
		}},
		{name: "nested schema with long keys, compiled", salted: func(k int, salt string) string {
			schema := `{"type":"string"}`
			for d := 0; d < 6; d++ {
				schema = `{"properties":{"` + strings.Repeat("k", 8000*k) + strconv.Itoa(d) + `":` + schema + `}}`
			}
			return `{"action":"a","schema":{"$comment":"` + salt + `","allOf":[` + schema + `]},"args":{}}`
		}},
		{name: "big schema compiled on every call", salted: func(k int, salt string) string {
			n := 500 * k
			return `{"action":"a","schema":{"$comment":"` + salt + `","type":"object","properties":{` +
				members(n, "p", constant(`{"type":"string","minLength":1}`)) + `}},"args":{` + members(n, "p", constant(`"x"`)) + `}}`
		}},
	})
}

// tools writes a tools array of n tools whose input schema is schema(i).
func tools(n int, schema func(i int) string) string {
	return `[` + items(n, func(i int) string { return `{"name":"t` + strconv.Itoa(i) + `","inputSchema":` + schema(i) + `}` }) + `]`
}

func TestLinear_ContractLock(t *testing.T) {
	runLinear(t, "contract_lock", []linearShape{
		{name: "many tools", build: func(k int) string {
			return `{"tools":` + tools(600*k, constant(`{"type":"object"}`)) + `}`
		}},
		{name: "one tool with many properties", build: func(k int) string {
			return `{"tools":` + tools(1, constant(`{"properties":{`+members(2500*k, "p", constant(`{"type":"string"}`))+`}}`)) + `}`
		}},
		{name: "keys sharing a long prefix", build: func(k int) string {
			prefix := strings.Repeat("p", 200)
			return `{"tools":` + tools(1, constant(`{"properties":{`+members(200*k, prefix, constant(`{}`))+`}}`)) + `}`
		}},
	})
}

func TestLinear_ContractDiff(t *testing.T) {
	diff := func(before, after string) string { return `{"before":` + before + `,"after":` + after + `}` }
	one := func(schema string) string { return tools(1, constant(schema)) }
	shapes := []linearShape{
		{name: "many tools", build: func(k int) string {
			return diff(tools(500*k, constant(`{"type":"object"}`)), tools(500*k, constant(`{"type":"array"}`)))
		}},
		{name: "many properties changed", build: func(k int) string {
			n := 500 * k
			return diff(one(`{"properties":{`+members(n, "p", constant(`{"type":"string"}`))+`}}`),
				one(`{"properties":{`+members(n, "p", constant(`{"type":"number"}`))+`}}`))
		}},
		{name: "long enums", build: func(k int) string {
			n := 600 * k
			return diff(one(`{"enum":[`+items(n, strconv.Itoa)+`]}`), one(`{"enum":[`+items(n, func(i int) string { return strconv.Itoa(i + n/2) })+`]}`))
		}},
		{name: "big default objects", build: func(k int) string {
			n := 3000 * k
			return diff(one(`{"properties":{"p":{"default":{`+members(n, "d", constant("1"))+`,"z":1}}}}`),
				one(`{"properties":{"p":{"default":{`+members(n, "d", constant("1"))+`,"z":2}}}}`))
		}},
		{name: "many references into many definitions", build: func(k int) string {
			n := 700 * k
			s := func(typ string) string {
				return one(`{"$defs":{` + members(n, "d", constant(`{"type":"`+typ+`"}`)) + `},"properties":{` +
					members(n, "p", func(i int) string { return `{"$ref":"#/$defs/d` + strconv.Itoa(i) + `"}` }) + `}}`)
			}
			return diff(s("string"), s("number"))
		}},
		{name: "long type arrays", build: func(k int) string {
			n := 3000 * k
			return diff(one(`{"type":[`+items(n, func(i int) string { return jq([]string{"string", "number", "null"}[i%3]) })+`]}`),
				one(`{"type":[`+items(n, func(i int) string { return jq([]string{"integer", "boolean", "null"}[i%3]) })+`]}`))
		}},
		{name: "a long key above many unchanged properties", refusable: true, build: func(k int) string {
			key := jq(strings.Repeat("k", 2000*k))
			props := `{"properties":{` + key + `:{"properties":{` + members(1000*k, "p", constant(`{"type":"string"}`)) + `}}}`
			return diff(one(props+`,"title":"a"}`), one(props+`,"title":"b"}`))
		}},
		{name: "one definition compared against many schemas", refusable: true, build: func(k int) string {
			n := 1000 * k
			before := one(`{"$defs":{"X":{"properties":{` + members(n, "x", constant(`{}`)) + `}}},"properties":{` +
				members(n, "p", constant(`{"$ref":"#/$defs/X"}`)) + `}}`)
			after := one(`{"properties":{` + members(n, "p", func(i int) string { return `{"title":"` + strconv.Itoa(i) + `"}` }) + `}}`)
			return diff(before, after)
		}},
		{name: "long keys above many deltas", refusable: true, build: func(k int) string {
			n := 2000 * k
			var b, a strings.Builder
			for d := 0; d < 30; d++ {
				key := jq(strings.Repeat("k", 1000*k) + strconv.Itoa(d))
				b.WriteString(`{"properties":{` + key + `:`)
				a.WriteString(`{"properties":{` + key + `:`)
			}
			b.WriteString(`{"properties":{` + members(n, "p", constant(`{}`)) + `}}` + strings.Repeat("}}", 30))
			a.WriteString(`{}` + strings.Repeat("}}", 30))
			return diff(one(b.String()), one(a.String()))
		}},
	}
	// The module caches diffs by the digests of both contracts: a tool of
	// its own makes every request new.
	for i := range shapes {
		build := shapes[i].build
		shapes[i].build, shapes[i].salted = nil, func(k int, salt string) string {
			tool := `{"name":"~salt","description":"` + salt + `"},`
			before, after, _ := strings.Cut(build(k), `,"after":[`)
			before = strings.Replace(before, `"before":[`, `"before":[`+tool, 1)
			return before + `,"after":[` + tool + after
		}
	}
	runLinear(t, "contract_diff", shapes)
}

func TestLinear_Parse(t *testing.T) {
	text := func(s string) string { return `{"text":` + jq(s) + `}` }
	// adversarialTexts are texts built to make a naive envelope parser
	// backtrack: each repeats a unit after (or instead of) an envelope's
	// opening.
	adversarial := []struct{ name, prefix, unit string }{
		{"nested tags", `<tool_error code="X">`, `<tool_error><message><details><detail key="k">`},
		{"unclosed tags", `<tool_error code="X"><message>m</message>`, `<message><recovery><retry_after><field>`},
		{"entity flood", `<tool_error code="X"><message>`, `&amp;&lt;&#60;&#x3C;&amp;lt;&bogus;&#99999999;&`},
		{"many available_actions", `<tool_error code="X"><message>m</message>`, `<available_actions>a,b,`},
		{"detail key with unclosed quote", `<tool_error code="X"><message>m</message><details>`, `<detail key="`},
		{"detail attrs without end", `<tool_error code="X"><message>m</message>`, `<detail key="v" k2='<detail key="' `},
		{"action without closer", `<tool_error code="X"><message>m</message><available_actions>`, `<action>a`},
		{"open tags only", ``, `<tool_error <validation_error `},
		{"validation fields unclosed", `<validation_error action="a">`, `<field name="n"><contract_awareness><change severity="`},
		{"quotes of both kinds", `<tool_error code="X"><message>m</message>`, `<a x="1' y='2" `},
	}
	var shapes []linearShape
	for _, a := range adversarial {
		shapes = append(shapes, linearShape{name: a.name, build: func(k int) string {
			return text(a.prefix + repeatTo(a.unit, 100000*k))
		}})
	}
	shapes = append(shapes,
		linearShape{name: "many attributes", build: func(k int) string {
			var b strings.Builder
			for i := 0; i < 4000*k; i++ {
				fmt.Fprintf(&b, ` a%d="v"`, i)
			}
			return text(`<tool_error` + b.String() + ` code="X"><message>m</message></tool_error>`)
		}},
		linearShape{name: "many repeated attributes", build: func(k int) string {
			return text(`<tool_error` + strings.Repeat(` code="X"`, 7000*k) + `><message>m</message></tool_error>`)
		}},
		linearShape{name: "many details", build: func(k int) string {
			var b strings.Builder
			for i := 0; i < 3000*k; i++ {
				fmt.Fprintf(&b, `<detail key="k%d">v</detail>`, i)
			}
			return text(`<tool_error code="X"><message>m</message><details>` + b.String() + `</details></tool_error>`)
		}},
		linearShape{name: "many details with few keys", build: func(k int) string {
			var b strings.Builder
			for i := 0; i < 3000*k; i++ {
				fmt.Fprintf(&b, `<detail key="k%d">v</detail>`, i%5)
			}
			return text(`<tool_error code="X"><message>m</message><details>` + b.String() + `</details></tool_error>`)
		}},
		linearShape{name: "many fields and changes", build: func(k int) string {
			return text(`<validation_error action="a">` + strings.Repeat(`<field name="f">m</field>`, 2000*k) +
				`<contract_awareness>` + strings.Repeat(`<change severity="RISKY" field="f"><description>d</description><before>b</before></change>`, 700*k) +
				`</contract_awareness></validation_error>`)
		}},
		linearShape{name: "result with many blocks", build: func(k int) string {
			return `{"result":{"content":[` + items(3000*k, constant(`{"type":"text","text":"<tool_error code=\"X\">"}`)) +
				`,{"type":"text","text":"<tool_error><message>m</message></tool_error>"}]}}`
		}},
	)
	runLinear(t, "parse", shapes)
}
