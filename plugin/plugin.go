// Package plugin serves toolerr.wasm, the committed build of plugin/wasm,
// to Go hosts, and the same logic natively: Call, AppendCall and ErrorJSON
// run it without wasm (the Go host's native engine).
//
// The bytes are embedded at build time; SHA256 is the digest recorded next
// to them when `make wasm` built them, and hosts refuse bytes that do not
// match it. The contract logic itself lives in plugin/internal, which is
// not public API; plugin/wasm imports it directly, never this package (the
// module would otherwise embed its own previous build).
package plugin

import (
	_ "embed"
	"strings"
)

// Wasm is the module: plugin/toolerr.wasm.
//
//go:embed toolerr.wasm
var Wasm []byte

//go:embed toolerr.wasm.sha256
var sha256File string

// SHA256 is the hex sha256 of Wasm as `make wasm` recorded it.
var SHA256 = strings.Fields(sha256File)[0]
