// Package extism adds the engine "extism" to package host: the module run
// by the Extism Go SDK, as every other Extism host runs it. Import it for
// its side effect where a program offers that engine:
//
//	import _ "github.com/toolerr/toolerr/host/extism"
//
// A program that does not import it does not link the Extism Go SDK (and
// its dependencies); host.New then refuses host.Extism, naming this
// package.
package extism

import (
	"context"
	"encoding/json"
	"fmt"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/host"
)

// The engine is tiered (host.Tiered): a start with an empty cache answers
// from wazero's interpreter while the compiler fills it.
func init() {
	host.RegisterRuntime(host.Extism, host.Tiered(
		func(ctx context.Context, wasm []byte, pages uint32, _ string) (host.Runtime, error) {
			return open(ctx, wazero.NewRuntimeConfigInterpreter(), wasm, pages, "")
		},
		func(ctx context.Context, wasm []byte, pages uint32, cacheDir string) (host.Runtime, error) {
			return open(ctx, wazero.NewRuntimeConfig(), wasm, pages, cacheDir)
		}))
}

// extismEngine runs the module's Extism exports through the Extism Go SDK,
// as every other Extism host does.
type extismEngine struct {
	compiled *extism.CompiledPlugin
}

// open compiles wasm through the Extism Go SDK on a wazero runtime of
// base's engine (compiler or interpreter), with a compilation cache in
// cacheDir ("" for none).
func open(ctx context.Context, base wazero.RuntimeConfig, wasm []byte, pages uint32, cacheDir string) (host.Runtime, error) {
	cfg := base.WithCloseOnContextDone(false)
	if cacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(cacheDir)
		if err != nil {
			return nil, fmt.Errorf("toolerr: compilation cache: %w", err)
		}
		cfg = cfg.WithCompilationCache(cache)
	}
	manifest := extism.Manifest{
		Wasm:   []extism.Wasm{extism.WasmData{Data: wasm, Name: "toolerr"}},
		Memory: &extism.ManifestMemory{MaxPages: pages},
	}
	compiled, err := extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{EnableWasi: true, RuntimeConfig: cfg}, nil)
	if err != nil {
		return nil, fmt.Errorf("toolerr: extism: %w", err)
	}
	return &extismEngine{compiled: compiled}, nil
}

func (e *extismEngine) NewInstance(ctx context.Context) (host.Instance, error) {
	p, err := e.compiled.Instance(ctx, extism.PluginInstanceConfig{ModuleConfig: host.ModuleConfig()})
	if err != nil {
		return nil, err
	}
	return &extismInstance{p: p}, nil
}

func (e *extismEngine) Close(ctx context.Context) error { return e.compiled.Close(ctx) }

type extismInstance struct {
	p *extism.Plugin
}

func (x *extismInstance) Call(ctx context.Context, export string, request []byte) ([]byte, error) {
	rc, out, err := x.p.CallWithContext(ctx, export, request)
	if err != nil {
		// An error the module set is our JSON error object; anything else
		// is a trap or a cancelled call.
		var e abi.Error
		if json.Unmarshal([]byte(err.Error()), &e) == nil && e.Code != "" {
			return nil, &e
		}
		return nil, err
	}
	if rc != 0 {
		return nil, fmt.Errorf("toolerr: %s returned %d without an error", export, rc)
	}
	return out, nil
}

func (x *extismInstance) Close(ctx context.Context) { _ = x.p.Close(ctx) }

// MemoryPages asks the module: the Extism SDK exposes its kernel's memory,
// not the module's.
func (x *extismInstance) MemoryPages(ctx context.Context) (uint32, error) {
	out, err := x.Call(ctx, "describe", []byte(`{"memory":true}`))
	if err != nil {
		return 0, err
	}
	var m struct {
		MemoryPages *uint32 `json:"memoryPages"`
	}
	if err := json.Unmarshal(out, &m); err != nil || m.MemoryPages == nil {
		return 0, fmt.Errorf("toolerr: describe gave no memoryPages: %s", out)
	}
	return *m.MemoryPages, nil
}
