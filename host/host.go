// Package host runs toolerr's contract for Go programs: one API over three
// engines that give the same bytes. Wazero and Extism run the embedded
// plugin/toolerr.wasm; Native calls the same Go core without wasm.
//
// # Notes
//   - A Host is safe for concurrent use: it pools module instances, one per
//     concurrent call, up to Options.MaxInstances.
//   - Every call takes a context.Context; when it ends, or the host's
//     per-call timeout passes, the caller gets TIMEOUT or CANCELLED: at
//     once for a request over InlineRequestBytes, when the call returns
//     for a smaller one (within about 10 ms in wasm here, 90 ms when a
//     large schema is compiled). The module call itself runs to its end
//     (the request limit bounds it) and its instance is then discarded.
//   - An instance that traps, or whose call was abandoned, is discarded;
//     the next call gets a fresh one. So is one whose linear memory grew
//     past RetireMemoryPages (read after every call on wazero; asked, with
//     one more call, after a call whose request or response is over
//     MemoryCheckBytes or that ran MemoryCheckTime or longer on Extism).
//   - The defaults are the host policy every toolerr host applies (the
//     "Host policy" table of abi/ABI.md).
//   - New refuses bytes whose sha256 differs from the expected digest, and a
//     module whose ABI major differs from abi.Major.
package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero/experimental"

	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin"
)

// Engine selects what runs the contract.
type Engine string

// The engines. Wazero is the default.
const (
	Wazero Engine = "wazero"
	Extism Engine = "extism"
	Native Engine = "native"
)

// Engines lists every engine, wasm ones first.
var Engines = []Engine{Wazero, Extism, Native}

// ParseEngine maps a name to an Engine.
func ParseEngine(name string) (Engine, error) {
	for _, e := range Engines {
		if string(e) == name {
			return e, nil
		}
	}
	return "", fmt.Errorf("toolerr: unknown engine %q (want wazero, extism or native)", name)
}

// Defaults for Options' zero values, and when an instance is retired: the
// host policy of abi/ABI.md ("Host policy"), which every toolerr host
// applies with the same values.
const (
	DefaultMemoryLimitPages = abi.PolicyMemoryMaxPages // 512 MiB of linear memory per instance
	DefaultCallTimeout      = abi.PolicyCallTimeoutMs * time.Millisecond
	// RetireMemoryPages: an instance whose linear memory grew past 1024
	// pages (64 MiB) is retired after the call rather than reused: linear
	// memory never shrinks, and a heap grown near the cap would make later
	// calls fail for want of room where a fresh instance has it.
	RetireMemoryPages = abi.PolicyRetireMemoryPages
	// MemoryCheckBytes: on the Extism engine, after a call whose request
	// or response is over 64 KiB, the instance is asked how far its memory
	// grew (the module's describe with "memory": true: one more call). The
	// wazero engine reads the memory's size after every call: a small
	// request can grow it too (an 18 KB contract_diff refused at its work
	// budget leaves megabytes of garbage, collected only between calls).
	MemoryCheckBytes = abi.MemoryCheckBytes
	// MemoryCheckTime: on the Extism engine, the instance is asked after a
	// call that ran this long or longer (1 ms), whatever its size: growing
	// the memory takes allocating, and allocating megabytes takes
	// milliseconds, while asking costs about one small call. Unasked, a run
	// of small heavy requests grew an Extism instance to its cap.
	MemoryCheckTime = abi.MemoryCheckMs * time.Millisecond
)

// Options configures a Host. The zero value runs the embedded module on
// wazero with the defaults.
type Options struct {
	// Engine runs the calls; "" means Wazero.
	Engine Engine
	// Wasm replaces the embedded module; SHA256 must then give its digest.
	Wasm []byte
	// SHA256 is the expected hex digest of Wasm; "" means plugin.SHA256.
	SHA256 string
	// MaxInstances bounds the instances alive at once, and so the calls
	// that run at once; further calls wait. 0 means GOMAXPROCS.
	MaxInstances int
	// MemoryLimitPages caps each instance's linear memory, in 64 KiB pages.
	// 0 means DefaultMemoryLimitPages.
	MemoryLimitPages uint32
	// CallTimeout bounds one call; 0 means DefaultCallTimeout, negative
	// means no bound but the context's.
	CallTimeout time.Duration
	// CompilationCacheDir keeps wazero's compiled code on disk so a new
	// process skips compilation (wazero and extism engines). "" means
	// DefaultCompilationCacheDir(), the user cache directory, unless
	// NoCompilationCache is set.
	CompilationCacheDir string
	// NoCompilationCache compiles the module afresh in every process, with
	// no cache on disk (CompilationCacheDir is then ignored).
	NoCompilationCache bool
	// IsolatedChecks runs the two checks a healed server makes on every
	// message, Heal's argument check (validate) and GatedStdio's stdio
	// gate, on Engine like every other call. By default they run on the
	// Native engine: the contract's Go core compiled into this program,
	// the same code as the module and byte-identical to it on every
	// vector, and about four times faster than the module on wazero,
	// which matters on the path of every successful call. Native calls
	// have no linear-memory cap or call timeout of their own; the core
	// bounds its work on hostile input itself (SECURITY.md). Everything
	// else (rendering errors, Wrap, the typed calls) runs on Engine.
	IsolatedChecks bool
}

// DefaultCompilationCacheDir is where a Host keeps wazero's compiled code
// when Options name no directory: toolerr/wazero under os.UserCacheDir
// ($XDG_CACHE_HOME or ~/.cache on Linux), or "" (no cache) when the user
// has no cache directory. wazero keys its entries by its own version and
// the module's bytes, so one directory serves every module and release.
func DefaultCompilationCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		return ""
	}
	return filepath.Join(dir, "toolerr", "wazero")
}

// compilationCacheDir is the cache directory opts ask for ("" for none).
func compilationCacheDir(opts Options) string {
	switch {
	case opts.NoCompilationCache:
		return ""
	case opts.CompilationCacheDir != "":
		return opts.CompilationCacheDir
	}
	// The default directory is a convenience: where it cannot be made
	// (a read-only home), the Host compiles without a cache.
	dir := DefaultCompilationCacheDir()
	if dir != "" && os.MkdirAll(dir, 0o755) != nil {
		return ""
	}
	return dir
}

// Instance is one module instance (or the native core): it runs one call
// at a time. A Runtime makes them.
type Instance interface {
	// Call runs export on request and returns the response, or the
	// module's error as an *abi.Error, or the runtime's own error.
	Call(ctx context.Context, export string, request []byte) ([]byte, error)
	Close(ctx context.Context)
	// MemoryPages is the instance's linear memory now, in 64 KiB pages
	// (0 for the native core). Linear memory never shrinks.
	MemoryPages(ctx context.Context) (uint32, error)
}

// Runtime makes instances of one compiled module.
type Runtime interface {
	NewInstance(ctx context.Context) (Instance, error)
	Close(ctx context.Context) error
}

// OpenRuntime compiles wasm (its digest already checked) for an engine,
// each instance's memory capped at memoryPages, with a compilation cache in
// cacheDir ("" for none).
type OpenRuntime func(ctx context.Context, wasm []byte, memoryPages uint32, cacheDir string) (Runtime, error)

// runtimes are the engines other packages provide (RegisterRuntime).
var runtimes = struct {
	sync.Mutex
	open map[Engine]OpenRuntime
}{open: map[Engine]OpenRuntime{}}

// RegisterRuntime makes engine e available to New, run by open. It is for
// packages that bring an engine's runtime with them, so that a program
// links a runtime only when it imports one: github.com/toolerr/toolerr/host/extism
// registers Extism when imported (import _ "github.com/toolerr/toolerr/host/extism").
// The built-in Wazero and Native cannot be replaced.
func RegisterRuntime(e Engine, open OpenRuntime) {
	runtimes.Lock()
	defer runtimes.Unlock()
	runtimes.open[e] = open
}

// Host runs toolerr exports. Create one with New and share it.
type Host struct {
	kind    Engine
	eng     Runtime
	timeout time.Duration
	max     int           // live instances allowed
	wake    chan struct{} // a release or a discard happened: a waiter looks again

	// checks runs Heal's argument check and the stdio gate: a Native host,
	// or h itself when h is Native or Options.IsolatedChecks asks for it.
	checks *Host

	mu     sync.Mutex
	closed bool
	// engClosed: the engine is closed (closeEngine), once the host is
	// closed and its last instance dropped.
	engClosed bool
	live      int
	// idle holds the instances not in use, the most recently released
	// last: a call takes the one used last, whose memory is still in the
	// CPU's caches (a server calling gate and validate in turn on two
	// instances taken first-in first-out was some 50 µs slower a call).
	idle []Instance
}

// checker is the host that runs the per-message checks (Options.IsolatedChecks).
func (h *Host) checker() *Host {
	if h.checks != nil {
		return h.checks
	}
	return h
}

// New compiles the module (unless the engine is Native), checks its digest
// and ABI version, and returns a ready Host.
func New(ctx context.Context, opts Options) (*Host, error) {
	return newHost(ctx, opts, nil)
}

// newHost is New, with the wazero engine opened by openWazero when it is
// not nil (tests: an engine on the interpreter alone).
func newHost(ctx context.Context, opts Options, openWazero OpenRuntime) (*Host, error) {
	kind := opts.Engine
	if kind == "" {
		kind = Wazero
	}
	if _, err := ParseEngine(string(kind)); err != nil {
		return nil, err
	}
	max := opts.MaxInstances
	if max <= 0 {
		max = runtime.GOMAXPROCS(0)
	}
	timeout := opts.CallTimeout
	if timeout == 0 {
		timeout = DefaultCallTimeout
	}
	pages := opts.MemoryLimitPages
	if pages == 0 {
		pages = DefaultMemoryLimitPages
	}
	h := &Host{kind: kind, timeout: timeout, max: max, wake: make(chan struct{}, 1)}
	if kind == Native {
		h.eng = nativeEngine{}
	} else {
		wasm, err := checkedWasm(opts)
		if err != nil {
			return nil, err
		}
		open := openWazero
		if open == nil {
			open = newWazeroEngine
		}
		if kind != Wazero {
			runtimes.Lock()
			open = runtimes.open[kind]
			runtimes.Unlock()
			if open == nil {
				return nil, fmt.Errorf("toolerr: engine %s is not linked into this program: import _ \"github.com/toolerr/toolerr/host/%s\"", kind, kind)
			}
		}
		// Compiling the module is the slow part of a start with an empty
		// cache: wazero's compiler splits it over every CPU the program
		// may use (the Extism engine compiles through wazero with this
		// context too), which about halves it on two cores.
		compileCtx := experimental.WithCompilationWorkers(ctx, runtime.GOMAXPROCS(0))
		if h.eng, err = open(compileCtx, wasm, pages, compilationCacheDir(opts)); err != nil {
			return nil, err
		}
	}
	if err := h.checkABI(ctx); err != nil {
		_ = h.Close(ctx)
		return nil, err
	}
	h.checks = h
	if kind != Native && !opts.IsolatedChecks {
		h.checks = &Host{kind: Native, eng: nativeEngine{}, timeout: timeout, max: max, wake: make(chan struct{}, 1)}
		h.checks.checks = h.checks
	}
	return h, nil
}

// checkedWasm returns the module bytes once their digest matches.
func checkedWasm(opts Options) ([]byte, error) {
	wasm, want := plugin.Wasm, plugin.SHA256
	if opts.Wasm != nil {
		if opts.SHA256 == "" {
			return nil, errors.New("toolerr: Options.SHA256 is required with Options.Wasm")
		}
		wasm = opts.Wasm
	}
	if opts.SHA256 != "" {
		want = opts.SHA256
	}
	sum := sha256.Sum256(wasm)
	if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, want) {
		return nil, fmt.Errorf("toolerr: module sha256 is %s, want %s", got, want)
	}
	return wasm, nil
}

// checkABI refuses a module whose ABI major is not abi.Major. It is part of
// New, bounded by New's context rather than by CallTimeout: it also starts
// the first instance, which on a busy machine can take longer than a short
// per-call timeout allows a call.
func (h *Host) checkABI(ctx context.Context) error {
	var d abi.Description
	out, err := h.call(ctx, "describe", []byte(`{}`), 0)
	if err == nil {
		err = json.Unmarshal(out, &d)
	}
	if err != nil {
		return fmt.Errorf("toolerr: describe: %w", err)
	}
	major, _, _ := strings.Cut(d.ABIVersion, ".")
	if n, err := strconv.Atoi(major); err != nil || n != abi.Major {
		return fmt.Errorf("toolerr: module ABI %q is not supported by this host (ABI major %d)", d.ABIVersion, abi.Major)
	}
	return nil
}

// Engine reports which engine runs the calls.
func (h *Host) Engine() Engine { return h.kind }

// ErrClosed is returned by calls on a closed Host.
var ErrClosed = errors.New("toolerr: host is closed")

// Call runs export on a JSON request and returns the JSON response.
// A failure is an *abi.Error: the module's INVALID_REQUEST,
// REQUEST_TOO_LARGE or INTERNAL, or the host's TIMEOUT, CANCELLED or TRAP
// (which wrap the cause).
func (h *Host) Call(ctx context.Context, export string, request []byte) ([]byte, error) {
	return h.call(ctx, export, request, h.timeout)
}

// call is Call with the per-call timeout given (0: none but ctx's).
func (h *Host) call(ctx context.Context, export string, request []byte, timeout time.Duration) ([]byte, error) {
	if !abi.HasExport(export) {
		return nil, abi.Errorf(abi.CodeInvalidRequest, "unknown export %q", export)
	}
	if len(request) > abi.MaxRequestBytes {
		return nil, abi.Errorf(abi.CodeRequestTooLarge, "%s: request is %d bytes, over the limit of %d", export, len(request), abi.MaxRequestBytes)
	}
	var inst Instance
	if timeout > 0 && len(request) <= InlineRequestBytes {
		// A small call that finds an instance free needs no timer: it runs
		// inline, and its deadline is read off the clock when it returns
		// (InlineRequestBytes). Making the timer and its context was a
		// fifth of a small call through wazero.
		if inst = h.takeIdle(ctx); inst != nil {
			ctx = &clockDeadline{ctx, time.Now().Add(timeout)}
		}
	}
	if inst == nil {
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		var err error
		if inst, err = h.acquire(ctx); err != nil {
			return nil, err
		}
	}
	if err := ended(ctx); err != nil {
		h.release(inst)
		return nil, hostFailure(ctx, export, err)
	}
	var started time.Time
	if h.kind != Wazero {
		started = time.Now() // for MemoryCheckTime
	}
	var out []byte
	var err error
	if _, deadline := ctx.Deadline(); ctx.Done() == nil && !deadline {
		out, err = inst.Call(ctx, export, request)
	} else if len(request) <= InlineRequestBytes {
		callCtx := ctx
		if ctx.Done() != nil {
			callCtx = context.WithoutCancel(ctx)
		}
		out, err = inst.Call(callCtx, export, request)
		if end := ended(ctx); end != nil {
			// The context ended while the call ran: the answer comes too
			// late to give, and the instance goes like an abandoned one.
			h.discard(ctx, inst)
			return nil, hostFailure(ctx, export, end)
		}
	} else {
		var abandoned bool
		out, err, abandoned = h.callWatched(ctx, inst, export, request)
		if abandoned {
			return nil, hostFailure(ctx, export, ctx.Err())
		}
		if end := ended(ctx); end != nil {
			h.discard(ctx, inst) // answered after its deadline, before the timer fired
			return nil, hostFailure(ctx, export, end)
		}
	}
	var abiErr *abi.Error
	if err != nil && (!errors.As(err, &abiErr) || abiErr.Cause != nil) {
		// The instance trapped: its state is undefined, so it is dropped.
		h.discard(ctx, inst)
		return nil, hostFailure(ctx, export, err)
	}
	if h.checkMemory(request, out, started) && h.grown(ctx, inst) {
		h.discard(ctx, inst)
	} else {
		h.release(inst)
	}
	return out, err
}

// InlineRequestBytes is the largest request a call whose context can end
// runs on the caller's goroutine. That saves the hand-off to another
// goroutine, which cost more than a small call itself (20 µs against a
// 20 µs tool_error through wazero). The price: a deadline that passes
// during such a call is reported when the call returns, which for a
// request this small was within about 10 ms in wasm on the development
// machine, and 90 ms for a first validate that compiles a 130-property
// schema. Larger requests run on a watched goroutine (callWatched), and an
// ended context answers at once.
const InlineRequestBytes = 16 << 10

// callWatched runs the call on its own goroutine so that the caller can
// stop waiting when ctx ends. A call cannot be interrupted inside the
// module without compiling termination checks into every loop, which
// makes every call several times slower; so an abandoned call runs to its
// end (bounded by the request limit) and its instance is then dropped.
// It still holds its instance slot until then, so MaxInstances bounds
// abandoned calls too.
func (h *Host) callWatched(ctx context.Context, inst Instance, export string, request []byte) ([]byte, error, bool) {
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := inst.Call(context.WithoutCancel(ctx), export, request)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err, false
	case <-ctx.Done():
		go func() {
			<-done
			h.discard(context.Background(), inst)
		}()
		return nil, nil, true
	}
}

// ended is why ctx has ended, or nil. A deadline counts as passed from its
// instant on, even before the context's timer has fired: on a busy machine
// that timer runs late, and a call that overran its deadline would
// otherwise be answered as if it had not.
func ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if deadline, ok := ctx.Deadline(); ok && !time.Now().Before(deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// hostFailure types an engine failure by its cause.
func hostFailure(ctx context.Context, export string, err error) error {
	var abiErr *abi.Error
	if errors.As(err, &abiErr) && abiErr.Code != "" {
		return abiErr
	}
	end := ended(ctx)
	if end == nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		end = err
	}
	switch {
	case errors.Is(end, context.DeadlineExceeded):
		return &abi.Error{Code: abi.CodeTimeout, Message: export + ": the call ran out of time", Cause: context.DeadlineExceeded}
	case errors.Is(end, context.Canceled):
		return &abi.Error{Code: abi.CodeCancelled, Message: export + ": the call was cancelled", Cause: context.Canceled}
	}
	return &abi.Error{Code: abi.CodeTrap, Message: export + ": the module trapped: " + err.Error(), Cause: err}
}

func (h *Host) acquire(ctx context.Context) (Instance, error) {
	for {
		if inst := h.takeIdle(ctx); inst != nil {
			return inst, nil
		}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			h.signal() // the next waiter sees it too
			return nil, ErrClosed
		}
		if len(h.idle) > 0 {
			h.mu.Unlock() // one came back meanwhile
			continue
		}
		if h.live < h.max {
			h.live++
			more := h.live < h.max
			h.mu.Unlock()
			if more {
				h.signal()
			}
			inst, err := h.eng.NewInstance(context.WithoutCancel(ctx))
			if err != nil {
				h.dropped()
				return nil, &abi.Error{Code: abi.CodeTrap, Message: "toolerr: new instance: " + err.Error(), Cause: err}
			}
			return inst, nil
		}
		h.mu.Unlock()
		select {
		case <-h.wake:
		case <-ctx.Done():
			return nil, hostFailure(ctx, "acquire", ctx.Err())
		}
	}
}

// takeIdle takes the idle instance used last, without waiting, or returns
// nil when none is idle (or the Host is closed).
func (h *Host) takeIdle(ctx context.Context) Instance {
	for {
		h.mu.Lock()
		n := len(h.idle)
		if h.closed || n == 0 {
			h.mu.Unlock()
			return nil
		}
		inst := h.idle[n-1]
		h.idle[n-1] = nil
		h.idle = h.idle[:n-1]
		more := n > 1 || h.live < h.max
		h.mu.Unlock()
		if retired(inst) {
			h.discard(ctx, inst) // and the next turn takes another
			continue
		}
		if more {
			h.signal() // what is left is for the next waiter, if any
		}
		return inst
	}
}

// clockDeadline is a context whose deadline is read off the clock, never
// signalled (its Done is its parent's): a small call on a free instance
// runs inline and is checked against it when it returns.
type clockDeadline struct {
	context.Context
	at time.Time
}

// Deadline is the earlier of its own and its parent's.
func (c *clockDeadline) Deadline() (time.Time, bool) {
	if parent, ok := c.Context.Deadline(); ok && parent.Before(c.at) {
		return parent, true
	}
	return c.at, true
}

// signal wakes a call waiting for an instance, if any; a waiter that
// finds nothing waits again, and one woken for nothing looks once more.
func (h *Host) signal() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// dropped accounts for an instance that no longer exists.
func (h *Host) dropped() {
	h.mu.Lock()
	h.live--
	last := h.closed && h.live == 0
	h.mu.Unlock()
	h.signal()
	if last {
		_ = h.closeEngine(context.Background())
	}
}

func (h *Host) release(inst Instance) {
	h.mu.Lock()
	if !h.closed && !retired(inst) {
		h.idle = append(h.idle, inst)
		h.mu.Unlock()
		h.signal()
		return
	}
	h.mu.Unlock()
	h.discard(context.Background(), inst)
}

// checkMemory reports whether the host policy reads how far an
// instance's memory grew after a call: after every call on wazero, which
// reads it directly; on Extism, which must ask the module, after a call
// whose request or response is over MemoryCheckBytes or that ran
// MemoryCheckTime or longer.
func (h *Host) checkMemory(request, out []byte, started time.Time) bool {
	return h.kind == Wazero || len(request) > MemoryCheckBytes || len(out) > MemoryCheckBytes ||
		time.Since(started) >= MemoryCheckTime
}

// grown reports whether inst's memory grew too far to keep it (or could
// not be told: the instance is then not trusted either).
func (h *Host) grown(ctx context.Context, inst Instance) bool {
	pages, err := inst.MemoryPages(context.WithoutCancel(ctx))
	return err != nil || pages > RetireMemoryPages
}

func (h *Host) discard(ctx context.Context, inst Instance) {
	inst.Close(context.WithoutCancel(ctx))
	h.dropped()
}

// MemoryPages reports the linear memory, in 64 KiB pages, of every idle
// instance (none for the native engine). The instances are taken from the
// pool while they are asked, so a call made meanwhile gets a fresh one.
func (h *Host) MemoryPages(ctx context.Context) []uint32 {
	var out []uint32
	h.mu.Lock()
	taken := h.idle
	h.idle = nil
	h.mu.Unlock()
	for _, inst := range taken {
		if pages, err := inst.MemoryPages(ctx); err == nil && pages > 0 {
			out = append(out, pages)
		}
		h.release(inst)
	}
	return out
}

// liveInstances reports how many instances exist now, idle or busy (for
// tests: export_test.go).
func (h *Host) liveInstances() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.live
}

// Close releases the idle instances and the compiled module. Calls still
// running finish (a call abandoned at its deadline too); their instances
// are then dropped, and the last one dropped releases the compiled module:
// closing the runtime under a running call would close its module too and
// take its memory (the wazero engine's is a mapping of its own, unmapped
// on close).
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	idle := h.idle
	h.idle = nil
	h.mu.Unlock()
	for _, inst := range idle {
		h.discard(ctx, inst)
	}
	// Calls waiting for an instance see the host closed, one after another.
	h.signal()
	if h.checks != nil && h.checks != h {
		_ = h.checks.Close(ctx)
	}
	return h.closeEngine(ctx)
}

// closeEngine closes the engine once the host is closed and no instance is
// left; a later call does nothing.
func (h *Host) closeEngine(ctx context.Context) error {
	h.mu.Lock()
	if !h.closed || h.live > 0 || h.engClosed {
		h.mu.Unlock()
		return nil
	}
	h.engClosed = true
	h.mu.Unlock()
	return h.eng.Close(context.WithoutCancel(ctx))
}

// Describe returns what the module says of itself.
func (h *Host) Describe(ctx context.Context) (*abi.Description, error) {
	var d abi.Description
	if err := h.callJSON(ctx, "describe", struct{}{}, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// callJSON encodes req, calls export and decodes the response into resp.
func (h *Host) callJSON(ctx context.Context, export string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		// The caller's mistake in its own words ("details \"k\": ..."),
		// not encoding/json's frame around it.
		var inner *json.MarshalerError
		if errors.As(err, &inner) {
			err = inner.Unwrap()
		}
		return abi.Errorf(abi.CodeInvalidRequest, "%s: %v", export, err)
	}
	out, err := h.Call(ctx, export, body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, resp); err != nil {
		return abi.Errorf(abi.CodeInternal, "%s: undecodable response: %v", export, err)
	}
	return nil
}
