//go:build tinygo

package main

import _ "unsafe" // go:linkname

// boundary is where the module's collector may run: the entry of an export
// the host calls, where no Go frame below holds a heap pointer. The module
// is built with TinyGo's collector at boundaries (-gc=boundary, a patch of
// plugin/tinygo/patches): the conservative collector without the stack
// bookkeeping that lets it run inside any allocation, which on WebAssembly
// cost every function that keeps a pointer across a call (RATIONALE.md
// measures it). An allocation that
// finds the heap full grows it instead; the collection runs here, at the
// next call, when one was asked for or half the heap's size has been
// allocated since the last (RATIONALE.md, "Collecting between calls").
//
//go:linkname boundary runtime.gcAtBoundaryPoint
func boundary()
