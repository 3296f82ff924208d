//go:build tinygo && wasm

package dispatch

// wasmMemorySize is the memory.size instruction: the module's linear
// memory, in 64 KiB pages.
//
//export llvm.wasm.memory.size.i32
func wasmMemorySize(index int32) int32

// memoryPages is the module's linear memory now, in 64 KiB pages.
func memoryPages() int { return int(wasmMemorySize(0)) }
