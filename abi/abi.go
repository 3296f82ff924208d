// Package abi holds the JSON ABI of toolerr.wasm: its version, its exports,
// its error codes and limits, and the request and response types that hosts
// send and receive.
//
// Everything here is data shared by the core (plugin/internal), the wasm glue
// (plugin/wasm) and the Go host (host). abi/ABI.md restates it as tables and
// a test keeps the two in step.
package abi

import "fmt"

// Version of the ABI. A host refuses a module whose major differs from the
// one it was built for; a higher minor only adds exports or optional fields.
const (
	Major = 1
	Minor = 5
)

// Version is Major.Minor as describe reports it.
var Version = fmt.Sprintf("%d.%d", Major, Minor)

// ModuleVersion is the release of the contract logic inside the module.
const ModuleVersion = "0.2.0"

// Export names one function of the module, with the ABI version that added it.
type Export struct {
	Name    string
	AddedIn string
}

// Exports lists every JSON export of the module, in the order describe
// reports them.
var Exports = []Export{
	{"tool_error", "1.0"},
	{"simple_error", "1.0"},
	{"required_field", "1.0"},
	{"internal_error", "1.0"},
	{"rate_limited", "1.0"},
	{"server_busy", "1.0"},
	{"escape", "1.0"},
	{"format_validation", "1.0"},
	{"parse", "1.0"},
	{"describe", "1.0"},
	{"validate", "1.1"},
	{"contract_lock", "1.2"},
	{"contract_diff", "1.2"},
	{"check_result", "1.3"},
	{"gate", "1.4"},
	{"tool_failure", "1.4"},
	{"server_failure", "1.4"},
	{"unknown_tool", "1.5"},
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

// Error codes a call can fail with. They travel as the "code" of the error
// object the module sets; hosts surface them on their typed error.
const (
	CodeInvalidRequest  = "INVALID_REQUEST"
	CodeRequestTooLarge = "REQUEST_TOO_LARGE"
	CodeInternal        = "INTERNAL"

	// Codes a host adds for failures outside the module's control.
	CodeTimeout   = "TIMEOUT"   // the call's deadline passed
	CodeCancelled = "CANCELLED" // the call's context was cancelled
	CodeTrap      = "TRAP"      // the module trapped or could not start
)

// Limits enforced on every request, identically by the module and the native
// core.
const (
	// MaxRequestBytes is the largest request accepted, in bytes of JSON.
	MaxRequestBytes = 4 << 20
	// MaxDepth is the deepest nesting of arrays and objects accepted.
	MaxDepth = 256
	// MaxValues is the most JSON values (scalars, arrays and objects) one
	// request may hold, which bounds the module's memory per call.
	MaxValues = 200000
)

// Severities of a tool error; isError is false only for warning.
var Severities = []string{"error", "critical", "warning"}

// CanonicalCodes are the error codes of the contract. Any other non-empty
// code is allowed too.
var CanonicalCodes = []string{
	"MISSING_DISCRIMINATOR", "UNKNOWN_ACTION", "VALIDATION_ERROR",
	"MISSING_REQUIRED_FIELD", "INTERNAL_ERROR", "RATE_LIMITED",
	"UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT", "TIMEOUT",
	"SERVER_BUSY", "DEPRECATED", "AUTH_REQUIRED",
	"HANDOFF_UPSTREAM_UNAVAILABLE", "HANDOFF_NAMESPACE_MISMATCH",
	"HANDOFF_CONNECTING", "TOOL_FAILURE",
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
