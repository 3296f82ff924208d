package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/toolerr/toolerr/abi"
)

// wazeroEngine drives the module directly through its raw exports,
// toolerr_buffer and toolerr_call: one copy of the request in, one copy of
// the response out, no Extism kernel.
type wazeroEngine struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
}

// newWazeroEngine opens the wazero engine, tiered (Tiered): from the
// interpreter while the compiler fills an empty cache.
var newWazeroEngine = Tiered(openInterpreted, openCompiled)

// openInterpreted opens the wazero engine on wazero's interpreter.
func openInterpreted(ctx context.Context, wasm []byte, pages uint32, _ string) (Runtime, error) {
	return compileWazero(ctx, wazero.NewRuntimeConfigInterpreter(), wasm, pages, "")
}

// openCompiled opens the wazero engine on its optimizing compiler.
func openCompiled(ctx context.Context, wasm []byte, pages uint32, cacheDir string) (Runtime, error) {
	return compileWazero(ctx, wazero.NewRuntimeConfig(), wasm, pages, cacheDir)
}

// compileWazero compiles wasm on a new runtime of base's engine (compiler
// or interpreter), with a compilation cache in cacheDir ("" for none).
func compileWazero(ctx context.Context, base wazero.RuntimeConfig, wasm []byte, pages uint32, cacheDir string) (Runtime, error) {
	cfg := base.WithMemoryLimitPages(pages).WithCloseOnContextDone(false)
	if cacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(cacheDir)
		if err != nil {
			return nil, fmt.Errorf("toolerr: compilation cache: %w", err)
		}
		cfg = cfg.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	fail := func(err error) (Runtime, error) {
		_ = rt.Close(ctx)
		return nil, err
	}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return fail(fmt.Errorf("toolerr: wasi: %w", err))
	}
	compiled, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		return fail(fmt.Errorf("toolerr: compile: %w", err))
	}
	for _, name := range []string{"toolerr_buffer", "toolerr_call"} {
		if _, ok := compiled.ExportedFunctions()[name]; !ok {
			return fail(fmt.Errorf("toolerr: the module has no %s export", name))
		}
	}
	if err := stubExtismKernel(ctx, rt, compiled); err != nil {
		return fail(err)
	}
	return &wazeroEngine{rt: rt, compiled: compiled}, nil
}

// stubExtismKernel satisfies the module's extism:host/env imports, which
// only its Extism exports use, with functions that fail if ever called.
func stubExtismKernel(ctx context.Context, rt wazero.Runtime, compiled wazero.CompiledModule) error {
	b := rt.NewHostModuleBuilder("extism:host/env")
	n := 0
	for _, fn := range compiled.ImportedFunctions() {
		module, name, _ := fn.Import()
		if module != "extism:host/env" {
			continue
		}
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(context.Context, api.Module, []uint64) {
			panic(fmt.Errorf("toolerr: extism:host/env %s called on the raw path", name))
		}), fn.ParamTypes(), fn.ResultTypes()).Export(name)
		n++
	}
	if n == 0 {
		return nil
	}
	if _, err := b.Instantiate(ctx); err != nil {
		return fmt.Errorf("toolerr: extism kernel stubs: %w", err)
	}
	return nil
}

func (e *wazeroEngine) NewInstance(ctx context.Context) (Instance, error) {
	var mem *linearMemory
	ctx = experimental.WithMemoryAllocator(ctx, allocatorFor(&mem))
	mod, err := e.rt.InstantiateModule(ctx, e.compiled, ModuleConfig().WithName("").WithStartFunctions("_initialize"))
	if err != nil {
		return nil, err
	}
	return &wazeroInstance{
		mem:    mem,
		mod:    mod,
		buffer: mod.ExportedFunction("toolerr_buffer"),
		call_:  mod.ExportedFunction("toolerr_call"),
	}, nil
}

func (e *wazeroEngine) Close(ctx context.Context) error { return e.rt.Close(ctx) }

// ModuleConfig is how every instance sees the world (a Runtime registered
// from another package gives its instances the same): no file system, no
// output (streams left unset are discarded), and real clocks. wazero's
// default clock is a fake that jumps 1 ms at every reading; the Go
// runtime in the module paces its garbage collector by the clock, and on
// the fake one it stopped collecting after some 20,000 calls, so memory
// grew by every call's garbage until the cap.
func ModuleConfig() wazero.ModuleConfig {
	return wazero.NewModuleConfig().WithSysNanotime().WithSysWalltime()
}

type wazeroInstance struct {
	mem    *linearMemory // nil if the module has no memory
	mod    api.Module
	buffer api.Function
	call_  api.Function
	stack  [2]uint64
	// bufPtr is the request buffer toolerr_buffer gave, which holds at
	// least bufSize bytes and stays the buffer until a larger one is
	// asked for (abi/ABI.md, "Raw path"): a request that fits needs no
	// call to toolerr_buffer.
	bufPtr, bufSize uint32
}

const rawErrorFlag = 1 << 31

func (w *wazeroInstance) Call(ctx context.Context, export string, request []byte) ([]byte, error) {
	if w.mem != nil {
		w.mem.enter()
		defer w.mem.leave()
	}
	size := len(export) + len(request)
	ptr := w.bufPtr
	if ptr == 0 || size > int(w.bufSize) {
		w.stack[0] = uint64(size)
		if err := w.buffer.CallWithStack(ctx, w.stack[:]); err != nil {
			return nil, err
		}
		if ptr = uint32(w.stack[0]); ptr == 0 {
			return nil, abi.Errorf(abi.CodeRequestTooLarge, "%s: request is %d bytes, over the limit of %d", export, len(request), abi.MaxRequestBytes)
		}
		w.bufPtr, w.bufSize = ptr, uint32(size)
	}
	mem := w.mod.Memory()
	if !mem.WriteString(ptr, export) || !mem.Write(ptr+uint32(len(export)), request) {
		return nil, errors.New("toolerr: request buffer out of range")
	}
	w.stack[0], w.stack[1] = uint64(len(export)), uint64(len(request))
	if err := w.call_.CallWithStack(ctx, w.stack[:]); err != nil {
		return nil, err
	}
	res := w.stack[0]
	outPtr, outLen := uint32(res>>32), uint32(res)&^rawErrorFlag
	view, ok := mem.Read(outPtr, outLen)
	if !ok {
		return nil, errors.New("toolerr: response out of range")
	}
	out := make([]byte, len(view))
	copy(out, view)
	if uint32(res)&rawErrorFlag != 0 {
		return nil, decodeModuleError(out)
	}
	return out, nil
}

func (w *wazeroInstance) Close(ctx context.Context) { _ = w.mod.Close(ctx) }

func (w *wazeroInstance) MemoryPages(context.Context) (uint32, error) {
	return w.mod.Memory().Size() / 65536, nil
}

// decodeModuleError reads the ABI error object the module reported.
func decodeModuleError(raw []byte) error {
	var e abi.Error
	if err := json.Unmarshal(raw, &e); err != nil || e.Code == "" {
		return &abi.Error{Code: abi.CodeInternal, Message: "undecodable module error: " + string(raw)}
	}
	return &e
}
