package host_test

import (
	"context"
	"errors"
	"flag"
	"runtime"
	"testing"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// memflatCalls is how many mixed calls TestMemory_Flat makes; `make stress`
// passes -memflat.calls=1000000.
var memflatCalls = flag.Int("memflat.calls", 30000, "calls in TestMemory_Flat")

// TestMemory_Flat makes many mixed calls on one instance and checks that
// neither the Go heap nor the instance's linear memory keeps growing: both
// stay within 10% of their level after the first 10,000 calls.
func TestMemory_Flat(t *testing.T) {
	ctx := context.Background()
	// Both wasm engines report the module's linear memory (extism by
	// asking the module).
	onEachEngine(t, []host.Engine{host.Wazero, host.Extism}, host.Options{MaxInstances: 1, CallTimeout: -1}, func(t *testing.T, e host.Engine, h *host.Host) {
		heap := func() uint64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return m.HeapAlloc
		}
		pages := func() uint32 {
			p := h.MemoryPages(ctx)
			if len(p) != 1 {
				t.Fatalf("%d instances, want 1", len(p))
			}
			return p[0]
		}
		// The level to hold is the one after the first 10,000 calls (a
		// third of the calls in a shorter run).
		warm := min(10_000, *memflatCalls/3)
		var heap0 uint64
		var pages0 uint32
		for i := 0; i < *memflatCalls; i++ {
			op, req := stressRequest(i%8, i)
			if _, err := h.Call(ctx, op, []byte(req)); err != nil && !isABIError(err) {
				t.Fatalf("call %d (%s): %v", i, op, err)
			}
			if i == warm {
				heap0, pages0 = heap(), pages()
			}
		}
		heap1, pages1 := heap(), pages()
		t.Logf("%s: %d calls; Go heap %d -> %d bytes; linear memory %d -> %d pages", e, *memflatCalls, heap0, heap1, pages0, pages1)
		if float64(pages1) > 1.1*float64(pages0) {
			t.Errorf("linear memory grew from %d to %d pages", pages0, pages1)
		}
		if float64(heap1) > 1.1*float64(heap0)+1<<20 {
			t.Errorf("Go heap grew from %d to %d bytes", heap0, heap1)
		}
	})
}

// isABIError reports whether err is one the module reported for a bad
// request (the mixed calls include some on purpose).
func isABIError(err error) bool {
	var e *abi.Error
	return errors.As(err, &e) && (e.Code == abi.CodeInvalidRequest || e.Code == abi.CodeRequestTooLarge)
}
