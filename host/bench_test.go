package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/toolerr/toolerr/host"
)

// benchRequests are the inputs every engine is measured on, in every
// language: tests/bench/requests.json.
var benchRequests = func() map[string][]byte {
	raw, err := os.ReadFile("../tests/bench/requests.json")
	if err != nil {
		panic(err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		panic(err)
	}
	out := map[string][]byte{}
	for op, req := range all {
		var compact bytes.Buffer
		if err := json.Compact(&compact, req); err != nil {
			panic(err)
		}
		out[op] = compact.Bytes()
	}
	return out
}()

var (
	benchToolError        = benchRequests["tool_error"]
	benchFormatValidation = benchRequests["format_validation"]
	benchParse            = benchRequests["parse"]
	benchValidate         = benchRequests["validate"]
)

// benchHost returns the warm Host of engine e that the tests of this
// package share (engines), one per engine.
func benchHost(b *testing.B, e host.Engine) *host.Host {
	b.Helper()
	return engines(b)[e]
}

func benchExport(b *testing.B, export string, request []byte) {
	for _, e := range []host.Engine{host.Native, host.Wazero, host.Extism} {
		b.Run(string(e), func(b *testing.B) {
			h := benchHost(b, e)
			ctx := context.Background()
			if _, err := h.Call(ctx, export, request); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Call(ctx, export, request); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkToolError(b *testing.B) { benchExport(b, "tool_error", benchToolError) }
func BenchmarkFormatValidation(b *testing.B) {
	benchExport(b, "format_validation", benchFormatValidation)
}
func BenchmarkParse(b *testing.B)    { benchExport(b, "parse", benchParse) }
func BenchmarkValidate(b *testing.B) { benchExport(b, "validate", benchValidate) }

// BenchmarkColdStart measures a new Host to its first result: with no
// cache (the module compiled before the first answer), with an empty cache
// (the first answers come from wazero's interpreter while the compiler
// fills the cache: host.Tiered; the Host's Close, which waits for that
// compile, is not timed), and with the cache already warm.
func BenchmarkColdStart(b *testing.B) {
	ctx := context.Background()
	for _, e := range []host.Engine{host.Wazero, host.Extism} {
		cache := b.TempDir()
		warm, err := host.New(ctx, host.Options{Engine: e, CompilationCacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
		warm.Close(ctx)
		for _, mode := range []string{"nocache", "emptycache", "warmcache"} {
			b.Run(string(e)+"/"+mode, func(b *testing.B) {
				for b.Loop() {
					opts := host.Options{Engine: e, CompilationCacheDir: cache, NoCompilationCache: mode == "nocache"}
					if mode == "emptycache" {
						b.StopTimer()
						opts.CompilationCacheDir = b.TempDir()
						b.StartTimer()
					}
					h, err := host.New(ctx, opts)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := h.Call(ctx, "tool_error", benchToolError); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					h.Close(ctx)
					b.StartTimer()
				}
			})
		}
	}
}

// BenchmarkParallel runs tool_error from every goroutine RunParallel starts
// (GOMAXPROCS of them, one per core): compare -cpu 1 with -cpu 2.
func BenchmarkParallel(b *testing.B) {
	for _, e := range []host.Engine{host.Native, host.Wazero} {
		b.Run(string(e), func(b *testing.B) {
			h := benchHost(b, e)
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := h.Call(ctx, "tool_error", benchToolError); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
