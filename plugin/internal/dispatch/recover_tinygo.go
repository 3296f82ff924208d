//go:build tinygo

package dispatch

import "github.com/toolerr/toolerr/abi"

// guarded is appendCall. TinyGo's wasm build cannot recover: a panic traps
// the instance, and the host answers TRAP and replaces it (SECURITY.md).
// A deferred recover would only cost every call its closure and the heap
// copies of the results it names, to no effect.
func (c *call) guarded(dst []byte, export string, input []byte) ([]byte, *abi.Error) {
	return c.appendCall(dst, export, input)
}
