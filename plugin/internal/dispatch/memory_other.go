//go:build !(tinygo && wasm)

package dispatch

// memoryPages is 0 outside the TinyGo build of the module: the native core
// has no linear memory (and the standard Go wasm build, kept for
// benchmarks only, does not report its own).
func memoryPages() int { return 0 }
