//go:build !tinygo

package main

// boundary does nothing in the standard Go toolchain's build (make
// wasm-std), whose collector finds pointers on any stack.
func boundary() {}
