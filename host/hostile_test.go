package host_test

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
	"github.com/toolerr/toolerr/plugin"
)

// ok in a hostile case's outcomes means a response is acceptable.
const ok = "ok"

type hostileCase struct {
	name, export string
	build        func() []byte
	// outcomes lists what may come back: ok (a response) or error codes.
	outcomes []string
	// maxTime bounds the call; 0 means hostileTimeLimit.
	maxTime time.Duration
}

// hostileTimeLimit bounds every hostile call: generous, for a shared
// two-core machine; the module's own work is bounded by the request limit.
const hostileTimeLimit = 20 * time.Second

func lit(s string) func() []byte { return func() []byte { return []byte(s) } }

func repeat(prefix, unit, suffix string, n int) func() []byte {
	return func() []byte { return []byte(prefix + strings.Repeat(unit, n) + suffix) }
}

// details writes a tool_error request with n details.
func details(n int) func() []byte {
	return func() []byte {
		var b bytes.Buffer
		b.WriteString(`{"code":"X","message":"m","details":{`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i))
		}
		b.WriteString(`}}`)
		return b.Bytes()
	}
}

// sized writes a parse request of exactly n bytes.
func sized(n int) func() []byte {
	return func() []byte { return []byte(`{"text":"` + strings.Repeat("a", n-len(`{"text":""}`)) + `"}`) }
}

var (
	inv     = []string{abi.CodeInvalidRequest}
	tooBig  = []string{abi.CodeRequestTooLarge}
	answers = []string{ok}
	// wasmMayTrap: a response, or on a wasm engine a TRAP (out of memory)
	// that the host contains by replacing the instance.
	wasmMayTrap = []string{ok, abi.CodeTrap + "@wasm"}
	// bulky: requests with hundreds of thousands of JSON values. A module
	// that caps the number of values refuses them as REQUEST_TOO_LARGE;
	// one that does not answers, or on wasm may run out of memory.
	bulky = []string{ok, abi.CodeRequestTooLarge, abi.CodeTrap + "@wasm"}
)

func hostileCases() []hostileCase {
	adversarial := `<tool_error code='X'><message>m</message>` + strings.Repeat(`<detail key='v' k2='<detail key=' `, (3<<20)/34)
	cases := []hostileCase{
		// Malformed JSON.
		{"empty body", "tool_error", lit(``), inv, 0},
		{"open brace", "tool_error", lit(`{`), inv, 0},
		{"truncated member", "tool_error", lit(`{"code":"X",`), inv, 0},
		{"trailing data", "tool_error", lit(`{"code":"X","message":"m"}}`), inv, 0},
		{"single quotes", "simple_error", lit(`{'message':'m'}`), inv, 0},
		{"missing colon", "simple_error", lit(`{"message" "m"}`), inv, 0},
		{"bare word", "describe", lit(`nul`), inv, 0},
		{"binary", "describe", lit("\xff\xfe\x00{}"), inv, 0},
		{"raw control in string", "simple_error", lit("{\"message\":\"a\x01b\"}"), inv, 0},
		{"bad escape", "simple_error", lit(`{"message":"\q"}`), inv, 0},
		{"surrogate then bad escape", "simple_error", lit(`{"message":"\ud800\uZZZZ"}`), inv, 0},
		{"surrogate then short escape", "simple_error", lit(`{"message":"\ud800\u"}`), inv, 0},
		{"unterminated string", "escape", lit(`{"text":"abc`), inv, 0},
		// Wrong types and shapes.
		{"not an object", "tool_error", lit(`["code","message"]`), inv, 0},
		{"code number", "tool_error", lit(`{"code":1,"message":"m"}`), inv, 0},
		{"message null", "tool_error", lit(`{"code":"X","message":null}`), inv, 0},
		{"actions string", "tool_error", lit(`{"code":"X","message":"m","availableActions":"a"}`), inv, 0},
		{"actions of objects", "tool_error", lit(`{"code":"X","message":"m","availableActions":[{}]}`), inv, 0},
		{"details array", "tool_error", lit(`{"code":"X","message":"m","details":[]}`), inv, 0},
		{"detail object", "tool_error", lit(`{"code":"X","message":"m","details":{"a":{"b":1}}}`), inv, 0},
		{"retryAfter string", "tool_error", lit(`{"code":"X","message":"m","retryAfter":"30"}`), inv, 0},
		{"field array", "required_field", lit(`{"field":[]}`), inv, 0},
		{"tool object", "internal_error", lit(`{"message":"m","tool":{}}`), inv, 0},
		{"action without tool", "internal_error", lit(`{"message":"m","action":"a"}`), inv, 0},
		{"max string", "rate_limited", lit(`{"max":"3","windowSeconds":60,"retryAfter":1}`), inv, 0},
		{"active bool", "server_busy", lit(`{"tool":"t","active":true,"queued":1}`), inv, 0},
		{"context number", "escape", lit(`{"text":"a","context":1}`), inv, 0},
		{"context unknown", "escape", lit(`{"text":"a","context":"cdata"}`), inv, 0},
		{"issues object", "format_validation", lit(`{"action":"a","issues":{}}`), inv, 0},
		{"issues of numbers", "format_validation", lit(`{"action":"a","issues":[1,2]}`), inv, 0},
		{"dialect unknown", "format_validation", lit(`{"action":"a","issues":[],"dialect":"yup"}`), inv, 0},
		{"deltas string", "format_validation", lit(`{"action":"a","issues":[],"contract":{"tool":"t","deltas":"x"}}`), inv, 0},
		{"result array", "parse", lit(`{"result":[]}`), inv, 0},
		{"text and result", "parse", lit(`{"text":"","result":{"content":[]}}`), inv, 0},
		{"schema string", "validate", lit(`{"action":"a","schema":"x","args":{}}`), inv, 0},
		{"tools string", "contract_lock", lit(`{"tools":"x"}`), inv, 0},
		{"diff numbers", "contract_diff", lit(`{"before":1,"after":2}`), inv, 0},
		{"describe with field", "describe", lit(`{"x":1}`), inv, 0},
		{"unknown field", "tool_error", lit(`{"code":"X","message":"m","__proto__":{}}`), inv, 0},
		// Sizes.
		{"just under the limit", "parse", sized(abi.MaxRequestBytes), answers, 0},
		{"just over the limit", "parse", sized(abi.MaxRequestBytes + 1), tooBig, 0},
		{"64 MiB string", "parse", sized(64 << 20), tooBig, time.Second},
		{"1,000,000 details", "tool_error", details(1_000_000), tooBig, time.Second},
		// 100,000 details take about 44 MiB of linear memory (80 MiB before
		// the render and response buffers were sized up front); under a
		// smaller cap a wasm instance traps (and is replaced) where the
		// native core answers, so a trap is allowed here.
		{"100,000 details", "tool_error", details(100_000), bulky, 0},
		{"20,000 details", "tool_error", details(20_000), answers, 0},
		{"10,000 pydantic issues", "format_validation", repeat(`{"action":"a","dialect":"pydantic","issues":[`,
			`{"type":"missing","loc":["a"],"msg":"Field required"},`, `{}]}`, 10_000), answers, 0},
		// Depth.
		{"arrays 100,000 deep", "parse", repeat("", "[", strings.Repeat("]", 100_000), 100_000), inv, 0},
		{"objects 100,000 deep", "tool_error", repeat(`{"code":"X","message":"m","details":`, `{"a":`, "1"+strings.Repeat("}", 100_001), 100_000), inv, 0},
		{"unclosed 100,000 deep", "validate", repeat(`{"action":"a","schema":true,"args":`, `[{"a":`, "", 50_000), inv, 0},
		// NaN-like numbers.
		{"NaN", "rate_limited", lit(`{"max":NaN,"windowSeconds":60,"retryAfter":1}`), inv, 0},
		{"Infinity", "server_busy", lit(`{"tool":"t","active":Infinity,"queued":1}`), inv, 0},
		{"-Infinity", "server_busy", lit(`{"tool":"t","active":1,"queued":-Infinity}`), inv, 0},
		{"1e999 required", "rate_limited", lit(`{"max":1e999,"windowSeconds":60,"retryAfter":1}`), inv, 0},
		{"-1e999 required", "server_busy", lit(`{"tool":"t","active":1,"queued":-1e999}`), inv, 0},
		{"1e999 retryAfter", "tool_error", lit(`{"code":"X","message":"m","retryAfter":1e999}`), answers, 0},
		{"1e999 detail", "tool_error", lit(`{"code":"X","message":"m","details":{"a":1e999,"b":-1e999,"c":-0,"d":1e-400}}`), answers, 0},
		{"-0 everywhere", "rate_limited", lit(`{"max":-0,"windowSeconds":-0,"retryAfter":-0,"key":"k"}`), answers, 0},
		{"hex number", "rate_limited", lit(`{"max":0x10,"windowSeconds":60,"retryAfter":1}`), inv, 0},
		{"leading zero", "rate_limited", lit(`{"max":01,"windowSeconds":60,"retryAfter":1}`), inv, 0},
		{"bare dot", "rate_limited", lit(`{"max":.5,"windowSeconds":60,"retryAfter":1}`), inv, 0},
		{"huge exponent digits", "tool_error", repeat(`{"code":"X","message":"m","retryAfter":1e`, "9", `}`, 1_000_000), answers, 0},
		{"million-digit number", "tool_error", repeat(`{"code":"X","message":"m","retryAfter":`, "9", `}`, 1_000_000), answers, 0},
		// Big arrays of issues.
		{"1.3M empty issues", "format_validation", repeat(`{"action":"a","issues":[`, `{},`, `{}]}`, 1_300_000),
			// The output is ~18x the request (70 MB): the native engine
			// answers; a wasm instance capped at 64 MiB runs out and traps.
			bulky, 0},
		{"20,000 issues with args", "format_validation", repeat(`{"action":"a","issues":[`,
			`{"code":"too_small","type":"string","minimum":3,"inclusive":true,"path":["a",0,"b"],"message":"Too short"},`,
			`{}],"args":{"a":[{"b":"x"}]}}`, 20_000), bulky, 0},
		{"100,000 pydantic issues", "format_validation", repeat(`{"action":"a","dialect":"pydantic","issues":[`,
			`{"type":"missing","loc":["a"],"msg":"Field required"},`, `{}]}`, 60_000), bulky, 0},
		{"60,000 deltas", "format_validation", repeat(`{"action":"a","issues":[{}],"contract":{"tool":"t","deltas":[`,
			`{"field":"f","severity":"BREAKING","description":"d"},`, `{"field":"f","severity":"RISKY","description":"d"}]}}`, 60_000), bulky, 0},
		// validate: deep args, recursive and looping schemas, remote refs.
		{"args 250 deep", "validate", repeat(`{"action":"a","schema":{"type":"object","properties":{"a":{"type":"string"}}},"args":`,
			`{"a":`, "1"+strings.Repeat("}", 251), 250), answers, 0},
		{"args 300 deep", "validate", repeat(`{"action":"a","schema":true,"args":`, `[`, strings.Repeat("]", 300)+"}", 300), inv, 0},
		{"recursive schema, deep args", "validate", repeat(`{"action":"a","schema":{"type":"object","properties":{"c":{"$ref":"#"}},"additionalProperties":false},"args":`,
			`{"x":1,"c":`, "{}"+strings.Repeat("}", 251), 250), answers, 0},
		{"$ref to itself", "validate", lit(`{"action":"a","schema":{"$ref":"#"},"args":{}}`), inv, 0},
		{"$ref loop of two", "validate", lit(`{"action":"a","schema":{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}},"args":{}}`), inv, 0},
		{"$ref loop in allOf", "validate", lit(`{"action":"a","schema":{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"properties":{"p":{"$ref":"#/$defs/a"}}},"args":{"p":1}}`), inv, 0},
		{"remote $ref http", "validate", lit(`{"action":"a","schema":{"$ref":"http://169.254.169.254/latest/meta-data"},"args":{}}`), inv, 0},
		{"remote $ref file", "validate", lit(`{"action":"a","schema":{"$ref":"file:///etc/passwd"},"args":{}}`), inv, 0},
		{"relative $ref", "validate", lit(`{"action":"a","schema":{"$ref":"other.json#/x"},"args":{}}`), inv, 0},
		{"$id elsewhere", "validate", lit(`{"action":"a","schema":{"$id":"https://evil.example/s","$ref":"t.json"},"args":{}}`), inv, 0},
		{"dangling pointer", "validate", lit(`{"action":"a","schema":{"$ref":"#/$defs/none"},"args":{}}`), inv, 0},
		{"anyOf 120 deep", "validate", repeat(`{"action":"a","schema":`, `{"anyOf":[`,
			`{"type":"string"}`+strings.Repeat(`,{"type":"number"}]}`, 120)+`,"args":true}`, 120),
			// 22 MB of allocations: fine in a fresh instance (244 pages), but
			// an instance grown and fragmented by the big requests above
			// can run out of its 64 MiB and trap.
			wasmMayTrap, 0},
		{"catastrophic pattern", "validate", lit(`{"action":"a","schema":{"type":"string","pattern":"^(a+)+$"},"args":"` + strings.Repeat("a", 5000) + `!"}`), answers, 0},
		// contract_lock and contract_diff on recursive schemas.
		{"lock recursive schema", "contract_lock", lit(`{"tools":[{"name":"t","inputSchema":{"$ref":"#/$defs/n","$defs":{"n":{"type":"object","properties":{"c":{"$ref":"#/$defs/n"}}}}}}]}`), answers, 0},
		{"diff recursive schemas", "contract_diff", lit(`{"before":[{"name":"t","inputSchema":{"$ref":"#/$defs/n","$defs":{"n":{"properties":{"c":{"$ref":"#/$defs/n"}}}}}}],` +
			`"after":[{"name":"t","inputSchema":{"$ref":"#/$defs/n","$defs":{"n":{"properties":{"c":{"$ref":"#/$defs/n"},"d":{"type":"string"}},"required":["d"]}}}}]}`), answers, 0},
		{"diff 10,000 tools", "contract_diff", repeat(`{"before":[`, `{"name":"t","inputSchema":{"type":"object"}},`, `{"name":"u"}],"after":[]}`, 10_000),
			[]string{ok, abi.CodeInvalidRequest}, 0},
		// parse on adversarial text.
		{"parse 3 MiB adversarial", "parse", func() []byte { return []byte(`{"text":"` + adversarial + `"}`) }, answers, 0},
		{"parse result of 100,000 blocks", "parse", repeat(`{"result":{"content":[`, `{"type":"text","text":"<tool_error x"},`, `{"type":"image"}]}}`, 100_000), bulky, 0},
	}
	return cases
}

// TestHostile_Requests sends every hostile request through every engine:
// each gets a typed error or a response in bounded time, and the next valid
// call succeeds with the native bytes.
func TestHostile_Requests(t *testing.T) {
	ctx := context.Background()
	hs := engines(t)
	next := []byte(`{"field":"id"}`)
	wantNext, _ := plugin.Call("required_field", next)
	cases := hostileCases()
	for _, e := range host.Engines {
		h := hs[e]
		count := 0
		var slowest time.Duration
		slowestName := ""
		for _, tc := range cases {
			req := tc.build()
			count++
			start := time.Now()
			out, err := h.Call(ctx, tc.export, req)
			took := time.Since(start)
			if took > slowest {
				slowest, slowestName = took, tc.name
			}
			got := ok
			if err != nil {
				var abiErr *abi.Error
				if !errors.As(err, &abiErr) {
					t.Errorf("%s/%s: untyped error %v", e, tc.name, err)
					continue
				}
				got = abiErr.Code
			} else if len(out) == 0 || (out[0] != '{') {
				t.Errorf("%s/%s: response is not a JSON object: %.100q", e, tc.name, out)
			}
			allowed := false
			for _, o := range tc.outcomes {
				allowed = allowed || o == got || (o == abi.CodeTrap+"@wasm" && got == abi.CodeTrap && e != host.Native)
			}
			if !allowed {
				msg := ""
				if err != nil {
					msg = err.Error()
					if len(msg) > 300 {
						msg = msg[:300]
					}
				}
				t.Errorf("%s/%s: got %s %s, want one of %v", e, tc.name, got, msg, tc.outcomes)
			}
			limit := tc.maxTime
			if limit == 0 {
				limit = hostileTimeLimit
			}
			if took > limit {
				t.Errorf("%s/%s: took %v, over %v", e, tc.name, took, limit)
			}
			if got == abi.CodeTrap {
				t.Logf("%s/%s: %s (the instance was replaced)", e, tc.name, got)
			}
			after, err := h.Call(ctx, "required_field", next)
			if err != nil || !bytes.Equal(after, wantNext) {
				t.Fatalf("%s: the call after %q failed: %v %s", e, tc.name, err, after)
			}
		}
		t.Logf("%s: %d hostile requests, each followed by a valid call; slowest %v (%s); live instances %d",
			e, count, slowest.Round(time.Millisecond), slowestName, h.LiveInstances())
		runtime.GC()
	}
}

// settle waits (up to 15 s) until cond holds, for goroutines and instances
// that finish an abandoned call in the background.
func settle(cond func() bool) bool {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

// heavyParse is a valid request that keeps the module busy for a while
// (hundreds of milliseconds in wasm, tens natively).
var heavyParse = []byte(`{"text":"<tool_error code='X'><message>m</message>` +
	strings.Repeat(`<detail key='v' k2='<detail key=' `, (abi.MaxRequestBytes-200)/34) + `"}`)

// TestFault_DeadlineMidCall gives each engine a per-call timeout far
// shorter than a heavy but valid parse: the caller gets TIMEOUT, the
// instance is dropped, the host keeps serving, and nothing leaks.
func TestFault_DeadlineMidCall(t *testing.T) {
	ctx := context.Background()
	for _, e := range host.Engines {
		t.Run(string(e), func(t *testing.T) {
			// Long enough to start an instance on a loaded machine, far
			// shorter than the heavy parse (0.3-0.8 s in wasm).
			timeout := 250 * time.Millisecond
			if e == host.Native {
				timeout = 2 * time.Millisecond
			}
			const maxInstances = 3
			// The deadline comes from the host's CallTimeout. On Extism a
			// fresh instance's first call can itself take longer than that
			// on this loaded machine, and every discarded instance must be
			// replaced, so there the deadline is the call's context instead
			// (same path in Host.Call: the caller's deadline ends the call).
			opts := host.Options{Engine: e, MaxInstances: maxInstances, CallTimeout: timeout}
			callCtx := func() (context.Context, context.CancelFunc) { return ctx, func() {} }
			if e == host.Extism {
				opts.CallTimeout = 0
				callCtx = func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, timeout) }
			}
			h, err := host.New(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close(ctx)
			next := []byte(`{"field":"id"}`)
			before := runtime.NumGoroutine()
			const rounds = 2
			timeouts := 0
			for i := 0; i < rounds; i++ {
				start := time.Now()
				hctx, cancel := callCtx()
				_, err := h.Call(hctx, "parse", heavyParse)
				cancel()
				took := time.Since(start)
				var abiErr *abi.Error
				if err == nil {
					t.Logf("round %d: the call finished within %v; not a mid-call deadline", i, timeout)
					continue
				}
				if !errors.As(err, &abiErr) || abiErr.Code != abi.CodeTimeout || !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("round %d: got %v, want TIMEOUT wrapping context.DeadlineExceeded", i, err)
				}
				timeouts++
				if took > timeout+2*time.Second {
					t.Errorf("round %d: TIMEOUT came after %v, the timeout is %v", i, took, timeout)
				}
				// The abandoned instance is dropped once its call ends.
				if !settle(func() bool { return h.LiveInstances() <= 1 }) {
					t.Fatalf("round %d: %d live instances after the timeout", i, h.LiveInstances())
				}
				// The next call gets the same tiny timeout: on a loaded
				// two-core machine it may itself run out of time, so it has
				// three tries; a host that stopped serving fails all three.
				var nextErr error
				for try := 0; try < 3; try++ {
					if _, nextErr = h.Call(ctx, "required_field", next); nextErr == nil {
						break
					}
					t.Logf("round %d: the next call, try %d: %v", i, try, nextErr)
				}
				if nextErr != nil {
					t.Fatalf("round %d: the host stopped serving after a timeout: %v", i, nextErr)
				}
			}
			if timeouts == 0 {
				t.Fatalf("no call ran past its %v timeout", timeout)
			}
			settled := settle(func() bool { return runtime.NumGoroutine() <= before })
			t.Logf("%d/%d mid-call timeouts; goroutines %d before, %d after; live instances %d (max %d)",
				timeouts, rounds, before, runtime.NumGoroutine(), h.LiveInstances(), maxInstances)
			if !settled {
				t.Errorf("goroutines: %d before, %d after", before, runtime.NumGoroutine())
			}
			if n := h.LiveInstances(); n > 1 {
				t.Errorf("%d live instances once the abandoned calls ended, want at most 1", n)
			}
		})
	}
}

// TestFault_DeadlineInline covers a request small enough to run on the
// caller's goroutine (host.InlineRequestBytes): a deadline that passes
// while it runs is reported when the call returns, as TIMEOUT, the
// instance is dropped, no goroutine is started, and the host keeps serving.
func TestFault_DeadlineInline(t *testing.T) {
	ctx := context.Background()
	// An adversarial parse just under the inline limit: milliseconds in
	// wasm, a fraction of one natively.
	text := `<tool_error code='X'><message>m</message>` + strings.Repeat(`<detail key='v' k2='<detail key=' `, (host.InlineRequestBytes-200)/34)
	req := []byte(`{"text":"` + text + `"}`) // no character of text needs escaping
	if len(req) > host.InlineRequestBytes {
		t.Fatalf("request is %d bytes, over the inline limit", len(req))
	}
	for _, e := range host.Engines {
		t.Run(string(e), func(t *testing.T) {
			h, err := host.New(ctx, host.Options{Engine: e, MaxInstances: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close(ctx)
			// How long the call takes here (the fastest of a few, warm), to
			// set a deadline inside it.
			took := time.Hour
			for i := 0; i < 4; i++ {
				start := time.Now()
				if _, err := h.Call(ctx, "parse", req); err != nil {
					t.Fatal(err)
				}
				took = min(took, time.Since(start))
			}
			before := runtime.NumGoroutine()
			timeouts := 0
			// A quarter of the call's time, then less each round: a loaded
			// machine can make the measured time too long.
			for round := 0; round < 5 && timeouts == 0; round++ {
				dctx, cancel := context.WithDeadline(ctx, time.Now().Add(took>>(2+2*round)))
				_, err := h.Call(dctx, "parse", req)
				cancel()
				var abiErr *abi.Error
				switch {
				case err == nil:
					t.Logf("round %d: the call beat its deadline of %v", round, took>>(2+2*round))
				case errors.As(err, &abiErr) && abiErr.Code == abi.CodeTimeout && errors.Is(err, context.DeadlineExceeded):
					timeouts++
				default:
					t.Fatalf("round %d: got %v, want TIMEOUT wrapping context.DeadlineExceeded", round, err)
				}
				if _, err := h.Call(ctx, "required_field", []byte(`{"field":"id"}`)); err != nil {
					t.Fatalf("round %d: the host stopped serving: %v", round, err)
				}
			}
			if timeouts == 0 {
				t.Fatalf("no call ran past its deadline (the call takes %v)", took)
			}
			if n := runtime.NumGoroutine(); n > before {
				t.Errorf("goroutines: %d before, %d after an inline call", before, n)
			}
			if n := h.LiveInstances(); n > 1 {
				t.Errorf("%d live instances, want at most 1", n)
			}
			t.Logf("parse of %d bytes takes %v; %d inline timeout(s)", len(req), took.Round(time.Microsecond), timeouts)
		})
	}
}

// TestFault_CancelMidCall cancels the context of heavy calls while they
// run, from several goroutines at once: each caller gets CANCELLED, the
// host keeps serving, and goroutines and instances return to their count.
func TestFault_CancelMidCall(t *testing.T) {
	ctx := context.Background()
	for _, e := range host.Engines {
		t.Run(string(e), func(t *testing.T) {
			h, err := host.New(ctx, host.Options{Engine: e, MaxInstances: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close(ctx)
			next := []byte(`{"field":"id"}`)
			if _, err := h.Call(ctx, "required_field", next); err != nil {
				t.Fatal(err)
			}
			before := runtime.NumGoroutine()
			const callers = 4
			errs := make(chan error, callers)
			for g := 0; g < callers; g++ {
				go func() {
					cctx, cancel := context.WithCancel(ctx)
					time.AfterFunc(time.Millisecond, cancel)
					defer cancel()
					_, err := h.Call(cctx, "parse", heavyParse)
					errs <- err
				}()
			}
			cancelled := 0
			for g := 0; g < callers; g++ {
				err := <-errs
				var abiErr *abi.Error
				switch {
				case err == nil:
					t.Logf("a call finished before its cancellation")
				case errors.As(err, &abiErr) && abiErr.Code == abi.CodeCancelled && errors.Is(err, context.Canceled):
					cancelled++
				default:
					t.Errorf("got %v, want CANCELLED wrapping context.Canceled", err)
				}
			}
			if cancelled == 0 {
				t.Fatal("no call was cancelled mid-call")
			}
			if _, err := h.Call(ctx, "required_field", next); err != nil {
				t.Fatalf("the next call failed: %v", err)
			}
			if !settle(func() bool { return h.LiveInstances() <= 2 && runtime.NumGoroutine() <= before }) {
				t.Errorf("goroutines %d before, %d after; %d live instances", before, runtime.NumGoroutine(), h.LiveInstances())
			}
			t.Logf("%d/%d calls cancelled mid-call; goroutines %d before, %d after; live instances %d (max 2)",
				cancelled, callers, before, runtime.NumGoroutine(), h.LiveInstances())
		})
	}
}

// TestHostile_ErrorsAreTyped checks that every hostile error names its
// export, so a caller can tell which call failed.
func TestHostile_ErrorsAreTyped(t *testing.T) {
	h := engines(t)[host.Native]
	for _, tc := range hostileCases()[:20] {
		_, err := h.Call(context.Background(), tc.export, tc.build())
		var abiErr *abi.Error
		if err == nil || !errors.As(err, &abiErr) {
			continue
		}
		if !strings.HasPrefix(abiErr.Message, tc.export+":") {
			t.Errorf("%s: message %q does not name the export", tc.name, abiErr.Message)
		}
	}
}
