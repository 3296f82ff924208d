// Package abi holds the JSON ABI of toolerr.wasm: its version, its exports,
// its error codes and limits, and the request and response types that hosts
// send and receive.
//
// Everything here is data shared by the core (plugin/internal), the wasm glue
// (plugin/wasm) and the Go host (host). The data itself is abi/abi.json:
// abi_gen.go is generated from it (go run ./abi/gen), as are the tables of
// abi/ABI.md and each binding's request types; this file and types.go hold
// what is written by hand, the methods.
package abi

import "fmt"

// Version is Major.Minor as describe reports it.
var Version = fmt.Sprintf("%d.%d", Major, Minor)

// Export names one function of the module, with the ABI version that added it.
type Export struct {
	Name    string
	AddedIn string
}

// ExportNames returns the names of Exports in order.
func ExportNames() []string {
	names := make([]string, len(Exports))
	for i, e := range Exports {
		names[i] = e.Name
	}
	return names
}

// HasExport reports whether name is one of Exports.
func HasExport(name string) bool {
	for _, e := range Exports {
		if e.Name == name {
			return true
		}
	}
	return false
}

// Error is the typed failure of a call: an ABI code and a message naming
// what was wrong.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Cause is the underlying failure of a host-side error (TIMEOUT,
	// CANCELLED, TRAP); nil for errors the module reported.
	Cause error `json:"-"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the cause of a host-side error.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf builds an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
