//go:build !tinygo

package dispatch

import "github.com/toolerr/toolerr/abi"

// guarded is appendCall with a panic (a bug: no input is known to cause
// one) answered as an INTERNAL error, so that a Go program calling the
// core natively keeps serving.
func (c *call) guarded(dst []byte, export string, input []byte) (out []byte, err *abi.Error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, abi.Errorf(abi.CodeInternal, "%s: internal failure: %v", export, p)
		}
	}()
	return c.appendCall(dst, export, input)
}
