package host

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/toolerr/toolerr/plugin"
)

// compiledBefore reports whether wasm was compiled into cacheDir before.
func compiledBefore(cacheDir string, wasm []byte) bool {
	_, err := os.Stat(compiledMarker(cacheDir, wasm))
	return err == nil
}

// A Host whose compilation cache holds nothing of the module answers from
// the interpreter at once, switches to compiled instances when the
// compile is done (dropping the interpreted one as it comes back, and then
// the interpreter's runtime), and leaves a cache the next Host starts from
// without the interpreter.
func TestTiered_InterpreterThenCompiledThenCached(t *testing.T) {
	ctx := context.Background()
	cache := t.TempDir()
	req := []byte(`{"code":"NOT_FOUND","message":"invoice <INV-1> & co"}`)
	want, abiErr := plugin.Call("tool_error", req)
	if abiErr != nil {
		t.Fatal(abiErr)
	}

	h := newTestHost(t, Options{Engine: Wazero, MaxInstances: 1, CompilationCacheDir: cache})
	tiered, ok := h.eng.(*tieredEngine)
	if !ok {
		t.Fatalf("engine with an empty cache is %T, want *tieredEngine", h.eng)
	}
	if compiledBefore(cache, plugin.Wasm) {
		t.Fatal("the marker exists before the compile could end")
	}
	idleKind := func() string {
		h.mu.Lock()
		defer h.mu.Unlock()
		if len(h.idle) != 1 {
			t.Fatalf("%d idle instances, want 1", len(h.idle))
		}
		switch h.idle[0].(type) {
		case *interpretedInstance:
			return "interpreted"
		case *wazeroInstance:
			return "compiled"
		}
		return "other"
	}
	// New's own describe made the one instance: an interpreted one, unless
	// the compile already ended (then it is dropped at the next call).
	got, err := h.Call(ctx, "tool_error", req)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("first call: %s (%v), want %s", got, err, want)
	}
	if k := idleKind(); k != "interpreted" && tiered.ready() == nil {
		t.Fatalf("idle instance while the compile runs is %s, want interpreted", k)
	}
	select {
	case <-tiered.done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the compile did not end")
	}
	if tiered.ready() == nil {
		t.Fatal("the compile failed")
	}
	if !compiledBefore(cache, plugin.Wasm) {
		t.Fatal("no marker after the compile")
	}
	got, err = h.Call(ctx, "tool_error", req)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("call after the compile: %s (%v), want %s", got, err, want)
	}
	if k := idleKind(); k != "compiled" {
		t.Fatalf("idle instance after the compile is %s, want compiled", k)
	}
	tiered.mu.Lock()
	live, closed := tiered.interpLive, tiered.interpClosed
	tiered.mu.Unlock()
	if live != 0 || !closed {
		t.Fatalf("interpreter: %d instances live, runtime closed %v; want 0, true", live, closed)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}

	h = newTestHost(t, Options{Engine: Wazero, MaxInstances: 1, CompilationCacheDir: cache})
	if _, ok := h.eng.(*wazeroEngine); !ok {
		t.Fatalf("engine with a filled cache is %T, want *wazeroEngine", h.eng)
	}
	got, err = h.Call(ctx, "tool_error", req)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("call from the cache: %s (%v), want %s", got, err, want)
	}
}

// Closing a Host while the compile runs waits for it: the cache is filled
// and nothing of the engine is left running.
func TestTiered_CloseWaitsForTheCompile(t *testing.T) {
	ctx := context.Background()
	cache := t.TempDir()
	h := newTestHost(t, Options{Engine: Wazero, CompilationCacheDir: cache})
	tiered, ok := h.eng.(*tieredEngine)
	if !ok {
		t.Fatalf("engine with an empty cache is %T, want *tieredEngine", h.eng)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-tiered.done:
	default:
		t.Fatal("Close returned before the compile ended")
	}
	if !compiledBefore(cache, plugin.Wasm) {
		t.Fatal("no marker after Close")
	}
	if _, err := h.Call(ctx, "describe", []byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after Close: %v, want ErrClosed", err)
	}
}
