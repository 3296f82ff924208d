package host

import (
	"context"
	"encoding/json"
	"fmt"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/toolerr/toolerr/abi"
)

// extismEngine runs the module's Extism exports through the Extism Go SDK,
// as every other Extism host does.
type extismEngine struct {
	compiled *extism.CompiledPlugin
}

func newExtismEngine(ctx context.Context, wasm []byte, pages uint32, cacheDir string) (*extismEngine, error) {
	cfg := wazero.NewRuntimeConfig().WithCloseOnContextDone(false)
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

func (e *extismEngine) newInstance(ctx context.Context) (instance, error) {
	p, err := e.compiled.Instance(ctx, extism.PluginInstanceConfig{ModuleConfig: moduleConfig()})
	if err != nil {
		return nil, err
	}
	return &extismInstance{p: p}, nil
}

func (e *extismEngine) close(ctx context.Context) error { return e.compiled.Close(ctx) }

type extismInstance struct {
	p *extism.Plugin
}

func (x *extismInstance) call(ctx context.Context, export string, request []byte) ([]byte, error) {
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

func (x *extismInstance) close(ctx context.Context) { _ = x.p.Close(ctx) }

// memoryPages asks the module: the Extism SDK exposes its kernel's memory,
// not the module's.
func (x *extismInstance) memoryPages(ctx context.Context) (uint32, error) {
	out, err := x.call(ctx, "describe", []byte(`{"memory":true}`))
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
