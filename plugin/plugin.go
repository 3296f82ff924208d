// Package plugin serves toolerr.wasm, the committed build of plugin/wasm,
// to Go hosts.
//
// The bytes are embedded at build time; SHA256 is the digest recorded next
// to them when `make wasm` built them, and hosts refuse bytes that do not
// match it.
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
