//go:build wasip1

// Command wasm is the export glue of toolerr.wasm: it moves JSON between a
// host and the contract logic (plugin/internal/dispatch), and nothing else.
//
// Two paths reach the same dispatch.AppendCall:
//   - one Extism export per ABI export (tool_error, parse, ...), through
//     go-pdk, for every Extism host;
//   - toolerr_buffer and toolerr_call, a raw pointer/length path for hosts
//     that drive the module directly (the Go host's wazero engine), which
//     needs no Extism kernel and copies each request and response once.
//
// Every export recovers a panic into an INTERNAL error where recover works
// (the standard Go build, make wasm-std). In the shipped TinyGo build it does
// not, and a panic traps: the hosts report TRAP and discard the instance.
// No input is known to panic; the fuzz targets compare every export with
// the native core.
package main

import (
	"runtime"
	"unsafe"

	"github.com/extism/go-pdk"
	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/dispatch"
)

func main() {}

//go:wasmimport extism:host/env input_length
func extismInputLength() uint64

// runExtism serves one Extism export: 0 with the output set, or 1 with the
// error set to the ABI error object.
func runExtism(export string) (rc int32) {
	boundary()
	defer func() {
		if p := recover(); p != nil {
			pdk.SetErrorString(string(dispatch.ErrorJSON(abi.Errorf(abi.CodeInternal, "%s: internal failure", export))))
			rc = 1
		}
	}()
	if n := extismInputLength(); n > abi.MaxRequestBytes {
		pdk.SetErrorString(string(dispatch.ErrorJSON(abi.Errorf(abi.CodeRequestTooLarge,
			"%s: request is %d bytes, over the limit of %d", export, n, abi.MaxRequestBytes))))
		return 1
	}
	input := pdk.Input()
	buf := reusable(extismOut)
	extismOut = nil // a large last response is garbage from here on
	out, err := dispatch.AppendCall(buf, export, input)
	settle()
	if err != nil {
		pdk.SetErrorString(string(dispatch.ErrorJSON(err)))
		return 1
	}
	extismOut = out
	pdk.Output(out)
	return 0
}

// yieldEvery is how many calls run between two yields to the scheduler.
const yieldEvery = 64

// callsSinceYield counts the calls since the last yield.
var callsSinceYield uint32

// settle ends every call. It matters only to the standard Go toolchain's
// build of the module (make wasm-std, kept for comparison): the shipped
// TinyGo build has no scheduler (-scheduler=none) and a collector that
// stops the world, so there runtime.Gosched does nothing and settle costs
// a counter. In the standard build the module runs only inside calls and
// never blocks, so the garbage collector's background worker never got to
// run: a collection, once started, advanced only by the allocating calls'
// assists and kept the write barrier on for thousands of calls. Every
// yieldEvery calls, settle yields to the scheduler, which lets the worker
// finish it. A yield costs a few microseconds (the scheduler polls the
// host), so it comes every yieldEvery calls, not after each;
// format_validation got about 25% faster.
//
// It does not force a collection after a big call: runtime.GC blocks the
// call until the collection ends, and under Node's WASI that crashed the
// host process now and then (SIGSEGV, 2 runs in 30 of the Node binding's
// hostile test; none in 30 without it).
func settle() {
	if callsSinceYield++; callsSinceYield >= yieldEvery {
		callsSinceYield = 0
		runtime.Gosched()
	}
}

// extismOut is the response buffer of the Extism exports, reused by the
// next call once pdk.Output has copied it out.
var extismOut []byte

// maxKeptResponse is the largest response buffer kept for reuse; a larger
// one is left to the garbage collector.
const maxKeptResponse = 64 << 10

// reusable returns buf emptied for the next response, or nil when it is
// too large to keep. Reusing it saves allocating every response, which
// inside the module costs more than writing it.
func reusable(buf []byte) []byte {
	if cap(buf) > maxKeptResponse {
		return nil
	}
	return buf[:0]
}

// exportName returns the export named by b without allocating when it is
// one the ABI knows.
func exportName(b []byte) string {
	// Compared as a view of b: TinyGo allocates for string(b) == s, which
	// the Go compiler does not (one allocation per export tried).
	s := unsafe.String(unsafe.SliceData(b), len(b))
	for _, e := range abi.Exports {
		if s == e.Name {
			return e.Name
		}
	}
	return string(b)
}

// The raw path keeps one request buffer and the last response alive in
// globals, so their addresses stay valid between the host's calls; the
// response buffer is reused by the next call.
var (
	rawIn  []byte
	rawOut []byte
)

// rawErrorFlag marks an error response in the length half of toolerr_call's
// result.
const rawErrorFlag = 1 << 31

// toolerrBuffer returns the address of a buffer of at least size bytes for
// the next toolerr_call, or 0 when size is over the request limit.
//
//go:wasmexport toolerr_buffer
func toolerrBuffer(size uint32) uint32 {
	boundary()
	if size > abi.MaxRequestBytes+256 {
		return 0
	}
	if uint32(cap(rawIn)) < size || size == 0 && cap(rawIn) == 0 {
		rawIn = make([]byte, max(size, 4096))
	}
	return uint32(uintptr(unsafe.Pointer(&rawIn[:1][0])))
}

// toolerrCall runs the export whose name fills the first nameLen bytes of
// the buffer on the JSON request in the next inputLen bytes. It returns the
// response address in the high 32 bits and its length in the low 31; bit 31
// set means the response is an ABI error object.
//
//go:wasmexport toolerr_call
func toolerrCall(nameLen, inputLen uint32) (result uint64) {
	boundary()
	defer func() {
		if p := recover(); p != nil {
			result = rawResult(dispatch.ErrorJSON(abi.Errorf(abi.CodeInternal, "internal failure")), true)
		}
	}()
	if uint64(nameLen)+uint64(inputLen) > uint64(len(rawIn)) {
		return rawResult(dispatch.ErrorJSON(abi.Errorf(abi.CodeInvalidRequest, "toolerr_call: lengths exceed the buffer")), true)
	}
	name := exportName(rawIn[:nameLen])
	// rawOut, the previous response, has been read by now; a large one is
	// garbage from here on.
	buf := reusable(rawOut)
	rawOut = nil
	out, err := dispatch.AppendCall(buf, name, rawIn[nameLen:nameLen+inputLen])
	settle()
	if err != nil {
		return rawResult(dispatch.ErrorJSON(err), true)
	}
	return rawResult(out, false)
}

func rawResult(out []byte, isErr bool) uint64 {
	rawOut = out
	var ptr uint32
	if len(out) > 0 {
		ptr = uint32(uintptr(unsafe.Pointer(&out[0])))
	}
	n := uint64(len(out))
	if isErr {
		n |= rawErrorFlag
	}
	return uint64(ptr)<<32 | n
}
