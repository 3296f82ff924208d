package plugin

import (
	"github.com/toolerr/toolerr/abi"
	"github.com/toolerr/toolerr/plugin/internal/dispatch"
)

// Call runs one export of the module natively, without wasm: the same Go
// code that plugin/wasm compiles into toolerr.wasm, so its response is the
// module's, byte for byte. It returns the JSON response, or a typed error
// naming what was wrong with the request.
//
// # Notes
//   - Call never panics on any input; a bug surfaces as an INTERNAL error.
//   - Call keeps no state between calls that changes an answer, and is
//     safe for concurrent use.
//   - The contract logic behind it lives in plugin/internal and is not
//     public API: Call, AppendCall and ErrorJSON are all a host needs.
func Call(export string, input []byte) ([]byte, *abi.Error) {
	return dispatch.Call(export, input)
}

// AppendCall is Call writing the response after dst, so that a caller can
// reuse one response buffer across calls. On error it returns nil.
func AppendCall(dst []byte, export string, input []byte) ([]byte, *abi.Error) {
	return dispatch.AppendCall(dst, export, input)
}

// ErrorJSON encodes err as the ABI error object {"code","message"}, the
// way the module writes it.
func ErrorJSON(err *abi.Error) []byte {
	return dispatch.ErrorJSON(err)
}
