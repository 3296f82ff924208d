package host

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

// Tiered is how an engine built on wazero starts when its compilation
// cache holds nothing of the module. Waiting for wazero's optimizing
// compiler would take most of a second on two cores; a tiered engine
// answers from wazero's interpreter instead (it takes the module in a
// tenth of that time and runs calls some tens of times slower) while the
// compiler works in the background and fills the cache. Once it is done,
// new instances are compiled ones, interpreted ones are dropped as they
// come back to the pool, and the interpreter's runtime is released with
// the last of them. The outputs are the same bytes: one module, two ways
// of running it.
//
// interpreted opens the engine on wazero's interpreter (it is given no
// cache directory); compiled opens it as usual, with the cache. Where the
// cache already holds the module (a marker file beside wazero's entries
// says so: wazero keeps its entries to itself), or there is no cache
// directory, Tiered opens compiled alone, as before. The engine's Close
// waits for the compile, so that the cache is filled for the next start
// and nothing runs once it returns.
func Tiered(interpreted, compiled OpenRuntime) OpenRuntime {
	return func(ctx context.Context, wasm []byte, pages uint32, cacheDir string) (Runtime, error) {
		if cacheDir == "" {
			return compiled(ctx, wasm, pages, cacheDir)
		}
		marker := compiledMarker(cacheDir, wasm)
		if _, err := os.Stat(marker); err == nil {
			return compiled(ctx, wasm, pages, cacheDir)
		}
		interp, err := interpreted(ctx, wasm, pages, "")
		if err != nil {
			return nil, err
		}
		t := &tieredEngine{interp: interp, done: make(chan struct{})}
		// The compile outlives New's context (Close waits for it) but keeps
		// its values, with one CPU left to the calls the interpreter runs
		// meanwhile.
		ctx = experimental.WithCompilationWorkers(context.WithoutCancel(ctx), max(1, runtime.GOMAXPROCS(0)-1))
		go func() {
			defer close(t.done)
			e, err := compiled(ctx, wasm, pages, cacheDir)
			if err != nil {
				return // the interpreter serves for the engine's life
			}
			// Where the marker cannot be written, the next start takes the
			// interpreter again, and still answers.
			_ = os.WriteFile(marker, nil, 0o644)
			t.mu.Lock()
			t.compiled = e
			t.mu.Unlock()
			t.releaseInterpreter(0)
		}()
		return t, nil
	}
}

type tieredEngine struct {
	interp Runtime
	done   chan struct{} // closed when the compile has ended, well or not

	mu           sync.Mutex
	compiled     Runtime // set when the compile succeeded
	interpLive   int     // interpreted instances not yet closed
	interpClosed bool    // the interpreter's runtime is released
}

// compiledMarker is the marker of wasm's compiled code in cacheDir, named
// by wazero's version (which keys its entries too), the platform and the
// module's digest.
func compiledMarker(cacheDir string, wasm []byte) string {
	version := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/tetratelabs/wazero" {
				version = dep.Version
				if dep.Replace != nil {
					version += "-replaced"
				}
			}
		}
	}
	sum := sha256.Sum256(wasm)
	return filepath.Join(cacheDir, fmt.Sprintf("toolerr-compiled-%s-%s-%s-%x", version, runtime.GOOS, runtime.GOARCH, sum[:12]))
}

// releaseInterpreter accounts for gone interpreted instances and closes
// the interpreter's runtime once the compiled engine serves and none is
// left.
func (t *tieredEngine) releaseInterpreter(gone int) {
	t.mu.Lock()
	t.interpLive -= gone
	release := t.compiled != nil && t.interpLive == 0 && !t.interpClosed
	if release {
		t.interpClosed = true
	}
	t.mu.Unlock()
	if release {
		_ = t.interp.Close(context.Background())
	}
}

// ready is the compiled engine, or nil while the compile runs or when it
// failed.
func (t *tieredEngine) ready() Runtime {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.compiled
}

func (t *tieredEngine) NewInstance(ctx context.Context) (Instance, error) {
	t.mu.Lock()
	if e := t.compiled; e != nil {
		t.mu.Unlock()
		return e.NewInstance(ctx)
	}
	t.interpLive++ // counted before it exists, so the runtime stays open for it
	t.mu.Unlock()
	inst, err := t.interp.NewInstance(ctx)
	if err != nil {
		t.releaseInterpreter(1)
		return nil, err
	}
	return &interpretedInstance{Instance: inst, engine: t}, nil
}

func (t *tieredEngine) Close(ctx context.Context) error {
	<-t.done
	t.mu.Lock()
	closeInterp := !t.interpClosed
	t.interpClosed = true
	t.mu.Unlock()
	var err error
	if closeInterp {
		err = t.interp.Close(ctx)
	}
	if e := t.ready(); e != nil {
		if cerr := e.Close(ctx); err == nil {
			err = cerr
		}
	}
	return err
}

// interpretedInstance is an instance of the interpreter, retired once the
// compiled engine is ready.
type interpretedInstance struct {
	Instance
	engine *tieredEngine
}

func (i *interpretedInstance) retired() bool { return i.engine.ready() != nil }

func (i *interpretedInstance) Close(ctx context.Context) {
	i.Instance.Close(ctx)
	i.engine.releaseInterpreter(1)
}

// retired reports whether inst should be dropped rather than kept in the
// pool: an interpreted instance once compiled ones can be had.
func retired(inst Instance) bool {
	r, ok := inst.(interface{ retired() bool })
	return ok && r.retired()
}
